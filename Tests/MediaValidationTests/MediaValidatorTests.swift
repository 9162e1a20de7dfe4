import HLSInterstitials
import HLSPlaylist
import MediaTiming
import MediaValidation
import Testing

/// The media rules as pure functions: measurements made by hand, no download.
@Suite("MediaValidator, the media rules without I/O")
struct MediaValidatorTests {
    /// A two-segment VOD playlist with EXTINF 2 s and 3 s under TARGETDURATION:3.
    static let text = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:3
        #EXTINF:2,
        seg0.ts
        #EXTINF:3,
        seg1.ts
        #EXT-X-ENDLIST

        """

    /// A video segment whose one track lasts `seconds` from `start`, on the 90 kHz clock.
    static func segment(
        _ index: Int, line: Int, extinf: Double, start: Double, seconds: Double
    )
        -> MeasuredPlaylist.Segment
    {
        let track = TrackTiming(
            id: 256, kind: .video, codec: "avc1",
            decodeStart: TimescaledTime(value: Int64(start * 90_000), timescale: 90_000),
            presentationStart: TimescaledTime(value: Int64(start * 90_000), timescale: 90_000),
            duration: TimescaledTime(value: Int64(seconds * 90_000), timescale: 90_000), byteCount: 1000,
            sampleCount: 50, startsWithKeyFrame: true)
        return MeasuredPlaylist.Segment(
            index: index, uri: "seg\(index).ts", line: line, extinf: extinf, discontinuity: false, byteCount: 1000,
            format: .mpegTS, tracks: [track])
    }

    static func diagnostics(_ segments: [MeasuredPlaylist.Segment]) throws -> [Diagnostic] {
        let parsed = PlaylistParser.parse(text)
        let playlist = try #require(parsed.playlist.media)
        let measured = MeasuredPlaylist(location: "v.m3u8", segmentCount: 2, targetDuration: 3, segments: segments)
        return MediaValidator.validatePlaylist(
            measured, playlist: playlist, document: parsed.document, independentSegments: false,
            options: MediaValidationOptions())
    }

    @Test("segments measured as their EXTINF say give no diagnostic")
    func honest() throws {
        let found = try Self.diagnostics([
            Self.segment(0, line: 5, extinf: 2, start: 10, seconds: 2),
            Self.segment(1, line: 7, extinf: 3, start: 12, seconds: 3),
        ])
        #expect(found.isEmpty)
    }

    @Test("media-extinf at the segment's URI line; media-target-duration when it rounds above the target")
    func extinf() throws {
        let found = try Self.diagnostics([
            Self.segment(0, line: 5, extinf: 2, start: 10, seconds: 2),
            Self.segment(1, line: 7, extinf: 3, start: 12, seconds: 4),
        ])
        #expect(found.map(\.rule) == [Rule.mediaEXTINF.id, Rule.mediaTargetDuration.id])
        #expect(found.allSatisfy { $0.location.line == 7 })
    }

    @Test("a segment that could not be read is media-load, and nothing else is said of it")
    func load() throws {
        var failed = Self.segment(0, line: 5, extinf: 2, start: 10, seconds: 5)
        failed.failure = "HTTP 404"
        let found = try Self.diagnostics([failed, Self.segment(1, line: 7, extinf: 3, start: 12, seconds: 3)])
        #expect(found.map(\.rule) == [Rule.mediaLoad.id])
    }

    @Test("sampling picks N evenly spaced segments, the first and the last always in")
    func sample() {
        #expect(MediaValidationOptions(sample: 3).selectedIndexes(count: 10) == [0, 5, 9])
        #expect(MediaValidationOptions(sample: 1).selectedIndexes(count: 10, includeFirst: true) == [0])
        #expect(MediaValidationOptions(sample: 2).selectedIndexes(count: 2) == [0, 1])
        #expect(MediaValidationOptions().selectedIndexes(count: 3) == [0, 1, 2])
    }

    @Test("the media rules are in the catalog with stable IDs")
    func catalog() {
        let ids = Rule.allRules.map(\.id.rawValue)
        for rule in Rule.mediaRules { #expect(ids.filter { $0 == rule.id.rawValue }.count == 1) }
        #expect(Rule.mediaRules.count == 12)
    }
}
