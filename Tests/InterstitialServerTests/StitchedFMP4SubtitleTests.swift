import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import MediaTiming
import Testing

@testable import InterstitialServer

/// Subtitle renditions in fMP4 (EXT-X-MAP, WebVTT as `wvtt`) in the stitched form (issue 45,
/// profile R28), on the demo's primary with an English `wvtt` rendition: while the ads play the
/// subtitle playlist lists the server's empty fMP4 subtitle segments after the rendition's own
/// initialization segment, so it has the video's segments, durations and discontinuities.
///
/// ffmpeg 5.1 cannot write WebVTT or TTML into fMP4 ("codec not currently supported in
/// container", and "Fragmentation is not currently supported for TTML in MP4"), so the fixture
/// (Tests/Fixtures/subtitles-fmp4) is what this suite makes (``renditionFiles()``, checked byte for
/// byte): the initialization segment built box by box (``initSegment(trackID:timescale:)``) and 20
/// media segments of 2 s, each a cue and an empty sample, written with ``SubtitleSegmentWriter``.
@Suite("The stitched form's fMP4 subtitles")
struct StitchedFMP4SubtitleTests {
    typealias T = StitchedFormTests
    typealias S = StitchedSubtitleTests

    static let timescale: UInt32 = 1000
    static let trackID: UInt32 = 1

    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func fullBox(_ type: String, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [0] + be32(flags).dropFirst() + payload)
    }

    /// A WebVTT-in-ISO-BMFF initialization segment (ISO/IEC 14496-30 §7): `ftyp`, `moov` with
    /// `mvhd`, one `trak` (`tkhd`; `mdia` with `mdhd`, `hdlr` `text`, `minf` with `nmhd`, `dinf`
    /// and an `stbl` whose `stsd` has one `wvtt` entry with its `vttC`) and `mvex/trex`.
    static func initSegment(trackID: UInt32, timescale: UInt32) -> [UInt8] {
        let zeros = { (count: Int) in [UInt8](repeating: 0, count: count) }
        var matrix: [UInt8] = []
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { matrix += be32(value) }
        // mvhd: times, timescale, duration, rate 1.0, volume 1.0, reserved, matrix, pre_defined, next_track_ID.
        var mvhd: [UInt8] = be32(0) + be32(0) + be32(1000) + be32(0)
        mvhd += be32(0x0001_0000) + [1, 0] + zeros(10)
        mvhd += matrix + zeros(24) + be32(trackID + 1)
        // tkhd (enabled, in movie): times, track_ID, reserved, duration, reserved, layer, group, volume, matrix, size.
        var tkhd: [UInt8] = be32(0) + be32(0) + be32(trackID) + be32(0)
        tkhd += be32(0) + zeros(8) + zeros(8)
        tkhd += matrix + be32(0) + be32(0)
        // mdhd: times, timescale, duration, language "eng" (three 5-bit letters, each minus 0x60).
        let language: UInt16 = (5 << 10) | (14 << 5) | 7
        var mdhd: [UInt8] = be32(0) + be32(0) + be32(timescale) + be32(0)
        mdhd += [UInt8(language >> 8), UInt8(language & 0xFF), 0, 0]
        var hdlr: [UInt8] = be32(0) + Array("text".utf8)
        hdlr += zeros(12) + Array("Subtitles\0".utf8)
        let dinf = box("dinf", fullBox("dref", be32(1) + fullBox("url ", flags: 1, [])))
        // wvtt: reserved (6), data_reference_index 1, then its WebVTT configuration.
        let wvtt = box("wvtt", zeros(6) + [0, 1] + box("vttC", Array("WEBVTT".utf8)))
        var tables: [UInt8] = fullBox("stsd", be32(1) + wvtt) + fullBox("stts", be32(0))
        tables += fullBox("stsc", be32(0)) + fullBox("stsz", be32(0) + be32(0)) + fullBox("stco", be32(0))
        var minf: [UInt8] = fullBox("nmhd", []) + dinf
        minf += box("stbl", tables)
        var mdia: [UInt8] = fullBox("mdhd", mdhd) + fullBox("hdlr", hdlr)
        mdia += box("minf", minf)
        let trak = box("trak", fullBox("tkhd", flags: 3, tkhd) + box("mdia", mdia))
        var trex: [UInt8] = be32(trackID) + be32(1)
        trex += be32(0) + be32(0) + be32(0)
        var ftyp: [UInt8] = Array("iso6".utf8) + be32(0)
        ftyp += Array("iso6".utf8) + Array("mp41".utf8)
        var moov: [UInt8] = fullBox("mvhd", mvhd) + trak
        moov += box("mvex", fullBox("trex", trex))
        return box("ftyp", ftyp) + box("moov", moov)
    }

    /// The files of the `wvtt` rendition, by name: ``initSegment(trackID:timescale:)``, 20 media
    /// segments of 2 s (each a cue and an empty sample) written by ``SubtitleSegmentWriter``, and
    /// their playlist. Tests/Fixtures/subtitles-fmp4/subs-en holds exactly these.
    static func renditionFiles() -> [String: [UInt8]] {
        var files = ["init.mp4": initSegment(trackID: trackID, timescale: timescale)]
        var playlist = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        playlist += "#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MAP:URI=\"init.mp4\"\n"
        for index in 0..<20 {
            let name = "seg" + String(repeating: "0", count: 3 - String(index).count) + "\(index).m4s"
            let cue = box("vttc", box("payl", Array("Subtitle \(index)".utf8)))
            files[name] = SubtitleSegmentWriter.segment(
                trackID: trackID, sequenceNumber: UInt32(index + 1), start: UInt64(index) * 2000,
                samples: [
                    .init(duration: 1000, bytes: cue),
                    .init(duration: 1000, bytes: SubtitleSegmentWriter.emptyWebVTTSample),
                ])
            playlist += "#EXTINF:2.000000,\n\(name)\n"
        }
        files["main.m3u8"] = Array((playlist + "#EXT-X-ENDLIST\n").utf8)
        return files
    }

    /// Tests/Fixtures/subtitles-fmp4/subs-en.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/subtitles-fmp4/subs-en")

    /// The demo configuration with its primary (VOD and live) given the English `wvtt` rendition of
    /// Tests/Fixtures/subtitles-fmp4 in `subs-en/` (the WebVTT fixture's multivariant playlist).
    static func configuration() throws -> (ServerConfiguration, directory: URL) {
        let (configuration, directory) = try S.configuration()
        let subtitles = directory.appendingPathComponent("subs-en")
        try FileManager.default.removeItem(at: subtitles)
        try FileManager.default.copyItem(at: fixture, to: subtitles)
        return (configuration, directory)
    }

    @Test("the fixture is what the init segment builder and SubtitleSegmentWriter write")
    func fixtureIsWritten() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixture.path).sorted()
        let files = Self.renditionFiles()
        #expect(names == files.keys.sorted())
        for (name, bytes) in files {
            let stored = [UInt8](try Data(contentsOf: Self.fixture.appendingPathComponent(name)))
            #expect(stored == bytes, "\(name)")
        }
    }

    /// The bytes at `uri` (a path, or an absolute URL on the server).
    static func bytes(_ client: some TestClientProtocol, _ uri: String) async throws -> [UInt8] {
        let response = try await client.get(T.path(of: uri))
        #expect(response.status == .ok, "GET \(uri): \(String(buffer: response.body))")
        return Array(response.body.readableBytesView)
    }

    @Test("VOD: the ads are empty wvtt segments after the rendition's map; every segment reads back continuous")
    func vod() async throws {
        let (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Harness.withServer(configuration) { client in
            let query = "?ads=stitched&session=fmp4-subtitles"
            let video = try S.media(try await client.text("/demo/vod/video/main.m3u8" + query))
            let text = try await client.text("/demo/vod/subs-en/main.m3u8" + query)
            #expect(T.problems(text).isEmpty, "\(T.problems(text))\n\(text)")
            #expect(PlaylistParser.parse(text).document.write() == Array(text.utf8), "round trip")
            let subtitles = try S.media(text)
            #expect(S.shape(subtitles) == S.shape(video), "\(text)")
            #expect(subtitles.duration == video.duration)
            let ads = subtitles.segments.filter { $0.uri.contains(StitchedBeacons.prefix) }
            #expect(ads.count >= 4, "every break's ads: \(text)")
            #expect(ads.allSatisfy { T.path(of: $0.uri).hasPrefix(StitchedEmptySegment.path + "?") }, "\(text)")
            // The ads play after the rendition's own initialization segment; its segments restate it after.
            #expect(ads.allSatisfy { $0.map.map { T.path(of: $0.uri) } == "/demo/vod/subs-en/init.mp4" }, "\(text)")
            #expect(
                subtitles.segments.contains {
                    $0.uri.hasSuffix("seg019.m4s") && $0.map?.uri.hasSuffix("init.mp4") == true
                },
                "\(text)")

            // Every segment, read back through the server with the repository's reader.
            let initSegment = try MediaTimingParser.parseInitSegment(
                try await Self.bytes(client, "/demo/vod/subs-en/init.mp4"))
            var measured: [MeasuredPlaylist.Segment] = []
            var previousEnd: Int64?
            for (index, segment) in subtitles.segments.enumerated() {
                let uri = URIReference.resolve(segment.uri, against: "http://localhost/demo/vod/subs-en/main.m3u8")
                let response = try await client.get(T.path(of: uri))
                #expect(response.status == .ok, "\(uri)")
                if segment.uri.contains(StitchedBeacons.prefix) {
                    #expect(response.headers[.contentType] == "video/iso.segment")
                }
                let timing = try MediaTimingParser.parse(
                    Array(response.body.readableBytesView), initSegment: initSegment)
                #expect(timing.warnings.isEmpty, "\(uri): \(timing.warnings)")
                let track = try #require(timing.tracks.first)
                #expect(track.kind == .subtitles && track.id == Self.trackID)
                // Within a discontinuity, each segment starts where the one before it ends.
                if let previousEnd, !segment.discontinuity {
                    #expect(track.decodeStart.value == previousEnd, "\(uri) in\n\(text)")
                }
                previousEnd = track.decodeStart.value + track.duration.value
                measured.append(
                    MeasuredPlaylist.Segment(
                        index: index, uri: segment.uri, line: segment.line, extinf: segment.duration.seconds,
                        discontinuity: segment.discontinuity, byteCount: timing.byteCount, format: timing.format,
                        tracks: timing.tracks))
            }
            // The media rules `hlsi validate --media` runs on each playlist.
            let parsed = PlaylistParser.parse(text, options: ParseOptions(file: "subs-en/main.m3u8"))
            let diagnostics = MediaValidator.validatePlaylist(
                MeasuredPlaylist(
                    location: "subs-en/main.m3u8", segmentCount: subtitles.segments.count,
                    targetDuration: subtitles.targetDuration.map { Int($0) }, segments: measured),
                playlist: subtitles, document: parsed.document, independentSegments: false, options: .init())
            #expect(diagnostics.filter { $0.severity != .note }.isEmpty, "\(diagnostics)")
        }
    }

    @Test("an empty segment's query is checked: missing, unknown, repeated or out of range is a 400")
    func badQueries() async throws {
        try await Harness.withServer(try Harness.demo()) { client in
            let path = StitchedEmptySegment.path
            let good = "format=stpp&track=2&timescale=90000&start=180000&duration=180000&sequence=3"
            let response = try await client.get(path + "?" + good)
            #expect(response.status == .ok)
            let timing = try MediaTimingParser.parse(
                Array(response.body.readableBytesView),
                initSegment: InitSegment(
                    movieTimescale: 1000, isFragmented: true,
                    tracks: [
                        TrackDescription(
                            trackID: 2, kind: .subtitles, handlerType: "subt", timescale: 90000,
                            duration: TimescaledTime(value: 0, timescale: 90000), sampleEntryType: "stpp")
                    ]))
            #expect(timing.tracks.first?.decodeStart.value == 180000)
            #expect(timing.tracks.first?.duration.value == 180000)
            #expect(timing.sequenceNumber == 3)
            for (query, parameter) in [
                ("format=tx3g&track=2&timescale=90000&start=0&duration=1&sequence=1", "format"),
                ("format=wvtt&timescale=90000&start=0&duration=1&sequence=1", "track"),
                ("format=wvtt&track=0&timescale=90000&start=0&duration=1&sequence=1", "track"),
                ("format=wvtt&track=1&timescale=1000&start=-1&duration=1&sequence=1", "start"),
                ("format=wvtt&track=1&timescale=1000&start=0&duration=4294967296&sequence=1", "duration"),
                ("format=wvtt&track=1&timescale=1&start=0&duration=3601&sequence=1", "duration"),
                ("format=wvtt&track=1&timescale=1000&start=0&duration=1&sequence=1&x=1", "x"),
                ("format=wvtt&track=1&track=1&timescale=1000&start=0&duration=1&sequence=1", "track"),
                ("format=wvtt&track=1&timescale=1000&start=0&duration=1&sequence=99999999999999999999999", "sequence"),
            ] {
                let refused = try await client.get(path + "?" + query)
                #expect(refused.status == .badRequest, "\(query)")
                let body = String(buffer: refused.body)
                #expect(
                    body.contains("\"path\":\"\(parameter)\"") || body.contains("\"path\": \"\(parameter)\""),
                    "\(query): \(body)")
            }
        }
    }

    @Test("live: through a break, the fMP4 subtitle window has the video's sequence numbers and durations")
    func live() async throws {
        let (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock(DateTime(iso8601: "2026-03-01T12:00:00Z")!)
        try await Harness.withServer(configuration, clock: clock) { client in
            let query = "?ads=stitched&session=live-fmp4-subtitles"
            var reloadsInBreak = 0
            for reload in 0..<30 {
                let video = try S.media(try await client.text("/demo/live/video/main.m3u8" + query))
                let text = try await client.text("/demo/live/subs-en/main.m3u8" + query)
                #expect(T.problems(text).isEmpty, "reload \(reload): \(T.problems(text))\n\(text)")
                let subtitles = try S.media(text)
                #expect(subtitles.mediaSequence == video.mediaSequence, "reload \(reload)")
                #expect(S.timing(subtitles) == S.timing(video), "reload \(reload)\n\(text)")
                #expect(subtitles.segments.allSatisfy { $0.map != nil }, "reload \(reload)\n\(text)")
                let ads = subtitles.segments.filter { $0.uri.contains(StitchedEmptySegment.path) }
                if !ads.isEmpty {
                    reloadsInBreak += 1
                    let response = try await client.get(T.path(of: ads[0].uri))
                    #expect(response.status == .ok, "reload \(reload): \(ads[0].uri)")
                }
                clock.advance(2)
            }
            #expect(reloadsInBreak >= 5, "the reloads go through a break")
        }
    }
}
