import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Synchronization
import Testing

/// `StreamValidator` with `media` options over real HTTP: the fixture media of Tests/Fixtures/media
/// (made by Scripts/make-media-fixtures.sh) under playlists that lie about them.
@Suite("StreamValidator reading the media")
struct StreamValidatorMediaTests {
    static let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/media")

    /// A media playlist over fixture segments: `(EXTINF, path under /media/)`, `nil` path for a
    /// discontinuity.
    static func playlist(
        target: Int = 2, header: String = "", map: String? = nil, dateRanges: [String] = [],
        _ segments: [(Double, String?)]
    ) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:\(target)\n#EXT-X-PLAYLIST-TYPE:VOD\n" + header
        if !dateRanges.isEmpty { text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n" }
        for range in dateRanges { text += "#EXT-X-DATERANGE:\(range)\n" }
        if let map { text += "#EXT-X-MAP:URI=\"/media/\(map)\"\n" }
        for (duration, path) in segments {
            guard let path else {
                text += "#EXT-X-DISCONTINUITY\n"
                continue
            }
            text += "#EXTINF:\(String(format: "%.3f", duration)),\n/media/\(path)\n"
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    static func interstitial(_ id: String, _ asset: String) -> String {
        "ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:02.000Z\",X-ASSET-URI=\"BASE\(asset)?_HLS_interstitial_id=\(id)\""
    }

    static let ts = [(2.0, "ts/seg0.ts"), (2.0, "ts/seg1.ts")]

    /// The playlists by path; `BASE` becomes the server's URL.
    static let playlists: [String: String] = [
        "/clean.m3u8": playlist(header: "#EXT-X-INDEPENDENT-SEGMENTS\n", ts),
        "/extinf.m3u8": playlist(target: 3, [(3.0, "ts/seg0.ts"), (2.0, "ts/seg1.ts")]),
        "/target.m3u8": playlist(target: 1, [(1.0, "ts/seg0.ts")]),
        "/independent.m3u8": playlist(header: "#EXT-X-INDEPENDENT-SEGMENTS\n", [(1.08, "ts-cut/seg.ts")]),
        "/dependent.m3u8": playlist([(1.08, "ts-cut/seg.ts")]),
        "/overlap.m3u8": playlist([(2.0, "ts/seg0.ts"), (2.0, "ts/seg0.ts")]),
        "/discontinuity.m3u8": playlist([(2.0, "ts/seg0.ts"), (0, nil), (2.0, "ts/seg0.ts")]),
        "/discontinuity-ok.m3u8": playlist([(2.0, "ts/seg0.ts"), (2.0, "ts/seg1.ts"), (0, nil), (2.0, "ts/seg0.ts")]),
        "/asset-end.m3u8": playlist(
            dateRanges: [interstitial("gap", "/ad-gap.m3u8")], [(2.0, "ts/seg1.ts"), (2.0, "ts/seg1.ts")]),
        "/ad-gap.m3u8": playlist([(2.0, "ts/seg0.ts")]),
        "/offset.m3u8": playlist(
            map: "fmp4-muxed/init.mp4", [(2.0, "fmp4-muxed/seg0.m4s"), (2.0, "fmp4-muxed/seg1.m4s")]),
        "/missing.m3u8": playlist([(2.0, "ts/seg0.ts"), (2.0, "ts/nothing.ts")]),
        "/long.m3u8": playlist(
            Array(repeating: (2.0, "ts/seg0.ts"), count: 2) + [(0, nil)]
                + Array(repeating: (2.0, "ts/seg1.ts"), count: 3)),
        "/ranges.m3u8": """
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-VERSION:4
        #EXTINF:2.0,
        #EXT-X-BYTERANGE:28764@0
        /media/ts/seg0.ts
        #EXTINF:2.0,
        #EXT-X-BYTERANGE:188
        /media/ts/seg0.ts
        #EXT-X-ENDLIST

        """,
        "/master.m3u8": """
        #EXTM3U
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-STREAM-INF:BANDWIDTH=400000,AVERAGE-BANDWIDTH=200000,CODECS="avc1.4d400b,mp4a.40.2"
        clean.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=60000,AVERAGE-BANDWIDTH=50000,CODECS="avc1.4d400b,mp4a.40.2"
        extinf.m3u8

        """,
        "/separate.m3u8": """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",LANGUAGE="en",DEFAULT=YES,URI="audio.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=70000,CODECS="avc1.4d400b,mp4a.40.2",AUDIO="a"
        video.m3u8

        """,
        "/video.m3u8": playlist(map: "fmp4-separate/video/init.mp4", [(2.0, "fmp4-separate/video/seg0.m4s")]),
        "/audio.m3u8": playlist(map: "fmp4-separate/audio/init.mp4", [(2.0, "fmp4-separate/audio/seg0.m4s")]),
        "/with-ads.m3u8": playlist(
            dateRanges: [
                interstitial("hevc", "/ad-hevc.m3u8"), interstitial("cut", "/ad-cut.m3u8"),
                interstitial("late-audio", "/ad-offset.m3u8"), interstitial("same", "/ad-same.m3u8"),
            ], ts),
        "/ad-hevc.m3u8": playlist(map: "fmp4-hevc/init.mp4", [(2.0, "fmp4-hevc/seg0.m4s")]),
        "/ad-cut.m3u8": playlist([(1.08, "ts-cut/seg.ts")]),
        "/ad-offset.m3u8": playlist(map: "fmp4-muxed/init.mp4", [(2.0, "fmp4-muxed/seg0.m4s")]),
        "/ad-same.m3u8": playlist([(2.0, "ts/seg0.ts")]),
    ]

    final class Base: Sendable {
        let value = Mutex("")
        let requests = Mutex<[String]>([])
    }

    func withValidator(_ body: (TestHTTPServer, StreamValidator, Base) async throws -> Void) async throws {
        let base = Base()
        let routes: TestHTTPServer.Routes = { path in
            let path = String(path.split(separator: "?")[0])
            base.requests.withLock { $0.append(path) }
            if path.hasPrefix("/media/"),
                let data = FileManager.default.contents(
                    atPath: Self.media.appendingPathComponent(String(path.dropFirst("/media/".count))).path)
            {
                return .init(headers: [("Content-Type", "application/octet-stream")], body: Array(data))
            }
            guard let text = Self.playlists[path] else { return .init(status: .notFound, body: Array("nope".utf8)) }
            return .init(body: Array(text.replacingOccurrences(of: "BASE", with: base.value.withLock { $0 }).utf8))
        }
        try await TestHTTPServer.withServerAndLoader(
            routes: routes, timeout: .seconds(600), started: { server in base.value.withLock { $0 = server.url("") } }
        ) { server, loader in
            try await body(server, StreamValidator(loader: loader, sleep: { _ in }), base)
        }
    }

    /// The diagnostics of the media rules only.
    static func mediaDiagnostics(_ report: StreamValidator.Report) -> [Diagnostic] {
        let ids = Set(Rule.mediaRules.map(\.id))
        return report.diagnostics.filter { ids.contains($0.rule) }
    }

    func validate(
        _ path: String, _ options: MediaValidationOptions = .init()
    ) async throws -> (
        StreamValidator.Report, [Diagnostic], String
    ) {
        var result: (StreamValidator.Report, [Diagnostic], String)?
        try await withValidator { server, validator, _ in
            let report = try await validator.validate(server.url(path), recursive: false, media: options)
            result = (report, Self.mediaDiagnostics(report), server.url(""))
        }
        return try #require(result)
    }

    @Test("honest TS segments under INDEPENDENT-SEGMENTS give no media diagnostic, and are measured")
    func clean() async throws {
        let (report, diagnostics, _) = try await validate("/clean.m3u8")
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
        let playlist = try #require(report.media?.playlists.first)
        #expect(playlist.segments.map(\.index) == [0, 1])
        #expect(playlist.segments.map(\.byteCount) == [28764, 32524])
        #expect(playlist.codecs == ["avc1.4d400b", "mp4a.40.2"])
        #expect(abs((playlist.segments[0].measuredDuration ?? 0) - 2.0) < 0.001)
        // (28764 + 32524) bytes × 8 over 4 s.
        #expect(playlist.averageBitrate == 122_576)
        #expect(report.media?.bytesDownloaded == 28764 + 32524)
        #expect(report.checked.filter { $0.kind == .segment }.count == 2)
    }

    @Test("media-extinf: an EXTINF of 3 s over a 2 s segment, at the segment's URI line")
    func extinf() async throws {
        let (_, diagnostics, base) = try await validate("/extinf.m3u8")
        #expect(diagnostics.map(\.rule.rawValue) == ["media-extinf"], "\(diagnostics.map(\.description))")
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.location == SourceLocation(file: base + "/extinf.m3u8", line: 6, column: 1))
        #expect(diagnostic.message.contains("EXTINF is 3.000 s but its video lasts 2.000 s (-1000.0 ms"))
        #expect(diagnostic.severity == .warning)
    }

    @Test("media-target-duration: a 2 s segment whose EXTINF claims 1 s under TARGETDURATION:1")
    func targetDuration() async throws {
        let (_, diagnostics, _) = try await validate("/target.m3u8")
        #expect(
            Set(diagnostics.map(\.rule.rawValue)) == ["media-extinf", "media-target-duration"],
            "\(diagnostics.map(\.description))")
        #expect(diagnostics.first { $0.rule == "media-target-duration" }?.severity == .error)
    }

    @Test("media-key-frame: INDEPENDENT-SEGMENTS over a TS cut mid-GOP; none without the tag")
    func keyFrame() async throws {
        // The cut also starts its audio 99 ms before its video: a wider start tolerance keeps that out.
        let options = MediaValidationOptions(startTolerance: 0.2)
        let (_, diagnostics, _) = try await validate("/independent.m3u8", options)
        #expect(diagnostics.map(\.rule.rawValue) == ["media-key-frame"], "\(diagnostics.map(\.description))")
        #expect(diagnostics.first?.location.line == 7)
        #expect(diagnostics.first?.message.contains("EXT-X-INDEPENDENT-SEGMENTS") == true)
        let (_, without, _) = try await validate("/dependent.m3u8", options)
        #expect(without.isEmpty, "\(without.map(\.description))")
    }

    @Test("media-continuity: the same segment twice overlaps; a discontinuity between them excuses it")
    func continuity() async throws {
        let (_, diagnostics, _) = try await validate("/overlap.m3u8")
        #expect(
            diagnostics.map(\.rule.rawValue) == ["media-continuity", "media-continuity"],
            "\(diagnostics.map(\.description))")
        #expect(diagnostics.allSatisfy { $0.location.line == 8 && $0.message.contains("overlap") })
        #expect(diagnostics.contains { $0.message.contains("video starts at 1.480 s, 2000.0 ms before") })
        // The discontinuity excuses the overlap; what it does not excuse is where the segment before it
        // ends: seg0.ts's audio ends at 3.400 s, its video at 3.480 s.
        let (_, excused, _) = try await validate("/discontinuity.m3u8")
        #expect(excused.map(\.rule.rawValue) == ["media-discontinuity-gap"], "\(excused.map(\.description))")
    }

    @Test("media-discontinuity-gap: audio ending 80 ms before video before a discontinuity and at an asset's end")
    func discontinuityGap() async throws {
        let (_, diagnostics, _) = try await validate("/discontinuity.m3u8")
        let gap = try #require(diagnostics.first)
        #expect(gap.location.line == 6)
        #expect(
            gap.message.contains("before the EXT-X-DISCONTINUITY: audio ends 80.0 ms before video"), "\(gap.message)")
        #expect(gap.message.contains("video at 3.480 s, audio at 3.400 s"), "\(gap.message)")
        // seg1.ts ends its audio 10.7 ms after its video: within 40 ms, nothing to say.
        let (_, within, _) = try await validate("/discontinuity-ok.m3u8")
        #expect(within.isEmpty, "\(within.map(\.description))")
        // The same tolerance over an interstitial asset's last segment, and none without a discontinuity.
        let (_, asset, _) = try await validate("/asset-end.m3u8")
        let end = asset.filter { $0.rule.rawValue == "media-discontinuity-gap" }
        #expect(end.count == 1, "\(asset.map(\.description))")
        #expect(end.first?.message.contains("interstitial \"gap\": segment") == true)
        #expect(end.first?.message.contains("at the asset's end, where playback returns to the primary") == true)
        let (_, plain, _) = try await validate("/clean.m3u8")
        #expect(plain.isEmpty, "\(plain.map(\.description))")
    }

    @Test("media-av-offset: fMP4 whose audio starts late (-itsoffset 0.08) at the playlist's start only")
    func avOffset() async throws {
        let (report, diagnostics, _) = try await validate("/offset.m3u8")
        #expect(diagnostics.map(\.rule.rawValue) == ["media-av-offset"], "\(diagnostics.map(\.description))")
        #expect(diagnostics.first?.location.line == 7)
        #expect(diagnostics.first?.message.contains("audio starts 58.0 ms after video") == true)
        #expect(report.checked.map(\.kind).filter { $0 == .initSegment }.count == 1)
    }

    @Test("media-load: a segment that is not there, at its URI line; the other is still measured")
    func load() async throws {
        let (report, diagnostics, _) = try await validate("/missing.m3u8")
        #expect(diagnostics.map(\.rule.rawValue) == ["media-load"], "\(diagnostics.map(\.description))")
        #expect(diagnostics.first?.location.line == 8)
        #expect(diagnostics.first?.message.contains("HTTP 404") == true)
        #expect(report.media?.playlists.first?.measured.count == 1)
        #expect(report.checked.last?.errors == 1)
    }

    @Test("byte ranges: one download sliced; a range past the resource's end is media-load")
    func byteRanges() async throws {
        var requests: [String] = []
        var result: (StreamValidator.Report, [Diagnostic])?
        try await withValidator { server, validator, base in
            let report = try await validator.validate(server.url("/ranges.m3u8"), recursive: false, media: .init())
            result = (report, Self.mediaDiagnostics(report))
            requests = base.requests.withLock { $0 }
        }
        let (report, diagnostics) = try #require(result)
        #expect(requests.filter { $0 == "/media/ts/seg0.ts" }.count == 1)
        #expect(diagnostics.map(\.rule.rawValue) == ["media-load"], "\(diagnostics.map(\.description))")
        #expect(diagnostics.first?.location.line == 9)
        #expect(diagnostics.first?.message.contains("byte range 28764-28951 is outside the 28764 bytes") == true)
        #expect(report.media?.playlists.first?.segments.first?.byteCount == 28764)
    }

    @Test("media-bandwidth and media-average-bandwidth at the STREAM-INF of a variant that understates them")
    func bandwidth() async throws {
        let (report, diagnostics, base) = try await validate("/master.m3u8")
        let bandwidth = diagnostics.filter { $0.rule == "media-bandwidth" || $0.rule == "media-average-bandwidth" }
        #expect(
            bandwidth.map(\.rule.rawValue) == ["media-bandwidth", "media-average-bandwidth"],
            "\(diagnostics.map(\.description))")
        #expect(bandwidth.allSatisfy { $0.location.file == base + "/master.m3u8" && $0.location.line == 5 })
        #expect(bandwidth.first?.location.column == 19)
        let variants = try #require(report.media?.variants)
        #expect(variants.map(\.bandwidth) == [400_000, 60_000])
        // The peak over 0.5–1.5 × the target duration: seg1 alone (32524 bytes over 2 s).
        #expect(variants.first?.measuredPeak == 130_096)
    }

    @Test("a variant's peak adds its audio rendition's: separate fMP4 renditions")
    func separateRenditions() async throws {
        let (report, diagnostics, _) = try await validate("/separate.m3u8")
        let variant = try #require(report.media?.variants.first)
        let playlists = try #require(report.media?.playlists)
        #expect(playlists.count == 2)
        // 15024 bytes of video and 6466 of audio over 2 s: 85960 bit/s, over 70000 × 1.1 only with the audio.
        #expect(playlists.map(\.peakBitrate) == [60_096, 25_864])
        #expect(variant.measuredPeak == 85_960)
        #expect(
            diagnostics.map(\.rule.rawValue).sorted() == ["media-av-offset", "media-bandwidth"],
            "\(diagnostics.map(\.description))")
        // Across renditions: the audio playlist's first segment starts 58 ms after the video's.
        let offset = try #require(diagnostics.first { $0.rule == "media-av-offset" })
        #expect(offset.location.file.hasSuffix("/audio.m3u8"))
        #expect(offset.location.line == 7)
        #expect(offset.message.contains("audio starts 58.0 ms after video"), "\(offset.message)")
    }

    @Test("interstitial assets: codecs and container, first key frame and audio offset, measured")
    func interstitials() async throws {
        let (report, diagnostics, base) = try await validate("/with-ads.m3u8")
        let byRule = Dictionary(grouping: diagnostics, by: \.rule.rawValue)
        #expect(
            Set(byRule.keys) == [
                "interstitial-media-codecs", "interstitial-media-key-frame", "interstitial-media-offset",
                "media-discontinuity-gap",
            ],
            "\(diagnostics.map(\.description))")
        let codecs = try #require(byRule["interstitial-media-codecs"])
        // The HEVC + E-AC-3 fMP4 asset differs in container and both codecs; the fMP4 AVC one in container.
        #expect(codecs.count == 2)
        let hevc = try #require(codecs.first { $0.message.contains("\"hevc\"") })
        #expect(hevc.message.contains("container iso-bmff (the primary's: mpeg-ts)"))
        #expect(hevc.message.contains("video codec hvc1 (the primary's: avc1)"))
        #expect(hevc.message.contains("audio codec ec-3 (the primary's: mp4a.40.2)"))
        #expect(hevc.location.file == base + "/with-ads.m3u8")
        #expect(
            byRule["interstitial-media-key-frame"]?.map(\.location.file) == [
                base + "/ad-cut.m3u8?_HLS_interstitial_id=cut"
            ])
        // Every asset but the HEVC one ends its audio early, where playback returns to the primary:
        // 64.7 ms (fMP4), 176 ms (the TS cut mid-GOP), 80 ms (seg0.ts).
        #expect(
            byRule["media-discontinuity-gap"]?.map(\.message).map { $0.prefix { $0 != ":" } }.sorted() == [
                "interstitial \"cut\"", "interstitial \"late-audio\"", "interstitial \"same\"",
            ])
        // The fMP4 asset's audio starts 58 ms late; the TS cut mid-GOP starts its audio 99 ms early.
        #expect(
            byRule["interstitial-media-offset"]?.map(\.location.file).sorted() == [
                base + "/ad-cut.m3u8?_HLS_interstitial_id=cut",
                base + "/ad-offset.m3u8?_HLS_interstitial_id=late-audio",
            ])
        #expect(report.media?.playlists.map(\.interstitial) == [nil, "hevc", "cut", "late-audio", "same"])
    }

    @Test("--sample reads N evenly spaced segments; an asset's first is always read")
    func sample() async throws {
        let (report, _, _) = try await validate("/long.m3u8", .init(sample: 2))
        #expect(report.media?.playlists.first?.segments.map(\.index) == [0, 4])
        // Which indexes a sample picks is MediaValidationTests' (the pure rule).
    }

    @Test("the byte budget stops downloads; what was read is reported")
    func budget() async throws {
        let (report, _, _) = try await validate("/long.m3u8", .init(maximumBytes: 1, concurrency: 1))
        let media = try #require(report.media)
        #expect(media.budgetExhausted)
        // The first resource (ts/seg0.ts, twice) is read; the second (ts/seg1.ts, three times) is not.
        #expect(media.playlists.first?.segments.map(\.index) == [0, 1])
        #expect(media.playlists.first?.skipped == 3)
        #expect(report.notes.contains { $0.contains("budget") })
    }
}
