import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import InterstitialServer

@Suite("Upstream origins")
struct UpstreamTests {
    /// Runs `body` with a plain file server (the upstream origin) for a directory, by default the
    /// demo's primary.
    func withUpstream(directory: String? = nil, _ body: @Sendable (Int) async throws -> Void) async throws {
        let configuration = try ServerConfiguration.demo()
        guard case .directory(let demo) = configuration.vod[0].origin else { return }
        let directory = directory ?? demo
        let router = Router()
        router.add(middleware: FileMiddleware(directory, searchForIndexHtml: false))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: Harness.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next() ?? 0
            try await body(port)
            group.cancelAll()
        }
    }

    /// Runs `body` with an upstream origin serving `playlist` as `live.m3u8` from a folder of its own.
    func withUpstreamPlaylist(_ playlist: String, _ body: @Sendable (Int) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-up-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try playlist.write(to: directory.appendingPathComponent("live.m3u8"), atomically: true, encoding: .utf8)
        try await withUpstream(directory: directory.path, body)
    }

    @Test("A proxied VOD gets date ranges in its media playlists; everything else passes through")
    func proxiedVOD() async throws {
        try await withUpstream { port in
            var configuration = try Harness.demo()
            let origin = "http://127.0.0.1:\(port)"
            configuration.allowedOrigins = [origin]
            configuration.vod = [.init(id: "demo", path: "/demo/vod", origin: .upstream(origin + "/master.m3u8"))]
            try await Harness.withServer(configuration) { client in
                let master = try await client.text("/demo/vod/master.m3u8")
                #expect(master.contains("video/main.m3u8"))
                let media = try await client.text("/demo/vod/video/main.m3u8")
                #expect(dateRangeLines(media).count == 4)
                #expect(media.contains("#EXT-X-PROGRAM-DATE-TIME:"))
                let segment = try await client.get("/demo/vod/video/seg001.m4s")
                #expect(segment.status == .ok)
                #expect(segment.body.readableBytes > 1000)
                // Passed through for a minute, to any cache (docs/http.md, "Proxied media").
                #expect(segment.headers[.cacheControl] == CachePolicy.proxiedMedia)
                #expect(segment.headers[.cacheControl] == "public, max-age=60")
                let missing = try await client.get("/demo/vod/video/none.m3u8")
                #expect(missing.status == .badGateway)
                #expect(missing.errorCode == "upstream-status")
            }
        }
    }

    @Test("A proxied live playlist without PROGRAM-DATE-TIME gets stable dates and its breaks")
    func proxiedLiveWithoutPDT() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:100\n"
        for index in 100..<105 { text += "#EXTINF:4.0,\nseg\(index).ts\n" }
        try text.write(to: directory.appendingPathComponent("live.m3u8"), atomically: true, encoding: .utf8)
        let now = DateTime(iso8601: "2026-06-01T12:00:00.000Z")!
        let clock = TestClock(now)
        try await withUpstream(directory: directory.path) { port in
            var configuration = try Harness.demo()
            let origin = "http://127.0.0.1:\(port)"
            configuration.allowedOrigins = [origin]
            configuration.live = [.init(id: "news", path: "/live/news", origin: .upstream(origin + "/live.m3u8"))]
            try await Harness.withServer(configuration, clock: clock) { client in
                let created = try await client.admin(
                    .post, "breaks",
                    #"{"id":"news-break","target":"live/news","date":"2026-06-01T11:59:50.000Z","plannedDuration":8}"#)
                #expect(created.status == .created, "\(created.text)")
                let first = try await client.text("/live/news/live.m3u8")
                // The live edge (the end of the last segment) is dated now: 20 s of segments before it.
                #expect(first.contains("#EXT-X-PROGRAM-DATE-TIME:2026-06-01T11:59:40.000Z\n#EXTINF:4.0,\nseg100.ts"))
                #expect(dateRangeLines(first).count == 1)
                #expect(first.contains("X-ASSET-LIST=\"/live/news/asset-list.json?_HLS_interstitial_id=news-break\""))
                clock.advance(3)
                #expect(try await client.text("/live/news/live.m3u8") == first, "the dates stay where they were")
                let list = try await client.text("/live/news/asset-list.json?_HLS_interstitial_id=news-break")
                #expect(try AssetList.decode(Array(list.utf8)).totalDuration <= MediaTime(seconds: 8.5))
            }
        }
    }

    @Test(
        "A live upstream whose PROGRAM-DATE-TIME steps back is served (its window spans every date), and other channels keep serving",
        arguments: [
            // An encoder's clock steps back half a second inside the last segment's predecessor.
            ["2026-06-01T11:59:58.000Z", "2026-06-01T11:59:57.500Z"],
            // A backup encoder takes over an hour behind.
            ["2026-06-01T11:59:58.000Z", "2026-06-01T10:59:00.000Z"],
        ])
    func liveDatesStepBack(dates: [String]) async throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-PROGRAM-DATE-TIME:\(dates[0])
            #EXTINF:2.0,
            a.ts
            #EXT-X-PROGRAM-DATE-TIME:\(dates[1])
            #EXTINF:0.1,
            b.ts

            """
        let clock = TestClock(DateTime(iso8601: "2026-06-01T12:00:00.000Z")!)
        try await withUpstreamPlaylist(text) { port in
            var configuration = try Harness.demo()
            let origin = "http://127.0.0.1:\(port)"
            configuration.allowedOrigins = [origin]
            configuration.live.append(.init(id: "news", path: "/live/news", origin: .upstream(origin + "/live.m3u8")))
            try await Harness.withServer(configuration, clock: clock) { client in
                let created = try await client.admin(
                    .post, "breaks",
                    #"{"id":"news-break","target":"live/news","date":"2026-06-01T11:59:59.000Z","plannedDuration":8}"#)
                #expect(created.status == .created, "\(created.text)")
                for _ in 0..<2 {
                    let served = try await client.get("/live/news/live.m3u8")
                    #expect(served.status == .ok, "\(served.text)")
                    #expect(served.text.contains("a.ts") && served.text.contains("b.ts"))
                }
                let other = try await client.get("/demo/vod/video/main.m3u8")
                #expect(other.status == .ok)
            }
        }
    }

    @Test("Two channels on one upstream playlist share nothing of what they serve: each has its own breaks")
    func channelsShareAnUpstream() async throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:1\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-06-01T11:59:40.000Z\n"
        for index in 0..<5 { text += "#EXTINF:4.0,\ns\(index).ts\n" }
        let clock = TestClock(DateTime(iso8601: "2026-06-01T12:00:00.000Z")!)
        try await withUpstreamPlaylist(text) { port in
            var configuration = try Harness.demo()
            let origin = "http://127.0.0.1:\(port)"
            configuration.allowedOrigins = [origin]
            configuration.live = ["a", "b"].map {
                .init(id: $0, path: "/live/\($0)", origin: .upstream(origin + "/live.m3u8"))
            }
            try await Harness.withServer(configuration, clock: clock) { client in
                let created = try await client.admin(
                    .post, "breaks",
                    #"{"id":"only-a","target":"live/a","date":"2026-06-01T11:59:50.000Z","duration":4}"#)
                #expect(created.status == .created, "\(created.text)")
                let a = try await client.text("/live/a/live.m3u8")
                let b = try await client.text("/live/b/live.m3u8")
                #expect(a.contains("ID=\"only-a\""))
                #expect(!b.contains("only-a"), "\(b)")
            }
        }
    }

    @Test("An upstream that is down is a 502 with a reason; an origin outside the allow-list is refused at start")
    func upstreamFailures() async throws {
        var configuration = try Harness.demo()
        configuration.allowedOrigins = ["http://127.0.0.1:1"]
        configuration.limits.upstreamTimeout = MediaTime(seconds: 1)
        configuration.vod = [.init(id: "demo", path: "/demo/vod", origin: .upstream("http://127.0.0.1:1/master.m3u8"))]
        try await Harness.withServer(configuration) { client in
            let response = try await client.get("/demo/vod/master.m3u8")
            #expect(response.status == .badGateway)
            #expect(response.errorCode == "upstream-failed")
        }
        configuration.allowedOrigins = []
        #expect(throws: APIError.self) { try configuration.check() }
        let text =
            #"{"allowedOrigins":["https://a.example.com"],"vod":[{"id":"x","upstream":"https://b.example.com/x.m3u8"}]}"#
        do {
            _ = try ServerConfiguration.decode(Array(text.utf8), base: "/")
            Issue.record("accepted an upstream outside the allow-list")
        } catch {
            #expect(error.path == "vod[0].upstream")
        }
    }

    @Test("Configuration files: every problem names its JSON path")
    func configurationErrors() {
        let cases: [(String, String)] = [
            (#"{"port":"x"}"#, "port"),
            (#"{"vod":[{"id":"a"}]}"#, "vod[0].directory"),
            (#"{"vod":[{"id":"a","directory":"d","path":"no-slash"}]}"#, "vod[0].path"),
            (#"{"live":[{"id":"a","loop":"d","windowSegments":1}]}"#, "live[0].windowSegments"),
            (#"{"vod":[{"id":"a","directory":"d"},{"id":"a","directory":"e","path":"/other"}]}"#, "vod[1].id"),
            (#"{"vod":[{"id":"a","directory":"d","path":"/page"}]}"#, "vod[0].path"),
            (#"{"live":[{"id":"a","loop":"d","path":"/handoff/x"}]}"#, "live[0].path"),
            (
                #"{"vod":[{"id":"a","directory":"d","path":"/x"}],"live":[{"id":"b","loop":"d","path":"/x"}]}"#,
                "live[0].path"
            ),
            (#"{"seed":{"breaks":[{"id":"b","target":"vod/a"}]}}"#, "seed.breaks[0].at"),
            (#"{"allowedOrigins":["https://x.example.com/path"]}"#, "allowedOrigins[0]"),
            (#"{"colour":1}"#, "colour"),
        ]
        for (text, path) in cases {
            do {
                _ = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.path == path, "\(text): \(error)")
            }
        }
    }
}
