import HLSPlaylist
import MediaTiming
import NIOConcurrencyHelpers
import PlaybackEngine

/// A renderer that reads the real timestamps of every loaded segment (`MediaTimingParser`) and
/// reports, at every change of source — primary→interstitial, asset→asset, interstitial→primary —
/// the gap or overlap of each track (audio, video) in milliseconds: `hlsi play --media`.
///
/// Segments arrive in the player's buffering order (Apple's, reference §3): a run of one source's
/// segments, then the next source's. For each track a transition from run A to run B measures
///
/// - `endMs`: where the track's last sample of A ends, against where A ends by its playlist (the
///   earliest sample of A plus the EXTINF durations of its segments): negative, the track stops
///   early; positive, it runs on past the boundary;
/// - `startMs`: where the track's first sample of B starts, after B's earliest sample (the point a
///   player aligns to the boundary): positive, the track starts late — the "buffer hole" hls.js
///   reports at an ad whose audio starts after its video;
/// - `gapMs` = `startMs` − `endMs`: positive, a gap (nothing to play) in that track at the
///   transition; negative, an overlap (samples that are dropped or shift the track).
///
/// A transition is reported once the run after it is complete (the next change of source, a
/// seek, or ``finish()``). Times are edited presentation times (`TrackTiming.editedPresentationStart`:
/// the fMP4 edit list applied), what AVFoundation and ffprobe present, as `hlsi validate --media`
/// measures them; ffmpeg writes an audio delay and the AAC priming only into `elst`, so when the edit
/// lists change a start the line also gives `uneditedStartMs`, what players that ignore edit lists
/// (hls.js, MSE) see.
/// fMP4 segments need their initialization segment: this renderer asks the player for them
/// (``wantsInitializationSections``).
public final class MediaTimingRenderer: MediaRenderer {
    /// Gaps and overlaps smaller than this many milliseconds count as aligned in the summary.
    public static let toleranceMilliseconds = 1.0

    /// The first and last instant of a track over a run, in seconds.
    struct Span: Sendable {
        var start: Double
        var end: Double
        /// The start without the edit list.
        var uneditedStart: Double
    }

    /// Consecutive segments of one source.
    struct Run: Sendable {
        /// The earliest unedited start of any track.
        var uneditedStart: Double? { tracks.values.map(\.uneditedStart).min() }
        var source: MediaChunk.Source
        var tracks: [TrackKind: Span] = [:]
        /// The rendition whose EXTINF durations place the run's end (the first one seen).
        var reference: String?
        var playlistDuration = 0.0
        var lastIndex: [String: Int] = [:]

        var start: Double? { tracks.values.map(\.start).min() }
        var end: Double? {
            guard let start else { return nil }
            return playlistDuration > 0 ? start + playlistDuration : tracks.values.map(\.end).max()
        }
    }

    struct State: Sendable {
        var run: Run?
        /// The run before `run`, when a change of source separates them (not a seek).
        var previous: Run?
        /// Initialization segments read, by their bytes (a rendition may change its EXT-X-MAP).
        var initSegments: [[UInt8]: InitSegment] = [:]
        var segments = 0
        var errors = 0
        var flushes = 0
        var transitions = 0
        var gaps = 0
        var overlaps = 0
        var largestGap = 0.0
        var largestOverlap = 0.0
        var events: [MediaTimingEvent] = []
    }

    private let state = NIOLockedValueBox(State())
    private let now: @Sendable () -> (Duration, HLSPlaylist.MediaTime?)
    private let onEvent: @Sendable (MediaTimingEvent) -> Void

    /// Creates a renderer.
    ///
    /// - Parameters:
    ///   - now: the clock time and primary position to stamp each line with.
    ///   - onEvent: called with each line as it is reported (also kept in ``events``).
    public init(
        now: @escaping @Sendable () -> (Duration, HLSPlaylist.MediaTime?) = { (.zero, nil) },
        onEvent: @escaping @Sendable (MediaTimingEvent) -> Void = { _ in }
    ) {
        self.now = now
        self.onEvent = onEvent
    }

    /// True: fMP4 segments are read with their initialization segment.
    public var wantsInitializationSections: Bool { true }

    /// The lines reported so far.
    public var events: [MediaTimingEvent] { state.withLockedValue { $0.events } }

    /// Reads a segment's timing and, when it starts a new source, reports the transition before.
    public func enqueue(_ chunk: MediaChunk) {
        let lines = state.withLockedValue { state in Self.take(chunk, in: &state) }
        report(lines)
    }

    /// Counts a flush (segments loaded ahead stay measured: they are what the player was given).
    public func flush() { state.withLockedValue { $0.flushes += 1 } }

    /// Reports the transition still pending and the summary; returns every line reported.
    @discardableResult
    public func finish() -> [MediaTimingEvent] {
        let lines = state.withLockedValue { state -> [Line] in
            var lines = Self.closeRun(in: &state)
            lines.append(
                Line(
                    kind: .mediaSummary,
                    fields: [
                        ("segments", .integer(state.segments)), ("errors", .integer(state.errors)),
                        ("transitions", .integer(state.transitions)), ("gaps", .integer(state.gaps)),
                        ("overlaps", .integer(state.overlaps)),
                        ("largestGapMs", .number(Self.rounded(state.largestGap))),
                        ("largestOverlapMs", .number(Self.rounded(state.largestOverlap))),
                    ]))
            return lines
        }
        report(lines)
        return events
    }

    /// A line before it is stamped.
    struct Line {
        var kind: MediaTimingEvent.Kind
        var fields: [(String, PlaybackEvent.Value)]
    }

    private func report(_ lines: [Line]) {
        guard !lines.isEmpty else { return }
        let (time, position) = now()
        let events = lines.map { MediaTimingEvent(time: time, kind: $0.kind, primaryTime: position, fields: $0.fields) }
        state.withLockedValue { $0.events += events }
        for event in events { onEvent(event) }
    }

    static func take(_ chunk: MediaChunk, in state: inout State) -> [Line] {
        state.segments += 1
        var initSegment: InitSegment?
        if let bytes = chunk.initializationSection {
            if let cached = state.initSegments[bytes] {
                initSegment = cached
            } else {
                do {
                    initSegment = try MediaTimingParser.parseInitSegment(bytes)
                    state.initSegments[bytes] = initSegment
                } catch {
                    state.errors += 1
                    return [
                        Line(
                            kind: .mediaError,
                            fields: [
                                ("segment", .string(chunk.url)),
                                ("message", .string("initialization segment: \(error)")),
                            ])
                    ]
                }
            }
        }
        let timing: SegmentTiming
        do {
            timing = try MediaTimingParser.parse(chunk.bytes, initSegment: initSegment)
        } catch {
            state.errors += 1
            return [
                Line(kind: .mediaError, fields: [("segment", .string(chunk.url)), ("message", .string("\(error)"))])
            ]
        }
        let source = chunk.source ?? .primary
        let rendition = chunk.rendition ?? ""
        var lines: [Line] = []
        if let run = state.run {
            let seek = chunk.index.map { index in run.lastIndex[rendition].map { $0 + 1 != index } ?? false } ?? false
            if run.source != source || seek {
                lines = closeRun(in: &state)
                state.previous = run.source != source ? run : nil
                state.run = nil
            }
        }
        var run = state.run ?? Run(source: source)
        if run.reference == nil { run.reference = rendition }
        if run.reference == rendition { run.playlistDuration += chunk.playlistDuration?.seconds ?? 0 }
        if let index = chunk.index { run.lastIndex[rendition] = index }
        for track in timing.tracks where track.sampleCount > 0 {
            let start = track.editedPresentationStart.seconds
            let end = start + track.duration.seconds
            let unedited = track.presentationStart.seconds
            if let span = run.tracks[track.kind] {
                run.tracks[track.kind] = Span(
                    start: min(span.start, start), end: max(span.end, end),
                    uneditedStart: min(span.uneditedStart, unedited))
            } else {
                run.tracks[track.kind] = Span(start: start, end: end, uneditedStart: unedited)
            }
        }
        state.run = run
        return lines
    }

    /// Ends the current run: reports the transition from the run before it, if any.
    static func closeRun(in state: inout State) -> [Line] {
        defer { state.previous = nil }
        guard let from = state.previous, let to = state.run, let boundary = from.end, let start = to.start else {
            return []
        }
        let change: String
        switch (from.source, to.source) {
        case (.primary, _): change = "primary→interstitial"
        case (_, .primary): change = "interstitial→primary"
        default: change = "asset→asset"
        }
        var lines: [Line] = []
        state.transitions += 1
        for kind in [TrackKind.video, .audio, .subtitles, .metadata, .other] {
            let before = from.tracks[kind]
            let after = to.tracks[kind]
            guard before != nil || after != nil else { continue }
            var fields: [(String, PlaybackEvent.Value)] = [
                ("transition", .string(change)), ("from", .string(from.source.description)),
                ("to", .string(to.source.description)), ("track", .string(kind.rawValue)),
            ]
            guard let before, let after else {
                fields.append(("missing", .string(before == nil ? "before" : "after")))
                lines.append(Line(kind: .mediaTransition, fields: fields))
                continue
            }
            let endMs = (before.end - boundary) * 1000
            let startMs = (after.start - start) * 1000
            let gapMs = startMs - endMs
            if gapMs >= toleranceMilliseconds {
                state.gaps += 1
                state.largestGap = max(state.largestGap, gapMs)
            } else if gapMs <= -toleranceMilliseconds {
                state.overlaps += 1
                state.largestOverlap = max(state.largestOverlap, -gapMs)
            }
            let result =
                gapMs >= toleranceMilliseconds ? "gap" : gapMs <= -toleranceMilliseconds ? "overlap" : "aligned"
            fields += [
                ("result", .string(result)), ("gapMs", .number(rounded(gapMs))), ("endMs", .number(rounded(endMs))),
                ("startMs", .number(rounded(startMs))),
            ]
            if let uneditedStart = to.uneditedStart {
                let unedited = (after.uneditedStart - uneditedStart) * 1000
                if rounded(unedited) != rounded(startMs) {
                    fields.append(("uneditedStartMs", .number(rounded(unedited))))
                }
            }
            lines.append(Line(kind: .mediaTransition, fields: fields))
        }
        return lines
    }

    /// Milliseconds to a tenth.
    static func rounded(_ milliseconds: Double) -> Double { (milliseconds * 10).rounded() / 10 }
}
