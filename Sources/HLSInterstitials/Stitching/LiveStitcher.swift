import HLSPlaylist

/// The stitched form of a live primary for one viewer: each reload's window with the viewer's ads in
/// place of the primary segments a break covers (issue 45; profile R28).
///
/// A value with state, fed one window at a time: its numbers depend only on what it has seen, so
/// `EXT-X-MEDIA-SEQUENCE` and `EXT-X-DISCONTINUITY-SEQUENCE` stay consistent from reload to reload
/// while ad and primary segments leave the window.
///
/// **What replaces what** (`LiveSplice`, the one rule for every rendition: a video variant and a
/// demuxed audio rendition splice at the same points within one segment). A primary segment whose
/// midpoint is in `[start, start + duration)` of a break is *replaced*. The break's *fill* is its pod's
/// segments in order, then the slate's segments repeated (when a slate is given), counted from this
/// playlist's splice-in; a fill segment plays when its midpoint is before `duration`. A replaced
/// segment brings the fill segments that end by its end, the break's last replaced segment those that
/// start before its end: ads appear at the pace of primary and cover the span replaced, a pod longer
/// than the break is cut at a segment boundary, a shorter one is padded with slate. An early return
/// shortens `duration`, so the ads are cut at the next segment. The first primary segment after a
/// break gets an EXT-X-DISCONTINUITY (and each ad's first segment one).
///
/// **The numbers.** What a primary segment (by its Media Sequence Number) becomes is decided the
/// first time it is seen and kept while it is in the window. When a segment leaves the window, the
/// difference it made is folded into two totals: `sequenceShift` (the segments it became, minus
/// one) and `discontinuityShift` (the discontinuities it added, minus one it had and lost). A
/// window whose first primary segment is `n` with discontinuity sequence `d` before it is then
/// written with `EXT-X-MEDIA-SEQUENCE = n + sequenceShift` and
/// `EXT-X-DISCONTINUITY-SEQUENCE = d + discontinuityShift`. Breaks before the first window a viewer
/// sees count for nothing: the numbers only have to agree for that viewer.
public struct LiveStitcher: Sendable {
    /// What one primary segment became.
    struct Decision: Sendable, Hashable {
        /// The break that replaces it, or nil when it stays.
        var breakID: String?
        /// The fill segments it brings (replaced segments).
        var fill: Range<Int>
        /// Whether it follows a replaced segment (kept segments: it gets a discontinuity).
        var afterBreak: Bool
        /// The discontinuities its output adds, less the one it had when it is replaced.
        var addedDiscontinuities: Int
        /// Where its break's fill starts in this playlist (replaced segments): the splice-in.
        var origin: DateTime? = nil
        /// The break it follows when that break's pod was cut (kept segments): the break ends here.
        var resumes: String? = nil
        /// Whether it had its own EXT-X-DISCONTINUITY when first seen. An origin may leave that tag
        /// off once the segment is first in its window (its EXT-X-DISCONTINUITY-SEQUENCE counting it
        /// instead, as `LiveLoop` does): the segment is written as first seen, so its number holds.
        var discontinuity = false
    }

    /// The slate that pads a pod shorter than its break; nil: a short pod leaves the rest of the
    /// break empty.
    public var slate: StitchAd?
    /// The most fill segments (pod and slate) one break writes into this playlist, counted from
    /// its splice-in: a slate of tiny segments repeated over a long break stops there, and the rest
    /// of the break is left empty, as without a slate (reported in
    /// ``StitchedPlaylist/cappedBreaks``).
    public let maximumFillSegments: Int
    /// The default of ``maximumFillSegments``: ten minutes of 0.6 s segments, 20 minutes of 2 s ones.
    public static let defaultMaximumFillSegments = 1_000
    /// The largest EXT-X-MEDIA-SEQUENCE and EXT-X-DISCONTINUITY-SEQUENCE (and aligned Discontinuity
    /// Sequence Number) a window is stitched with, 2^62: far beyond any stream's, and far enough
    /// below 2^63 that adding what a viewer's breaks add cannot overflow. A larger one is refused
    /// (`stitch-primary-unsupported`), never a trap.
    public static let largestSequenceNumber: UInt64 = 1 << 62
    /// The segments the primary segments that left the window became, less one each.
    public private(set) var sequenceShift: Int64 = 0
    /// The discontinuities those segments added.
    public private(set) var discontinuityShift: Int64 = 0
    /// The decisions for the primary segments of the last window, by Media Sequence Number.
    private var decisions: [UInt64: Decision] = [:]
    /// The primary segments the last window kept, with their discontinuity sequence numbers: what
    /// the viewer's other renditions align their first window to.
    public private(set) var timeline = LiveTimeline()
    /// How many primary segments' decisions it keeps (those of the last window): what its memory
    /// grows with.
    public var keptCount: Int { decisions.count }

    /// A stitcher for one viewer; `maximumFillSegments` (at least 1) bounds each break's fill.
    public init(slate: StitchAd? = nil, maximumFillSegments: Int = LiveStitcher.defaultMaximumFillSegments) {
        self.slate = slate
        self.maximumFillSegments = max(1, maximumFillSegments)
    }

    /// Stitches one reload of the primary.
    ///
    /// - Parameters:
    ///   - result: the primary window as parsed; it must be live, with EXT-X-PROGRAM-DATE-TIME.
    ///   - breaks: the breaks with the viewer's pods: every break that covers a segment of the window.
    ///   - sibling: the ``timeline`` of another media playlist of the same viewer (the last one
    ///     stitched), or nil. A window that carries no decision from the one before (the first this
    ///     stitcher sees, or one after the viewer was away longer than a window) takes its
    ///     EXT-X-DISCONTINUITY-SEQUENCE from it: the first of its kept primary segments that is kept
    ///     in `sibling` too gets the same Discontinuity Sequence Number (RFC 8216 §6.2.4), so a
    ///     rendition first asked for after some breaks numbers them as the video does.
    /// - Throws: ``StitchingError``: `stitch-primary-kind` for a playlist with EXT-X-ENDLIST,
    ///   `stitch-primary-unsupported` for one without dates, a delta update, an I-frame or LL-HLS
    ///   playlist, and the ad errors of ``VODStitcher``.
    public mutating func stitch(
        _ result: ParseResult, breaks: [LiveBreak], aligningTo sibling: LiveTimeline? = nil
    ) throws(StitchingError) -> StitchedPlaylist {
        let document = result.document
        guard case .media(let playlist) = result.playlist, !playlist.hasEndList else {
            throw StitchingError(
                .primaryKind, at: document.file,
                "the playlist is not a live media playlist: a VOD is stitched by VODStitcher")
        }
        guard !playlist.iFramesOnly, playlist.skip == nil, playlist.partTarget == nil else {
            throw StitchingError(
                .primaryUnsupported, at: document.file,
                "I-frame playlists, delta updates (EXT-X-SKIP) and LL-HLS windows (EXT-X-PART-INF) are not stitched")
        }
        let segments = playlist.segments
        guard segments.allSatisfy({ $0.date != nil }) else {
            throw StitchingError(
                .primaryUnsupported, at: document.file,
                "live breaks are placed by date: the window needs EXT-X-PROGRAM-DATE-TIME")
        }
        let highest = max(
            playlist.mediaSequence, playlist.discontinuitySequence, segments.last?.mediaSequence ?? 0,
            segments.last?.discontinuitySequence ?? 0)
        guard highest <= Self.largestSequenceNumber else {
            throw StitchingError(
                .primaryUnsupported, at: document.file,
                "EXT-X-MEDIA-SEQUENCE or EXT-X-DISCONTINUITY-SEQUENCE reaches \(highest), beyond the \(Self.largestSequenceNumber) a live window is stitched with"
            )
        }
        let fMP4 = segments.first?.map != nil
        for item in breaks {
            for (position, ad) in item.pod.enumerated() {
                try VODStitcher.check(ad, eventID: item.id, position: position, fMP4: fMP4)
            }
        }
        if let slate { try VODStitcher.check(slate, eventID: "slate", position: 0, fMP4: fMP4) }

        // Fold what left the window.
        let first = segments.first?.mediaSequence ?? playlist.mediaSequence
        for (sequence, decision) in decisions where sequence < first {
            sequenceShift += Int64(decision.fill.count) - (decision.breakID == nil ? 0 : 1)
            discontinuityShift += Int64(decision.addedDiscontinuities)
        }
        decisions = decisions.filter { $0.key >= first }
        let carried = !decisions.isEmpty

        let fills = Dictionary(
            breaks.map { ($0.id, Fill(item: $0, slate: slate, maximum: maximumFillSegments)) },
            uniquingKeysWith: { a, _ in a })
        let shiftBefore = discontinuityShift
        var capped = decide(segments, breaks: breaks, fills: fills)

        // The discontinuity sequence number before the first segment, its own discontinuity counted
        // as first seen; aligned to the sibling's for a window that carries nothing.
        let firstSegment = segments.first
        let before = Int64(
            clamping: firstSegment.map { segment in
                let own = decisions[segment.mediaSequence]?.discontinuity ?? false
                return segment.discontinuitySequence &- (own || segment.discontinuity ? 1 : 0)
            } ?? playlist.discontinuitySequence)
        var kept = keptSegments(segments, fills: fills, from: before + discontinuityShift)
        // The sibling's numbers are trusted only within the bound the windows are held to.
        let largest = Int64(Self.largestSequenceNumber)
        if !carried, let sibling, var offset = kept.offset(to: sibling), offset.magnitude <= Self.largestSequenceNumber
        {
            // The sibling numbers from a window that starts after a break this one still shows (it
            // never counted it): the viewer joined after that break, so it is not stitched here.
            if before + discontinuityShift + offset < 0, let joined = sibling.entries.first?.date {
                decisions = [:]
                discontinuityShift = shiftBefore
                capped = decide(segments, breaks: breaks.filter { $0.end > joined }, fills: fills)
                kept = keptSegments(segments, fills: fills, from: before + discontinuityShift)
                offset = kept.offset(to: sibling).flatMap { $0.magnitude <= Self.largestSequenceNumber ? $0 : nil } ?? 0
            }
            if (0...largest).contains(before + discontinuityShift + offset) {
                discontinuityShift += offset
                kept = keptSegments(segments, fills: fills, from: before + discontinuityShift)
            }
        }
        timeline = kept

        // Write the window.
        let lines = PrimarySegmentLines(document: document, playlist: playlist)
        var writer = StitchWriter(document: document, playlist: playlist, map: lines)
        for index in segments.indices {
            guard let decision = decisions[segments[index].mediaSequence] else { continue }
            guard let id = decision.breakID else {
                writer.resumeAfter = decision.resumes
                // Its own discontinuity as first seen, when the origin has since left it off.
                try writer.writePrimary(
                    index,
                    discontinuity: decision.afterBreak || (decision.discontinuity && !segments[index].discontinuity))
                continue
            }
            guard let fill = fills[id] else {
                throw StitchingError(
                    .missingPod, at: "break \"\(id)\"",
                    "the break covers segments still in the window but was not given: its pod is needed until they leave"
                )
            }
            for run in fill.runs(decision.fill) {
                try writer.writeAd(
                    run.ad, eventID: id, adIndex: run.adIndex, segments: run.segments,
                    discontinuityAtStart: run.startsAsset)
            }
        }
        writer.finish()
        return StitchedPlaylist(
            document: try writer.document(
                file: document.file, mediaSequence: UInt64(clamping: Int64(clamping: first) + sequenceShift),
                discontinuitySequence: UInt64(clamping: before + discontinuityShift)),
            ads: writer.ads, cappedBreaks: capped, resumptions: writer.resumptions)
    }
}

extension LiveStitcher {
    /// The window's kept primary segments with the Discontinuity Sequence Numbers the writer gives
    /// them when the window starts at `base`: each EXT-X-DISCONTINUITY written before a segment
    /// (a kept segment's, each ad's first segment's, an ad's own) counts one.
    private func keptSegments(_ segments: MediaSegments, fills: [String: Fill], from base: Int64) -> LiveTimeline {
        var number = base
        var entries: [LiveTimeline.Entry] = []
        for segment in segments {
            guard let decision = decisions[segment.mediaSequence], let date = segment.date else { continue }
            if let id = decision.breakID {
                number += Int64(fills[id]?.discontinuities(in: decision.fill) ?? 0)
                continue
            }
            if decision.afterBreak || decision.discontinuity || segment.discontinuity { number += 1 }
            entries.append(.init(date: date, duration: segment.duration, discontinuitySequence: number))
        }
        return LiveTimeline(entries: entries)
    }

    /// Decides what each primary segment of the window not decided yet becomes, in order (a
    /// decision depends on its predecessor's); returns the breaks whose fill ``maximumFillSegments``
    /// stopped.
    private mutating func decide(_ segments: MediaSegments, breaks: [LiveBreak], fills: [String: Fill]) -> [String] {
        var capped: [String] = []
        for index in segments.indices where decisions[segments[index].mediaSequence] == nil {
            let segment = segments[index]
            let previous = decisions[segment.mediaSequence &- 1]
            guard let date = segment.date,
                let item = breaks.first(where: { LiveSplice.replaces($0, date: date, duration: segment.duration) }),
                let fill = fills[item.id]
            else {
                let afterBreak = previous?.breakID != nil
                // The pod was cut when the break's last replaced segment brought less than all of it.
                let cut = previous.flatMap { previous in
                    previous.breakID.flatMap { id in fills[id]?.cutsPod(at: previous.fill.upperBound) == true ? id : nil
                    }
                }
                decisions[segment.mediaSequence] = Decision(
                    breakID: nil, fill: 0..<0, afterBreak: afterBreak,
                    addedDiscontinuities: afterBreak && !segment.discontinuity ? 1 : 0, resumes: cut,
                    discontinuity: segment.discontinuity)
                continue
            }
            let reach = Self.reach(
                of: item, fill: fill, date: date, duration: segment.duration, previous: previous)
            let (lower, upper) = (reach.fill.lowerBound, reach.fill.upperBound)
            if reach.capped, !capped.contains(item.id) { capped.append(item.id) }
            let added = fill.discontinuities(in: lower..<upper)
            // A viewer who joins inside the break: the discontinuities of the fill it passed count as
            // if written and gone, so every rendition gives an ad the same discontinuity sequence
            // number whichever of its segments it starts with (RFC 8216 §6.2.4).
            if previous == nil { discontinuityShift += Int64(fill.discontinuities(in: 0..<lower)) }
            let origin = reach.origin
            decisions[segment.mediaSequence] = Decision(
                breakID: item.id, fill: lower..<upper, afterBreak: false,
                addedDiscontinuities: added - (segment.discontinuity ? 1 : 0), origin: origin,
                discontinuity: segment.discontinuity)
        }
        return capped
    }

    /// What the replaced segment that starts at `date` and lasts `duration` brings of `item`'s fill:
    /// where the fill starts in this playlist (the splice-in), its fill positions, and whether
    /// ``maximumFillSegments`` stopped them.
    static func reach(
        of item: LiveBreak, fill: Fill, date: DateTime, duration: MediaTime, previous: Decision?
    ) -> (origin: DateTime, fill: Range<Int>, capped: Bool) {
        // The fill is counted from this rendition's splice-in (profile R28, `LiveSplice`).
        let sameBreak = previous?.breakID == item.id ? previous : nil
        let origin = LiveSplice.origin(of: item, date: date, duration: duration, previousReplaced: sameBreak?.origin)
        let limit = date + duration - origin
        let last = LiveSplice.isLast(in: item, date: date, duration: duration)
        // After the break's previous segment, its fill goes on; a break's first segment starts it;
        // a viewer who joins inside a break gets what ends after the segment's start.
        let lower =
            previous.map { $0.breakID == item.id ? $0.fill.upperBound : 0 }
            ?? fill.count { LiveSplice.passed(end: $0.end, joined: date - origin) }
        let brought = { (span: (start: MediaTime, end: MediaTime)) in
            LiveSplice.brings(start: span.start, end: span.end, limit: limit, duration: item.duration, last: last)
        }
        let upper = max(lower, fill.count(while: brought))
        return (origin, lower..<upper, lower < upper && upper == fill.maximum && fill.beyondMaximum(brought))
    }

    /// A break's fill: its pod's segments in order, then the slate's repeated.
    struct Fill {
        /// A run of consecutive fill segments of one asset.
        struct Run {
            var ad: StitchAd
            /// The pod position; the pod's count for the slate.
            var adIndex: Int
            /// The asset's segments.
            var segments: Range<Int>
            /// Whether the run starts with the asset's first segment.
            var startsAsset: Bool
        }

        /// Each pod segment: its asset, its position, where it starts and ends from the splice-in.
        private var pod: [(asset: Int, segment: Int, start: MediaTime, end: MediaTime)] = []
        private let ads: [StitchAd]
        private let slate: StitchAd?
        private let podLength: MediaTime
        /// Where each slate segment ends from the slate's start.
        private let slateEnds: [MediaTime]

        /// The most fill positions.
        let maximum: Int

        init(item: LiveBreak, slate: StitchAd?, maximum: Int) {
            self.maximum = maximum
            ads = item.pod
            self.slate = slate?.playlist.duration ?? .zero > .zero ? slate : nil
            var end = MediaTime.zero
            for (asset, ad) in item.pod.enumerated() {
                for (position, segment) in ad.playlist.segments.enumerated() {
                    pod.append((asset, position, end, end + segment.duration))
                    end = end + segment.duration
                }
            }
            podLength = end
            var slateEnd = MediaTime.zero
            slateEnds = (self.slate?.playlist.segments ?? []).map { segment in
                slateEnd = slateEnd + segment.duration
                return slateEnd
            }
        }

        /// The asset and segment of fill position `position`, and the repetition for the slate.
        private func locate(_ position: Int) -> (asset: Int, segment: Int)? {
            guard position < maximum else { return nil }
            if position < pod.count { return (pod[position].asset, pod[position].segment) }
            guard let slate else { return nil }
            let count = slate.playlist.segments.count
            return (ads.count, (position - pod.count) % count)
        }

        /// Where fill position `position` starts and ends from the splice-in; nil past the pod when
        /// there is no slate, and from ``maximum`` on.
        func span(_ position: Int) -> (start: MediaTime, end: MediaTime)? {
            guard position < maximum else { return nil }
            return uncappedSpan(position)
        }

        /// Whether the fill would go on past ``maximum`` by `test`: its position there, were there no
        /// bound, satisfies it.
        func beyondMaximum(_ test: (_ span: (start: MediaTime, end: MediaTime)) -> Bool) -> Bool {
            uncappedSpan(maximum).map(test) ?? false
        }

        /// ``span(_:)`` without the bound.
        private func uncappedSpan(_ position: Int) -> (start: MediaTime, end: MediaTime)? {
            if position < pod.count { return (pod[position].start, pod[position].end) }
            guard let slateLength = slateEnds.last else { return nil }
            let rest = position - pod.count
            let repetition = Int64(rest / slateEnds.count)
            let index = rest % slateEnds.count
            let base = podLength + MediaTime(nanoseconds: repetition * slateLength.nanoseconds)
            return (base + (index == 0 ? .zero : slateEnds[index - 1]), base + slateEnds[index])
        }

        /// How many leading fill positions satisfy `test`, a test that once false stays false.
        func count(while test: (_ span: (start: MediaTime, end: MediaTime)) -> Bool) -> Int {
            func holds(_ position: Int) -> Bool { span(position).map(test) ?? false }
            var high = 1
            while holds(high - 1) { high *= 2 }
            var low = high / 2
            while low < high {
                let middle = (low + high) / 2
                if holds(middle) { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// Whether a break whose fill ends before position `end` cut its pod: the pod's last segment
        /// is at or after `end` (never for an empty pod).
        func cutsPod(at end: Int) -> Bool { end < pod.count }

        /// Whether fill position `position` is an asset's first segment.
        func startsAsset(_ position: Int) -> Bool { locate(position)?.segment == 0 }

        /// Whether the asset has EXT-X-DISCONTINUITY before fill position `position` (its own).
        func hasDiscontinuity(_ position: Int) -> Bool {
            guard let location = locate(position), location.segment > 0 else { return false }
            let ad = location.asset < ads.count ? ads[location.asset] : slate
            return ad?.playlist.segments[location.segment].discontinuity ?? false
        }

        /// How many of fill positions `range` have an EXT-X-DISCONTINUITY before them: an asset's
        /// first segment, or one with its own.
        func discontinuities(in range: Range<Int>) -> Int {
            range.count { startsAsset($0) || hasDiscontinuity($0) }
        }

        /// Fill positions `range` as runs of one asset each.
        func runs(_ range: Range<Int>) -> [Run] {
            var runs: [Run] = []
            var position = range.lowerBound
            while position < range.upperBound, let location = locate(position),
                let ad = location.asset < ads.count ? ads[location.asset] : slate
            {
                let segment = location.segment
                let length = min(ad.playlist.segments.count - segment, range.upperBound - position)
                runs.append(
                    Run(
                        ad: ad, adIndex: location.asset, segments: segment..<(segment + length),
                        startsAsset: segment == 0))
                position += length
            }
            return runs
        }
    }
}
