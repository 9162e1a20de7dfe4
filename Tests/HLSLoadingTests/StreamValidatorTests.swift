import Foundation
import HLSLoading
import HLSPlaylist
import Synchronization
import Testing

@Suite("StreamValidator over real HTTP")
struct StreamValidatorTests {
    /// The server's base URL, known once it listens (asset lists must hold absolute URIs).
    final class Base: Sendable {
        let value = Mutex("")
        let reloads = Mutex(0)
    }

    static func media(_ dateRanges: [String], endList: Bool = true) -> [UInt8] {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for line in dateRanges { text += "#EXT-X-DATERANGE:\(line)\n" }
        for index in 0..<5 { text += "#EXTINF:6.000,\nseg\(index).ts\n" }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return Array(text.utf8)
    }

    static func interstitial(_ id: String, _ asset: String, extra: String = "") -> String {
        "ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\",DURATION=15,\(asset)\(extra)"
    }

    static func master(_ codecs: String, _ languages: [String]) -> [UInt8] {
        var text = "#EXTM3U\n"
        for language in languages {
            text +=
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"\(language)\",LANGUAGE=\"\(language)\",URI=\"audio_\(language).m3u8\"\n"
        }
        text += "#EXT-X-STREAM-INF:BANDWIDTH=1000000,CODECS=\"\(codecs)\",RESOLUTION=1280x720,AUDIO=\"a\"\nvideo.m3u8\n"
        return Array(text.utf8)
    }

    static func routes(_ base: Base) -> @Sendable (String) -> TestHTTPServer.Response {
        { path in
            let root = base.value.withLock { $0 }
            let list = interstitial("ad1", "X-ASSET-LIST=\"ad1.json?_HLS_interstitial_id=ad1\"")
            let single = interstitial("ad2", "X-ASSET-URI=\"\(root)/hevc/main.m3u8?_HLS_interstitial_id=ad2\"")
            let broken = interstitial("ad3", "X-ASSET-LIST=\"missing.json?_HLS_interstitial_id=ad3\"")
            switch path.split(separator: "?")[0] {
            case "/clean/master.m3u8": return .init(body: master("avc1.64001f,mp4a.40.2", ["en"]))
            case "/clean/video.m3u8", "/clean/audio_en.m3u8":
                return .init(body: media([interstitial("ad", "X-ASSET-LIST=\"ad.json?_HLS_interstitial_id=ad\"")]))
            case "/clean/ad.json":
                return .init(
                    headers: [("Content-Type", "application/json")],
                    body: Array("{\"ASSETS\":[{\"URI\":\"\(root)/ads/vod.m3u8\",\"DURATION\":15}]}".utf8))
            case "/ads/vod.m3u8": return .init(body: media([]))
            case "/ads/live.m3u8": return .init(body: media([], endList: false))
            case "/bad/master.m3u8": return .init(body: master("avc1.64001f,mp4a.40.2", ["en", "fr"]))
            case "/bad/video.m3u8", "/bad/audio_en.m3u8": return .init(body: media([list, single, broken]))
            case "/bad/audio_fr.m3u8": return .init(body: media([list, single]))
            case "/bad/ad1.json":
                return .init(
                    headers: [("Content-Type", "application/json")],
                    body: Array(
                        "{\"ASSETS\":[{\"URI\":\"\(root)/ads/vod.m3u8\",\"DURATION\":5},{\"URI\":\"\(root)/ads/live.m3u8\",\"DURATION\":5}]}"
                            .utf8))
            case "/hevc/main.m3u8": return .init(body: master("hvc1.1.6.L93.B0,mp4a.40.2", ["en"]))
            case "/hevc/video.m3u8", "/hevc/audio_en.m3u8": return .init(body: media([]))
            case "/broken/master.m3u8":
                return .init(
                    body: Array(
                        "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nmissing.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\nok.m3u8\n"
                            .utf8))
            case "/broken/ok.m3u8": return .init(body: media([]))
            case "/live.m3u8":
                let count = base.reloads.withLock { value in
                    value += 1
                    return value
                }
                let ad = interstitial("ad", "X-ASSET-URI=\"https://a.example/x.m3u8?_HLS_interstitial_id=ad\"")
                switch count {
                case 1: return .init(body: media([ad], endList: false))
                case 2:
                    return .init(
                        body: media([ad.replacingOccurrences(of: "DURATION=15", with: "DURATION=20")], endList: false))
                case 3: return .init(body: media([], endList: false))
                default: return .init(body: media([], endList: true))
                }
            default: return .init(status: .notFound, body: Array("nope".utf8))
            }
        }
    }

    func withValidator(_ body: (TestHTTPServer, StreamValidator) async throws -> Void) async throws {
        let base = Base()
        try await TestHTTPServer.withServerAndLoader(
            routes: Self.routes(base), timeout: .seconds(600),
            started: { server in base.value.withLock { $0 = server.url("") } }
        ) { server, loader in
            try await body(server, StreamValidator(loader: loader, sleep: { _ in }))
        }
    }

    @Test("a clean presentation validates recursively without diagnostics")
    func clean() async throws {
        try await withValidator { server, validator in
            let report = try await validator.validate(server.url("/clean/master.m3u8"), recursive: true)
            #expect(report.diagnostics.isEmpty, "\(report.diagnostics.map(\.description))")
        }
    }

    @Test("--recursive finds rendition, asset-list, asset, compatibility and language problems")
    func problems() async throws {
        try await withValidator { server, validator in
            let report = try await validator.validate(server.url("/bad/master.m3u8"), recursive: true)
            let rules = Set(report.diagnostics.map(\.rule.rawValue))
            #expect(
                rules == [
                    "renditions-date-ranges", "interstitial-vod", "interstitial-duration", "interstitial-compatibility",
                    "interstitial-language", "interstitial-load",
                ], "\(report.diagnostics.map(\.description))")
            #expect(report.hasErrors)
            let load = report.diagnostics.first { $0.rule == "interstitial-load" }
            #expect(load?.message.contains("missing.json") == true)
            #expect(load?.location.file.hasSuffix("/bad/video.m3u8") == true)
            #expect(load?.location.line == 4 + 2)
        }
    }

    @Test("the report lists every playlist, asset list and asset checked, in order, with its outcome")
    func checkedResources() async throws {
        try await withValidator { server, validator in
            let report = try await validator.validate(server.url("/bad/master.m3u8"), recursive: true)
            typealias Kind = StreamValidator.CheckedResource.Kind
            #expect(
                report.checked.map(\.kind) == [
                    Kind.multivariantPlaylist, .mediaPlaylist, .mediaPlaylist, .mediaPlaylist, .assetList, .asset,
                    .asset, .asset, .assetMediaPlaylist, .assetMediaPlaylist, .assetList,
                ], "\(report.checked.map(\.summary))")
            #expect(
                report.checked.map {
                    $0.location.replacingOccurrences(of: server.url(""), with: "").split(separator: "?")[0]
                }
                    == [
                        "/bad/master.m3u8", "/bad/video.m3u8", "/bad/audio_en.m3u8", "/bad/audio_fr.m3u8",
                        "/bad/ad1.json",
                        "/ads/vod.m3u8", "/ads/live.m3u8", "/hevc/main.m3u8", "/hevc/video.m3u8", "/hevc/audio_en.m3u8",
                        "/bad/missing.json",
                    ])
            let missing = report.checked.last
            #expect(missing?.outcome == .failed)
            #expect(missing?.interstitial == "ad3")
            #expect(missing?.failure == "the server answered HTTP 404 Not Found")
            #expect(report.checked.first { $0.location.hasSuffix("/ads/live.m3u8") }?.outcome == .errors)
            #expect(report.checked.first { $0.location.hasSuffix("/ads/vod.m3u8") }?.errors == 0)
            // Each diagnostic counts once, for the resource whose check found it.
            let counted = report.checked.reduce(0) { $0 + $1.errors + $1.warnings }
            #expect(counted <= report.diagnostics.count)
            #expect(report.checked.countSummary.hasPrefix("1 multivariant playlist, 3 media playlists, 2 asset lists"))
        }
    }

    @Test("without --recursive the one playlist is the one resource checked; --watch adds each reload")
    func checkedSingle() async throws {
        try await withValidator { server, validator in
            let single = try await validator.validate(server.url("/clean/video.m3u8"), recursive: false)
            #expect(single.checked == [.init(kind: .mediaPlaylist, location: server.url("/clean/video.m3u8"))])
            let watched = try await validator.watch(server.url("/live.m3u8"), reloads: 5)
            #expect(watched.checked.map(\.kind) == [.mediaPlaylist, .reload, .reload, .reload])
            #expect(watched.checked[1].location.hasSuffix("/live.m3u8 (reload 1)"))
            #expect(watched.checked[1].errors == 1)
        }
    }

    @Test("a media playlist that cannot be loaded is renditions-load at its line in the multivariant playlist")
    func unloadable() async throws {
        try await withValidator { server, validator in
            let report = try await validator.validate(server.url("/broken/master.m3u8"), recursive: true)
            #expect(report.diagnostics.map(\.rule.rawValue) == ["renditions-load"])
            #expect(report.diagnostics.first?.location.line == 2)
            #expect(report.diagnostics.first?.message.contains("missing.m3u8 cannot be loaded") == true)
        }
    }

    @Test("without --recursive only the playlist itself is checked")
    func notRecursive() async throws {
        try await withValidator { server, validator in
            let report = try await validator.validate(server.url("/bad/video.m3u8"), recursive: false)
            #expect(report.diagnostics.isEmpty)
        }
    }

    @Test("--watch reports changed and removed date ranges, and stops at EXT-X-ENDLIST")
    func watch() async throws {
        try await withValidator { server, validator in
            let report = try await validator.watch(server.url("/live.m3u8"), reloads: 5)
            #expect(
                report.diagnostics.map(\.rule.rawValue) == ["reload-daterange-changed", "reload-daterange-removed"])
            #expect(report.diagnostics[0].location.file.hasSuffix("(reload 1)"))
            #expect(report.diagnostics[1].location.file.hasSuffix("(reload 2)"))
            #expect(report.notes.contains { $0.contains("EXT-X-ENDLIST") })
        }
    }

    @Test("relative references resolve against URLs and file paths")
    func resolve() {
        #expect(URIReference.resolve("b.json?x=1", against: "http://h/a/p.m3u8") == "http://h/a/b.json?x=1")
        #expect(URIReference.resolve("../b.json", against: "https://h/a/p.m3u8") == "https://h/b.json")
        #expect(URIReference.resolve("b.json?_HLS_interstitial_id=x", against: "dir/p.m3u8") == "dir/b.json")
        #expect(URIReference.resolve("https://o/x", against: "dir/p.m3u8") == "https://o/x")
        #expect(URIReference.resolve("b%20c.json", against: "p.m3u8") == "b c.json")
    }
}
