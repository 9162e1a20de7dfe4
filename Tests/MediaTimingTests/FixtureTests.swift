import Foundation
import MediaTiming
import Testing

/// The parser against ffprobe's packets on ffmpeg-made fixtures (Scripts/make-media-fixtures.sh).
@Suite struct FixtureTests {
    /// Start and duration agree with ffprobe within a millisecond.
    static let tolerance = 0.001

    @Test func expectedValuesAreThere() {
        #expect(MediaCase.all.count == 15)
    }

    @Test(arguments: MediaCase.all)
    func tracksMatchFFprobe(_ fixture: MediaCase) throws {
        let timing = try fixture.timing()
        for kind in [TrackKind.video, .audio] {
            let expected = fixture.tracks.filter { $0.kind == kind.rawValue }
            let measured = timing.tracks.filter { $0.kind == kind }
            #expect(measured.count == expected.count, "\(kind) tracks")
            for (want, got) in zip(expected, measured) {
                // ffprobe applies edit lists, and does not know packed audio's ID3 timestamp (the
                // expected values add it).
                #expect(abs(got.editedPresentationStart.seconds - want.start) <= Self.tolerance, "\(kind) start")
                #expect(abs(got.duration.seconds - want.duration) <= Self.tolerance, "\(kind) duration")
                #expect(got.byteCount == want.bytes, "\(kind) bytes")
                #expect(got.sampleCount == want.packets, "\(kind) samples")
                #expect(got.startsWithKeyFrame == want.keyFirst, "\(kind) key frame")
                #expect(want.matches(codec: got.codec), "\(kind) codec \(got.codec ?? "none")")
                if let rate = want.sampleRate { #expect(got.sampleRate == rate, "\(kind) sample rate") }
            }
        }
        #expect(timing.warnings.isEmpty)
        #expect(timing.byteCount == (try Media.bytes(fixture.file)).count)
    }

    @Test(arguments: [
        ("fmp4-muxed/init.mp4", MediaFormat.isoBMFF), ("fmp4-muxed/seg0.m4s", .isoBMFF), ("ts/seg0.ts", .mpegTS),
        ("packed/audio.aac", .packedAudio), ("packed/audio.mp3", .packedAudio),
    ])
    func sniffsTheFormat(_ file: String, _ format: MediaFormat) throws {
        #expect(MediaTimingParser.sniff(try Media.bytes(file)) == format)
    }

    @Test func initSegmentDescribesTracks() throws {
        let initSegment = try MediaTimingParser.parseInitSegment(try Media.bytes("fmp4-muxed/init.mp4"))
        let probed = try #require(MediaCase.all.first { $0.name == "fmp4-muxed-seg0" }).tracks
        #expect(initSegment.isFragmented)
        #expect(initSegment.tracks.map(\.trackID) == [1, 2])
        let video = try #require(initSegment.tracks.first)
        #expect(video.kind == .video)
        #expect(video.handlerType == "vide")
        #expect(probed[0].matches(codec: video.codec))
        #expect(video.timescale == 12800)
        #expect(video.width == 160 && video.height == 90)
        let audio = try #require(initSegment.tracks.last)
        #expect(audio.kind == .audio)
        #expect(probed[1].matches(codec: audio.codec))
        #expect(audio.timescale == 48000)  // ffmpeg's AAC track timescale is the sample rate
        #expect(audio.sampleRate == probed[1].sampleRate)
        #expect(audio.channelCount == probed[1].channels)
        #expect(audio.fragmentDefaults.sampleDescriptionIndex == 1)
    }

    /// The audio of the muxed fixture was delayed by 80 ms with `-itsoffset`; ffmpeg puts the delay in
    /// the edit list, so the media timelines (`tfdt`) start together and only the edited
    /// presentation shows the gap (less the AAC encoder's priming).
    @Test func audioOffsetIsInTheEditList() throws {
        let timing = try MediaCase.all.first { $0.name == "fmp4-muxed-seg0" }.map { try $0.timing() }
        let video = try #require(timing?.track(.video))
        let audio = try #require(timing?.track(.audio))
        #expect(video.decodeStart.value == 0 && audio.decodeStart.value == 0)
        let gap = audio.editedPresentationStart.seconds - video.editedPresentationStart.seconds
        #expect(abs(gap - (0.080 - 1024.0 / 48000)) < 0.001)
    }

    @Test func mediaSegmentCarriesSequenceNumberAndSegmentIndexes() throws {
        let initSegment = try MediaTimingParser.parseInitSegment(try Media.bytes("fmp4-muxed/init.mp4"))
        let first = try MediaTimingParser.parse(try Media.bytes("fmp4-muxed/seg0.m4s"), initSegment: initSegment)
        let second = try MediaTimingParser.parse(try Media.bytes("fmp4-muxed/seg1.m4s"), initSegment: initSegment)
        #expect(first.sequenceNumber == 1 && second.sequenceNumber == 2)
        #expect(first.segmentIndexes.map(\.referenceID) == [1, 2])
        for index in second.segmentIndexes {
            let track = try #require(second.tracks.first { $0.id == index.referenceID })
            #expect(abs(index.duration.seconds - track.duration.seconds) < 0.001)
            #expect(index.references.first?.startsWithSAP == true)
        }
        // The second segment continues where the first ends.
        for (a, b) in zip(first.tracks, second.tracks) {
            #expect(a.decodeStart.value + a.duration.value == b.decodeStart.value)
        }
    }

    @Test func initAndSegmentConcatenatedNeedNoSeparateInit() throws {
        let bytes = try Media.bytes("fmp4-muxed/init.mp4") + Media.bytes("fmp4-muxed/seg1.m4s")
        let timing = try MediaTimingParser.parse(bytes)
        #expect(timing.initSegment?.tracks.count == 2)
        #expect(timing.tracks.map(\.sampleCount) == [50, 97])
    }

    @Test func initSegmentAloneHasNoTimedTracks() throws {
        let timing = try MediaTimingParser.parse(try Media.bytes("fmp4-muxed/init.mp4"))
        #expect(timing.tracks.isEmpty)
        #expect(timing.initSegment?.tracks.count == 2)
    }

    @Test func transportStreamCodecsAndTypes() throws {
        let timing = try MediaTimingParser.parse(try Media.bytes("ts/seg0.ts"))
        #expect(timing.tracks.map(\.streamType) == [0x1B, 0x0F])
        #expect(timing.tracks.map(\.timescaleOfStart) == [90000, 90000])
    }

    @Test func packedAudioTimestampAndCodec() throws {
        let aac = try MediaTimingParser.parse(try Media.bytes("packed/audio.aac"))
        #expect(aac.id3Timestamp == TimescaledTime(value: 900_000, timescale: 90_000))
        #expect(aac.tracks.first?.duration.timescale == 44100)  // the ADTS sample rate
        let mp3 = try MediaTimingParser.parse(try Media.bytes("packed/audio.mp3"))
        #expect(mp3.id3Timestamp == aac.id3Timestamp)
    }

    @Test func segmentTimingRoundTripsThroughJSON() throws {
        let timing = try MediaTimingParser.parse(try Media.bytes("ts/seg1.ts"))
        let data = try JSONEncoder().encode(timing)
        #expect(try JSONDecoder().decode(SegmentTiming.self, from: data) == timing)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let track = try #require((object["tracks"] as? [[String: Any]])?.first)
        let start = try #require(track["presentationStart"] as? [String: Any])
        #expect(start["seconds"] as? Double == 3.48)
    }
}

extension TrackTiming {
    fileprivate var timescaleOfStart: UInt32 { presentationStart.timescale }
}
