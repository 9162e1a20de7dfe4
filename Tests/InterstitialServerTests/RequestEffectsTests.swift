import Foundation
import HLSInterstitials
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOEmbedded
import Testing

@testable import InterstitialServer

/// A content request's side effects happen in one place for both lanes (``RequestEffects``): a
/// live playlist request marks its viewer's session seen, with its user agent and address.
@Suite("Request effects")
struct RequestEffectsTests {
    static let live = "/demo/live/video/main.m3u8"
    static let channel = Target(.live, "demo")

    @Test("The fast lane records a live playlist's viewer: its session, user agent and address")
    func fastLane() async throws {
        try await withDemoLibrary { library, _, _ in
            let (lane, _) = InterstitialServerTests.fastLane(library)
            _ = try await FastLaneTests.settled(library, Self.live)
            let requestGuard = RequestGuard(
                limits: RequestGuard.Limits(ServerLimits()), logger: Harness.logger, clock: library.clock,
                fastLane: lane)
            let channel = EmbeddedChannel()
            defer { _ = try? channel.finish() }
            channel.remoteAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 50_000)
            try channel.pipeline.syncOperations.addHandler(requestGuard)
            requestGuard.trackerAdded()
            try channel.writeInbound(
                ByteBuffer(
                    string: "GET \(Self.live) HTTP/1.1\r\nHost: x\r\nX-Playback-Session-Id: fast-1\r\n"
                        + "User-Agent: FastUA/1\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n"))
            #expect(try FastLaneTests.answered(channel).hasPrefix("HTTP/1.1 200 OK"), "the fast lane answered")
            #expect(try FastLaneTests.passed(channel).isEmpty)
            #expect(library.sessions.count(Self.channel) == 1)
            #expect(
                library.sessions.device("fast-1", on: Self.channel)
                    == DeviceFields(userAgent: "FastUA/1", ip: "198.51.100.7"))
        }
    }

    @Test("The route records a live playlist's viewer: its session, user agent and address")
    func route() async throws {
        try await withDemoLibrary { library, _, _ in
            let (_, routes) = InterstitialServerTests.fastLane(library)
            let ports = LiveServer.ports()
            let application = Application(
                router: routes.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) })
            try await LiveServer.run(application, ports: ports) { client in
                let response = try await client.get(
                    Self.live,
                    headers: [
                        Routes.sessionField: "route-1", .userAgent: "RouteUA/1",
                        HTTPField.Name("X-Forwarded-For")!: "198.51.100.8",
                    ])
                #expect(response.status == .ok)
            }
            #expect(library.sessions.count(Self.channel) == 1)
            #expect(
                library.sessions.device("route-1", on: Self.channel)
                    == DeviceFields(userAgent: "RouteUA/1", ip: "198.51.100.8"))
        }
    }

    @Test(
        "What is recorded: a live playlist's session (the header, else _HLS_primary_id) with its device; nothing else",
        arguments: [
            ("/demo/live/video/main.m3u8", "s-1", [:], "s-1"),
            ("/demo/live/video/main.m3u8", nil, ["_HLS_primary_id": "p-1"], "p-1"),
            ("/demo/live/video/seg001.m4s", "s-2", [:], nil),
            ("/demo/vod/video/main.m3u8", "s-3", [:], nil),
        ] as [(String, String?, [String: String], String?)])
    func recorded(path: String, session: String?, query: [String: String], seen: String?) async throws {
        try await withDemoLibrary { library, _, _ in
            let (_, routes) = InterstitialServerTests.fastLane(library)
            let mounted = try #require(library.mounted(path))
            let viewer = RequestViewer(session: session, userAgent: "UA", peer: "127.0.0.1")
            routes.effects.record(mounted, query: query, viewer: viewer)
            #expect(library.sessions.count(Self.channel) == (seen == nil ? 0 : 1))
            if let seen {
                #expect(
                    library.sessions.device(seen, on: Self.channel) == DeviceFields(userAgent: "UA", ip: "127.0.0.1"))
            }
            // Only asset lists tell an ad server the address.
            #expect(routes.effects.decisionAddress(mounted, viewer) == nil)
            let assets = try #require(library.mounted("/demo/live/asset-list.json"))
            #expect(routes.effects.decisionAddress(assets, viewer) == "127.0.0.1")
        }
    }
}
