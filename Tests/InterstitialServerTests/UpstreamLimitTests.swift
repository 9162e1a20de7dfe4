import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import InterstitialServer

/// Issue 14, items 6 and 8: upstream origins are bounded in time, size and concurrency, and only
/// playlists are served as playlists.
@Suite("Upstream limits")
struct UpstreamLimitTests {
    static let media = Array(
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-VERSION:7\n#EXTINF:4.0,\nseg0.m4s\n#EXTINF:4.0,\nseg1.m4s\n#EXT-X-ENDLIST\n"
            .utf8)

    static func routes(_ path: String) -> TestOrigin.Answer {
        switch path {
        case "/media.m3u8": return .init(body: media)
        case "/stall.m3u8", "/stall2.m3u8": return .init(body: media, stallAfter: 10)
        case "/stall.m4s":
            return .init(contentType: "video/iso.segment", body: Array(repeating: 7, count: 5000), stallAfter: 1000)
        case "/random.m3u8": return .init(body: (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        case "/header-then-junk.m3u8": return .init(body: Array("#EXTM3U\n\u{1}\u{2}junk\nmore junk\n".utf8))
        case "/mixed.m3u8":
            return .init(body: Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXTINF:4,\ns.ts\n".utf8))
        case "/big.m3u8": return .init(body: media + Array(repeating: 0x0A, count: 8000))
        case "/big.m4s": return .init(contentType: "video/iso.segment", body: Array(repeating: 1, count: 300_000))
        case "/seg.m4s": return .init(contentType: "video/iso.segment", body: Array(repeating: 2, count: 200_000))
        default: return .init(status: .notFound)
        }
    }

    static func configuration(_ origin: TestOrigin) throws -> ServerConfiguration {
        var configuration = try Harness.demo()
        configuration.allowedOrigins = [origin.origin]
        configuration.vod.append(.init(id: "up", path: "/up", origin: .upstream(origin.origin + "/media.m3u8")))
        configuration.limits.upstreamTimeout = MediaTime(seconds: 1)
        configuration.limits.upstreamPlaylistBytes = 4096
        configuration.limits.upstreamFileBytes = 256 * 1024
        return configuration
    }

    @Test("An upstream that sends a head and stalls gets 504 within the timeout, body included")
    func stalledUpstream() async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            try await Harness.withServer(try Self.configuration(origin)) { client in
                let stalled = try await client.get("/up/stall.m3u8")
                #expect(stalled.status == .gatewayTimeout)
                #expect(stalled.errorCode == "upstream-timeout")
                // A stalled segment is cut off: the client gets less than was announced, and the
                // request ends instead of hanging.
                let port = try #require(client.port)
                let answer = try await RawConnection.open(port: port).exchange(
                    "GET /up/stall.m4s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                #expect(answer.closed)
                #expect(answer.text.hasPrefix("HTTP/1.1 200 "))
                #expect(answer.text.utf8.count < 5000)
                #expect(try await client.text("/up/media.m3u8").contains("seg0.m4s"), "the origin still serves")
            }
        }
    }

    @Test(
        "An upstream playlist whose body stalls times out on the server's clock: a 504 when the clock passes upstreamTimeout, not before"
    )
    func stalledBodyOnServerClock() async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            var configuration = try Self.configuration(origin)
            // Longer than any real wait here: only the manual clock can pass it.
            configuration.limits.upstreamTimeout = MediaTime(seconds: 120)
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration, serverClock: clock) { client in
                let port = try #require(client.port)
                let stalled = Task { try await get(port: port, "/up/stall.m3u8") }
                // The head came; the body's time limit waits on the server's clock.
                #expect(try await eventually { clock.waiting(for: MediaTime(seconds: 120)) >= 1 })
                clock.advance(119)
                #expect(clock.waiting(for: MediaTime(seconds: 1)) >= 1, "not timed out before the limit")
                clock.advance(1)
                let answer = try await stalled.value
                #expect(answer.status == 504, "\(answer.body)")
                #expect(answer.body.contains("upstream-timeout"), "\(answer.body)")
            }
        }
    }

    @Test("Requests beyond an origin's concurrency limit get 503 at once, and others are not starved")
    func concurrencyLimit() async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            var configuration = try Self.configuration(origin)
            configuration.limits.upstreamConcurrency = 2
            // Long enough that a loaded machine cannot free the slots before the third request:
            // the test ends the stalled fetches itself.
            configuration.limits.upstreamTimeout = MediaTime(seconds: 120)
            try await Harness.withServer(configuration) { client in
                let port = try #require(client.port)
                // Two URLs: requests for one URL share one fetch (UpstreamPlaylistShare), whatever
                // their query (UpstreamQuery).
                let hanging = ["/up/stall.m3u8", "/up/stall2.m3u8"].map { path in
                    Task { try await get(port: port, path).status }
                }
                #expect(
                    try await eventually {
                        origin.requests("/stall.m3u8").count + origin.requests("/stall2.m3u8").count == 2
                    })
                let excess = try await get(port: port, "/up/media.m3u8")
                #expect(excess.status == 503)
                #expect(excess.body.contains("\"code\":\"upstream-busy\""))
                #expect(
                    try await get(port: port, "/demo/vod/video/main.m3u8").status == 200, "local content is unaffected")
                // The origin drops the stalled answers: those fetches fail, and their slots come back.
                origin.dropConnections()
                for task in hanging { #expect(try await task.value == 502) }
                #expect(
                    try await eventually { try await get(port: port, "/up/media.m3u8").status == 200 },
                    "slots come back")
            }
        }
    }

    @Test("Upstream bodies that are not playlists are 502 with the reason; sizes are capped per kind")
    func upstreamContent() async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            try await Harness.withServer(try Self.configuration(origin)) { client in
                for path in ["/up/random.m3u8", "/up/header-then-junk.m3u8", "/up/mixed.m3u8"] {
                    let response = try await client.get(path)
                    #expect(response.status == .badGateway, "\(path)")
                    #expect(response.errorCode == "upstream-not-playlist", "\(path): \(response.text)")
                }
                let big = try await client.get("/up/big.m3u8")
                #expect(big.status == .badGateway)
                #expect(big.errorCode == "upstream-too-large")
                let segment = try await client.get("/up/seg.m4s")
                #expect(segment.status == .ok)
                #expect(segment.body.readableBytes == 200_000, "segments are streamed through whole")
                let tooBig = try await client.get("/up/big.m4s")
                #expect(tooBig.status == .badGateway)
                #expect(tooBig.errorCode == "upstream-too-large")
                #expect(try await client.text("/up/media.m3u8").contains("seg1.m4s"))
            }
        }
    }
}
