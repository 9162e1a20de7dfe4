import HLSPlaylist

/// A VOD media playlist looped into a sliding-window live media playlist (pure).
///
/// Loop *k* starts at `epoch + k × loopDuration` with EXT-X-PROGRAM-DATE-TIME. When the media is
/// fragmented MP4 of a known timescale in which the loop's length is a whole number of ticks, the
/// timestamps run on across loops: each segment URI of loop *k* asks for its decode times moved by
/// *k* loops (`?shift=TICKS`, served by `DecodeTimeShift`), and there is no discontinuity, as
/// from a real encoder. Otherwise each loop begins with EXT-X-DISCONTINUITY. A segment is available once its end date has passed; the window holds
/// the last `windowSegments` available segments. Every rendition of a presentation uses the same
/// `loopDuration` (its first variant's), so their dates agree; segments that start after it (an
/// audio encoder's last few milliseconds) are left out.
public struct LiveLoop: Sendable {
    struct Segment: Sendable {
        var uri: String
        var duration: MediaTime
        var start: MediaTime
    }

    let segments: [Segment]
    let mapURI: String?
    let version: UInt64
    let targetDuration: UInt64
    /// The length of one loop.
    public let loopDuration: MediaTime
    /// The date at which loop 0 starts.
    public let epoch: DateTime
    /// The number of segments in the window.
    public let windowSegments: Int
    /// The length of one loop in the media's timescale, when timestamps run on across loops.
    let loopTicks: UInt64?

    /// Prepares a loop of `source`, a VOD media playlist.
    ///
    /// - Returns: `nil` when the playlist has no segment that starts within `loopDuration`.
    /// - Parameters:
    ///   - source: the VOD media playlist.
    ///   - loopDuration: the length of one loop.
    ///   - epoch: the date at which loop 0 starts.
    ///   - windowSegments: the number of segments in the window.
    ///   - timescale: the media timescale of fragmented MP4 segments, whose timestamps then run on
    ///     across loops; nil for loops with a discontinuity each.
    public init?(
        source: MediaPlaylist, loopDuration: MediaTime, epoch: DateTime, windowSegments: Int, timescale: UInt32? = nil
    ) {
        guard let first = source.segments.first, loopDuration > .zero else { return nil }
        let limit = loopDuration - MediaTime(nanoseconds: 50_000_000)
        segments = source.segments.compactMap { segment in
            let start = segment.startTime - first.startTime
            return start < limit ? Segment(uri: segment.uri, duration: segment.duration, start: start) : nil
        }
        guard !segments.isEmpty else { return nil }
        mapURI = first.map?.uri
        version = max(source.version ?? 6, 6)
        targetDuration = max(
            source.targetDuration ?? 1, UInt64((segments.map(\.duration).max()!.seconds).rounded()))
        self.loopDuration = loopDuration
        self.epoch = epoch
        self.windowSegments = max(3, windowSegments)
        loopTicks = timescale.flatMap { timescale in
            let (ticks, overflow) = UInt64(loopDuration.nanoseconds).multipliedReportingOverflow(by: UInt64(timescale))
            return !overflow && ticks % 1_000_000_000 == 0 ? ticks / 1_000_000_000 : nil
        }
    }

    /// The window at `now`.
    public struct Window: Sendable {
        /// The media sequence number of the first segment.
        public var mediaSequence: Int64
        /// The date of the first segment.
        public var start: DateTime
        /// The end date of the last segment (the live edge).
        public var end: DateTime
        /// The playlist text.
        public var text: String
    }

    /// The media sequence number of the last available segment at `now`, and the window's first.
    func range(at now: DateTime) -> ClosedRange<Int64> {
        let count = Int64(segments.count)
        let elapsed = now - epoch
        var loop = elapsed.nanoseconds < 0 ? 0 : elapsed.nanoseconds / loopDuration.nanoseconds
        let intoLoop = elapsed - MediaTime(nanoseconds: loop * loopDuration.nanoseconds)
        var index = segments.lastIndex { $0.start + $0.duration <= intoLoop }.map(Int64.init) ?? -1
        if index < 0 {
            loop -= 1
            index = count - 1
        }
        let last = max(Int64(windowSegments) - 1, loop * count + index)
        return (last - Int64(windowSegments) + 1)...last
    }

    /// The time after `now` when the last available segment (``range(at:)``'s upper bound) next
    /// changes, or sooner: until then the window is the one at `now`. Nil before the epoch.
    func nextChange(after now: DateTime) -> DateTime? {
        let elapsed = now - epoch
        guard elapsed.nanoseconds >= 0, let first = segments.first else { return nil }
        let loop = elapsed.nanoseconds / loopDuration.nanoseconds
        let loopStart = epoch + MediaTime(nanoseconds: loop * loopDuration.nanoseconds)
        let intoLoop = elapsed - MediaTime(nanoseconds: loop * loopDuration.nanoseconds)
        // Segment ends grow with their starts: the next one to end is the first ending after now.
        if let next = segments.first(where: { $0.start + $0.duration > intoLoop }) {
            return loopStart + next.start + next.duration
        }
        return loopStart + loopDuration + first.start + first.duration
    }

    func date(ofSequence sequence: Int64) -> (date: DateTime, segment: Segment, loop: Int64) {
        let count = Int64(segments.count)
        let loop = sequence / count
        let segment = segments[Int(sequence % count)]
        return (epoch + MediaTime(nanoseconds: loop * loopDuration.nanoseconds) + segment.start, segment, loop)
    }

    /// The live media playlist at `now`, with the markers of `signals` written in.
    public func window(at now: DateTime, signals: SignalInserter? = nil) -> Window {
        let range = range(at: now)
        let first = date(ofSequence: range.lowerBound)
        var text = "#EXTM3U\n#EXT-X-VERSION:\(version)\n#EXT-X-TARGETDURATION:\(targetDuration)\n"
        text += "#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)\n"
        if loopTicks == nil { text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(first.loop)\n" }
        text += "#EXT-X-INDEPENDENT-SEGMENTS\n"
        var end = first.date
        for sequence in range {
            let (date, segment, loop) = date(ofSequence: sequence)
            let startsLoop = segment.start == .zero
            let isFirst = sequence == range.lowerBound
            if startsLoop, !isFirst, loopTicks == nil { text += "#EXT-X-DISCONTINUITY\n" }
            if let mapURI, isFirst || startsLoop && loopTicks == nil { text += "#EXT-X-MAP:URI=\"\(mapURI)\"\n" }
            if startsLoop || isFirst { text += "#EXT-X-PROGRAM-DATE-TIME:\(date.iso8601)\n" }
            if let signals {
                let previous = sequence > 0 ? self.date(ofSequence: sequence - 1).date : epoch - loopDuration
                for line in signals.lines(beforeSegmentAt: date, previous: previous, first: isFirst, epoch: epoch) {
                    text += line + "\n"
                }
            }
            var uri = segment.uri
            if let loopTicks {
                let (ticks, overflow) = loopTicks.multipliedReportingOverflow(by: UInt64(max(0, loop)))
                if !overflow, ticks > 0 { uri += (uri.contains("?") ? "&" : "?") + "shift=\(ticks)" }
            }
            text += "#EXTINF:\(segment.duration.formatted(fractionDigits: 6)),\n\(uri)\n"
            end = date + segment.duration
        }
        return Window(mediaSequence: range.lowerBound, start: first.date, end: end, text: text)
    }
}
