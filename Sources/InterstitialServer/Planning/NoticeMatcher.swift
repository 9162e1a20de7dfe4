import HLSInterstitials
import HLSPlaylist

/// Which signalled break takes which early notice (``BreakNotice``): the one rule, pure, so every
/// rendition and every replica serves the same date range ID.
///
/// A signalled break (SCTE-35 CUE-OUT, DATERANGE or OATCLS, `SignalledBreak`) takes a notice when
/// its start is within `tolerance` of the notice's start (either side); it is then served under the
/// notice's ID, so the decisions made ahead for the notice answer its asset lists.
///
/// - A break already served under its own ID keeps it (a served date range never changes,
///   RFC 8216bis §6.2.1): it takes no notice.
/// - A break without a start date takes no notice.
/// - A cancelled break takes a notice as any other: served under the notice's ID, it is withdrawn
///   under that ID (``BreakPlanner/withdrawals(_:)``); never served, it is not planned.
/// - When several pairs compete, the nearest pair wins (the smallest distance between the starts),
///   then the earlier notice, the notice ID, the earlier break and the break ID: each break takes
///   at most one notice and each notice goes to at most one break. The order of the inputs does not
///   matter.
public enum NoticeMatcher {
    /// The default tolerance (`limits.noticeTolerance`): 10 s, an operator's automation announcing
    /// a break by its schedule, with the encoder's and the clocks' drift.
    public static let defaultTolerance = MediaTime(seconds: 10)

    /// `signalled` with the breaks that take a notice of `notices` renamed to that notice's ID, in
    /// the same order. `isServed` says whether a date range ID was served already.
    public static func match(
        _ signalled: [SignalledBreak], notices: [BreakNotice], tolerance: MediaTime,
        isServed: (String) -> Bool
    ) -> [SignalledBreak] {
        guard !signalled.isEmpty, !notices.isEmpty else { return signalled }
        struct Pair {
            var distance: Int64
            var notice: BreakNotice
            var cue: Int
        }
        var pairs: [Pair] = []
        for (index, item) in signalled.enumerated() {
            guard let start = item.startDate, !isServed(item.id) else { continue }
            for notice in notices {
                let distance = (start - notice.start).nanoseconds.magnitude
                guard distance <= tolerance.nanoseconds.magnitude else { continue }
                pairs.append(Pair(distance: Int64(clamping: distance), notice: notice, cue: index))
            }
        }
        func cueOrder(_ index: Int) -> (Int64, String, Int) {
            (signalled[index].startDate?.nanosecondsSinceEpoch ?? .min, signalled[index].id, index)
        }
        pairs.sort { left, right in
            if left.distance != right.distance { return left.distance < right.distance }
            let leftNotice = left.notice.start.nanosecondsSinceEpoch
            let rightNotice = right.notice.start.nanosecondsSinceEpoch
            if leftNotice != rightNotice { return leftNotice < rightNotice }
            if left.notice.id != right.notice.id { return left.notice.id < right.notice.id }
            return cueOrder(left.cue) < cueOrder(right.cue)
        }
        var result = signalled
        var takenNotices: Set<String> = []
        var takenCues: Set<Int> = []
        for pair in pairs where !takenNotices.contains(pair.notice.id) && !takenCues.contains(pair.cue) {
            takenNotices.insert(pair.notice.id)
            takenCues.insert(pair.cue)
            result[pair.cue].id = pair.notice.id
        }
        return result
    }
}
