import HLSPlaylist
import NIOConcurrencyHelpers

/// Gives the segments of an upstream live playlist without EXT-X-PROGRAM-DATE-TIME stable dates.
///
/// The first time a playlist is seen its live edge (the end of its last segment) is dated now; after
/// that each segment keeps the date it was first given, found through its media sequence number, and
/// new segments follow the previous ones. Dates live in memory, so a restart re-anchors them.
final class ProgramDateTimeTracker: Sendable {
    private let dates = NIOLockedValueBox<[String: [UInt64: DateTime]]>([:])

    /// `result` with an EXT-X-PROGRAM-DATE-TIME on its first segment.
    func dated(_ result: ParseResult, key: String, now: DateTime) -> ParseResult {
        guard case .media(let playlist) = result.playlist, let first = playlist.segments.first,
            let last = playlist.segments.last
        else { return result }
        let start: DateTime = dates.withLockedValue { all in
            var known = all[key] ?? [:]
            var anchor: DateTime
            if let index = playlist.segments.firstIndex(where: { known[$0.mediaSequence] != nil }) {
                let segment = playlist.segments[index]
                anchor = known[segment.mediaSequence]! - (segment.startTime - first.startTime)
            } else {
                anchor = now - (last.endTime - first.startTime)
            }
            anchor.utcOffsetSeconds = 0
            for segment in playlist.segments where known[segment.mediaSequence] == nil {
                known[segment.mediaSequence] = anchor + (segment.startTime - first.startTime)
            }
            if known.count > 4096 {
                let floor = first.mediaSequence
                known = known.filter { $0.key >= floor }
            }
            all[key] = known
            return anchor
        }
        var document = result.document
        guard let extinf = (0..<first.line).last(where: { document.lines[$0].content.tag?.name == .extinf }) else {
            return result
        }
        // A date tag always writes as one line; were it refused, the playlist stays undated.
        guard (try? document.insert(.tag(Tag(.programDateTime, .dateTime(start))), at: extinf)) != nil else {
            return result
        }
        return PlaylistParser.parse(document.write(), options: ParseOptions(file: document.file))
    }
}
