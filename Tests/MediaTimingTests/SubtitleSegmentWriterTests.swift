import MediaTiming
import Testing

/// The fMP4 subtitle segments the stitched form lists while an ad plays (profile R28): read back
/// by the repository's own reader, they have the track, decode time, duration and one sync sample
/// that displays nothing.
@Suite("Subtitle segments written (wvtt, stpp)")
struct SubtitleSegmentWriterTests {
    /// An initialization segment with a video track and a subtitle track `id` of `format` at `timescale`.
    static func initSegment(_ format: SubtitleSegmentWriter.Format, id: UInt32, timescale: UInt32) -> InitSegment {
        InitSegment(
            movieTimescale: 1000, isFragmented: true,
            tracks: [
                TrackDescription(
                    trackID: 1, kind: .video, handlerType: "vide", timescale: 90000,
                    duration: TimescaledTime(value: 0, timescale: 90000), sampleEntryType: "avc1"),
                TrackDescription(
                    trackID: id, kind: .subtitles, handlerType: format == .webVTT ? "text" : "subt",
                    timescale: timescale, duration: TimescaledTime(value: 0, timescale: timescale),
                    sampleEntryType: format.rawValue,
                    // trex defaults that a written segment must override: non-sync, 1 tick, 1 byte.
                    fragmentDefaults: TrackFragmentDefaults(sampleDuration: 1, sampleSize: 1, sampleFlags: 0x0101_0000)),
            ])
    }

    static let cases: [(format: SubtitleSegmentWriter.Format, timescale: UInt32, start: UInt64, duration: UInt32)] = [
        (.webVTT, 1000, 0, 2000), (.webVTT, 1000, 4011, 2005), (.ttml, 90000, 0, 180480),
        (.ttml, 10_000_000, 1 << 40, 40_000_000), (.webVTT, 1, UInt64(UInt32.max) + 5, 1),
    ]

    @Test("an empty segment reads back: its track, tfdt, duration, one sync sample, no warning", arguments: cases)
    func emptyReadsBack(
        format: SubtitleSegmentWriter.Format, timescale: UInt32, start: UInt64, duration: UInt32
    ) throws {
        let initSegment = Self.initSegment(format, id: 3, timescale: timescale)
        let track = try SubtitleSegmentWriter.Track(of: initSegment)
        #expect(track == SubtitleSegmentWriter.Track(trackID: 3, timescale: timescale, format: format))
        let bytes = SubtitleSegmentWriter.empty(track, sequenceNumber: 7, start: start, duration: duration)
        #expect(MediaTimingParser.sniff(bytes) == .isoBMFF)
        let timing = try MediaTimingParser.parse(bytes, initSegment: initSegment)
        #expect(timing.warnings.isEmpty, "\(timing.warnings)")
        #expect(timing.sequenceNumber == 7)
        let subtitles = try #require(timing.tracks.first)
        #expect(timing.tracks.count == 1)
        #expect(subtitles.id == 3)
        #expect(subtitles.kind == .subtitles)
        #expect(subtitles.decodeStart == TimescaledTime(value: Int64(start), timescale: timescale))
        #expect(subtitles.duration == TimescaledTime(value: Int64(duration), timescale: timescale))
        #expect(subtitles.sampleCount == 1)
        #expect(subtitles.startsWithKeyFrame == true)
        let sample = SubtitleSegmentWriter.emptySample(format)
        #expect(subtitles.byteCount == sample.count)
        // The segment ends with the mdat that holds the sample.
        let mdat = [0, 0, 0, UInt8(8 + sample.count)] + Array("mdat".utf8) + sample
        #expect(Array(bytes.suffix(mdat.count)) == mdat)
        #expect(Array(bytes.prefix(8).suffix(4)) == Array("styp".utf8))
        // The trun's data offset, from the moof (after the 20-byte styp), is where the sample starts.
        let trun = try #require(bytes.firstRange(of: Array("trun".utf8))).lowerBound
        let offset = bytes[(trun + 12)..<(trun + 16)].reduce(0) { $0 << 8 | Int($1) }
        #expect(20 + offset == bytes.count - sample.count)
    }

    @Test("the empty samples: a vtte box for WebVTT, a tt with an empty body for TTML")
    func emptySamples() {
        #expect(SubtitleSegmentWriter.emptySample(.webVTT) == [0, 0, 0, 8] + Array("vtte".utf8))
        let ttml = String(decoding: SubtitleSegmentWriter.emptySample(.ttml), as: UTF8.self)
        #expect(ttml.contains(#"<tt xmlns="http://www.w3.org/ns/ttml""#))
        #expect(ttml.contains("<body/></tt>"))
        #expect(!ttml.contains("<p"))
    }

    @Test("samples play one after another: a cue and an empty sample")
    func samples() throws {
        let initSegment = Self.initSegment(.webVTT, id: 2, timescale: 1000)
        let cue = Array("cue".utf8)
        let bytes = SubtitleSegmentWriter.segment(
            trackID: 2, sequenceNumber: 1, start: 6000,
            samples: [
                .init(duration: 1500, bytes: cue), .init(duration: 500, bytes: SubtitleSegmentWriter.emptyWebVTTSample),
            ])
        let timing = try MediaTimingParser.parse(bytes, initSegment: initSegment)
        let track = try #require(timing.tracks.first)
        #expect(track.decodeStart.value == 6000)
        #expect(track.duration.value == 2000)
        #expect(track.sampleCount == 2)
        #expect(track.byteCount == cue.count + 8)
        #expect(timing.warnings.isEmpty)
    }

    @Test("the subtitle track of an initialization segment: the first wvtt or stpp; none is an error")
    func track() throws {
        #expect(try SubtitleSegmentWriter.Track(of: Self.initSegment(.ttml, id: 9, timescale: 1000)).trackID == 9)
        let video = InitSegment(
            movieTimescale: 1000, isFragmented: true,
            tracks: [
                TrackDescription(
                    trackID: 1, kind: .video, handlerType: "vide", timescale: 90000,
                    duration: TimescaledTime(value: 0, timescale: 90000), sampleEntryType: "avc1")
            ])
        #expect {
            _ = try SubtitleSegmentWriter.Track(of: video)
        } throws: { error in
            guard let error = error as? MediaTimingError else { return false }
            return error.code == .unknownTrack && error.message.contains("1: avc1")
        }
        #expect(SubtitleSegmentWriter.Format(sampleEntryType: "tx3g") == nil)
    }
}
