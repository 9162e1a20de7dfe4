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
    /// Runs `body` with a plain file server (the upstream origin) for the demo's primary directory.
    func withUpstream(_ body: @Sendable (Int) async throws -> Void) async throws {
        let configuration = try ServerConfiguration.demo()
        guard case .directory(let directory) = configuration.vod[0].origin else { return }
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
                let missing = try await client.get("/demo/vod/video/none.m3u8")
                #expect(missing.status == .badGateway)
                #expect(missing.errorCode == "upstream-status")
            }
        }
    }

    @Test("An upstream that is down is a 502 with a reason; an origin outside the allow-list is refused at start")
    func upstreamFailures() async throws {
        var configuration = try Harness.demo()
        configuration.allowedOrigins = ["http://127.0.0.1:1"]
        configuration.upstreamTimeout = MediaTime(seconds: 1)
        configuration.vod = [.init(id: "demo", path: "/demo/vod", origin: .upstream("http://127.0.0.1:1/master.m3u8"))]
        try await Harness.withServer(configuration) { client in
            let response = try await client.get("/demo/vod/master.m3u8")
            #expect(response.status == .badGateway)
            #expect(response.errorCode == "upstream-failed")
        }
        configuration.allowedOrigins = []
        #expect(throws: APIError.self) { try configuration.check() }
        let text = #"{"allowedOrigins":["https://a.example.com"],"vod":[{"id":"x","upstream":"https://b.example.com/x.m3u8"}]}"#
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
