import AsyncHTTPClient
import Foundation
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import InterstitialServer

/// Issue 42, items 5 and 6: a viewer's query cannot make its own upstream fetches and take the
/// origin's request slots, and nothing an upstream serves runs as a page of the server's origin.
@Suite("Upstream isolation")
struct UpstreamIsolationTests {
    static let media = UpstreamLimitTests.media

    static func routes(_ path: String) -> TestOrigin.Answer {
        switch path {
        case "/media.m3u8": return .init(body: media)
        case "/stall.m3u8", "/stall2.m3u8": return .init(body: media, stallAfter: 10)
        case "/page.html", "/console.html":
            return .init(contentType: "text/html", body: Array("<script>alert(1)</script>".utf8))
        case "/image.svg", "/evil.js", "/data.json", "/noextension":
            return .init(contentType: "text/html", body: Array("<script>alert(1)</script>".utf8))
        case "/evil.m4s": return .init(contentType: "text/html", body: Array("<script>alert(1)</script>".utf8))
        case "/seg.ts": return .init(contentType: "", body: Array(repeating: 0x47, count: 376))
        default: return .init(status: .notFound)
        }
    }

    @Test(
        "Only LL-HLS directives with valid values are forwarded upstream",
        arguments: [
            (["r": "123"], [:]),
            (["_HLS_msn": "12", "_HLS_part": "3", "r": "x"], ["_HLS_msn": "12", "_HLS_part": "3"]),
            (["_HLS_skip": "YES", "token": "t"], ["_HLS_skip": "YES"]),
            (["_HLS_skip": "v2"], ["_HLS_skip": "v2"]),
            (["_HLS_skip": "yes", "_HLS_msn": "-1", "_HLS_part": "+2"], [:]),
            (["_HLS_msn": String(repeating: "9", count: 20)], [:]),
            (["_HLS_msn": "", "_HLS_primary_id": "v1", "_HLS_push": "1"], [:]),
        ] as [([String: String], [String: String])])
    func forwardedQuery(_ query: [String: String], _ expected: [String: String]) throws {
        #expect(UpstreamQuery.forwarded(query, path: try #require(SafePath("v/main.m3u8"))) == expected)
    }

    @Test("A media file's query (the upstream's CDN token) is forwarded whole, and counts as the viewer's")
    func mediaQuery() throws {
        let segment = try #require(SafePath("v/seg-12.m4s"))
        let query = ["token": "exp-1795876650~hmac-ab12", "r": "1"]
        #expect(UpstreamQuery.forwarded(query, path: segment) == query)
        #expect(
            UpstreamClient.upstreamURL(entry: "https://up.example/live/master.m3u8", path: segment, query: query)
                == "https://up.example/live/v/seg-12.m4s?r=1&token=exp-1795876650~hmac-ab12")
        #expect(UpstreamQuery.forwarded([:], path: segment).isEmpty)
    }

    @Test("The upstream URL is one spelling per request: the viewer's other parameters are dropped, the rest sorted")
    func upstreamURL() throws {
        let path = try #require(SafePath("v/main.m3u8"))
        #expect(
            UpstreamClient.upstreamURL(
                entry: "https://up.example/live/master.m3u8?token=a", path: path,
                query: ["r": "1", "_HLS_part": "2", "_HLS_msn": "10"])
                == "https://up.example/live/v/main.m3u8?_HLS_msn=10&_HLS_part=2")
        #expect(
            UpstreamClient.upstreamURL(entry: "https://up.example/live/master.m3u8", path: path, query: ["r": "x"])
                == "https://up.example/live/v/main.m3u8")
    }

    @Test(
        "The reserve: a quarter of the origin's slots (at least one from two) is kept for the channel's own URLs",
        arguments: [(1, 0), (2, 1), (4, 1), (8, 2), (32, 8), (33, 8)])
    func reserve(_ concurrency: Int, _ reserve: Int) {
        var limits = ServerLimits()
        limits.upstreamConcurrency = concurrency
        #expect(limits.upstreamReserve == reserve)
    }

    static func configuration(_ origin: TestOrigin, concurrency: Int) throws -> ServerConfiguration {
        var configuration = try UpstreamLimitTests.configuration(origin)
        configuration.limits.upstreamConcurrency = concurrency
        // Long enough that a loaded machine cannot free the slots meanwhile: the test ends the
        // stalled fetches itself.
        configuration.limits.upstreamTimeout = MediaTime(seconds: 120)
        return configuration
    }

    @Test("Random query strings share one upstream fetch and cannot take the origin's slots")
    func randomQueries() async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            var configuration = try Self.configuration(origin, concurrency: 4)
            // The stalled fetch ends by its timeout: a request arriving after it starts another.
            configuration.limits.upstreamTimeout = MediaTime(seconds: 2)
            try await Harness.withServer(configuration) { client in
                let port = try #require(client.port)
                // Eight viewers with cache busters on a playlist whose origin stalls.
                let hanging = (0..<8).map { index in
                    Task { try await get(port: port, "/up/stall.m3u8?r=\(index)-\(UInt64.random(in: 0...UInt64.max))") }
                }
                #expect(try await eventually { origin.requests("/stall.m3u8").count >= 1 })
                // The channel's other playlists still have slots: one fetch holds one of four.
                let other = try await get(port: port, "/up/media.m3u8?r=other")
                #expect(other.status == 200, "\(other.body)")
                #expect(origin.requests("/media.m3u8") == ["/media.m3u8"])
                for task in hanging {
                    let status = try await task.value.status
                    #expect(status == 502 || status == 504)
                }
                let stalls = origin.requests("/stall.m3u8")
                #expect(stalls.allSatisfy { $0 == "/stall.m3u8" }, "the viewer's query is not forwarded: \(stalls)")
            }
        }
    }

    @Test("Requests with LL-HLS directives leave the reserve to the channel's own URLs")
    func reserveForOwnURLs() async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            // Four slots, one kept: three blocking reloads with distinct directives take the rest.
            try await Harness.withServer(try Self.configuration(origin, concurrency: 4)) { client in
                let port = try #require(client.port)
                let hanging = (1...3).map { index in
                    Task { try await get(port: port, "/up/stall.m3u8?_HLS_msn=\(index)") }
                }
                #expect(try await eventually { origin.requests("/stall.m3u8").count == 3 })
                let excess = try await get(port: port, "/up/media.m3u8?_HLS_msn=4")
                #expect(excess.status == 503)
                #expect(excess.body.contains("\"code\":\"upstream-busy\""))
                #expect(excess.body.contains("kept for the channel's own URLs"), "\(excess.body)")
                let own = try await get(port: port, "/up/media.m3u8")
                #expect(own.status == 200, "the reserve serves the channel's own URL: \(own.body)")
                #expect(
                    Set(origin.requests("/stall.m3u8"))
                        == ["/stall.m3u8?_HLS_msn=1", "/stall.m3u8?_HLS_msn=2", "/stall.m3u8?_HLS_msn=3"])
                origin.dropConnections()
                for task in hanging { #expect(try await task.value.status == 502) }
            }
        }
    }

    @Test(
        "Paths under an upstream that are not media files are 404, and the upstream is not asked",
        arguments: [
            "/up/page.html", "/up/console.html", "/up/image.svg", "/up/evil.js", "/up/data.json", "/up/noextension",
        ])
    func notMedia(_ path: String) async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            try await Harness.withServer(try UpstreamLimitTests.configuration(origin)) { client in
                let response = try await client.get(path)
                #expect(response.status == .notFound, "\(path): \(response.text)")
                #expect(response.errorCode == "not-found")
                #expect(!response.text.contains("<script>"))
                #expect(origin.uris.withLockedValue { $0 }.isEmpty, "\(path) was not fetched")
            }
        }
    }

    @Test("A proxied file has the server's Content-Type, nosniff and a sandbox policy, whatever the upstream says")
    func proxiedFields() async throws {
        try await TestOrigin.withOrigin(routes: Self.routes) { origin in
            try await Harness.withServer(try UpstreamLimitTests.configuration(origin)) { client in
                for (path, type) in [("/up/evil.m4s", "video/iso.segment"), ("/up/seg.ts", "video/mp2t")] {
                    let response = try await client.get(path)
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.headers[.contentType] == type, "\(path)")
                    #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
                    #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] == "sandbox", "\(path)")
                }
            }
        }
    }
}
