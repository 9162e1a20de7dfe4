import AdDecisioning
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import InterstitialServer

/// Issue 37, items 7 and 8 through the server: relay URLs signed with the store's secret (shared by
/// replicas), expiring, budgeted by address and viewer, counted when dropped; the server's own
/// impressions never pushed out by relayed beacons.
@Suite("Relayed beacons: shared secret, expiry, budgets, separate queues")
struct BeaconFloodTests {
    static let logger = Logger(label: "hlsi.test.beacons")

    /// The relay URLs of the impressions of one asset list asked as `viewer`.
    static func impressions(_ client: any TestClientProtocol, viewer: String) async throws -> [String] {
        let list = try AssetList.decode(
            Array(try await client.text(AdServerTests.list.replacingOccurrences(of: "viewer-1", with: viewer)).utf8))
        let slot = try AdCreativeSignaling(json: try #require(list.assets.first?.otherKeys[AdCreativeSignaling.key]))
        let urls = try #require(slot.slots.first?.tracking.first { $0.type == "impression" }?.urls)
        return urls.map { url in url.range(of: "/beacon/").map { String(url[$0.lowerBound...]) } ?? url }
    }

    static func metrics(_ client: any TestClientProtocol) async throws -> String {
        try await client.get("/metrics", headers: [.authorization: "Bearer \(Harness.token)"]).text
    }

    @Test("replicas on one store sign with its secret: a URL one wrote is passed on by the other")
    func replicasShareTheSecret() async throws {
        try await AdServerTests.withAdServer { adServer in
            let configuration = try AdServerTests.configuration(adServer.origin, tracking: "relay")
            let store = try SQLiteStore(path: nil)
            try await Harness.withServer(configuration, store: store) { a in
                let urls = try await Self.impressions(a, viewer: "viewer-1")
                try await Harness.withServer(configuration, store: store) { b in
                    let status = try await b.get(urls[0]).status
                    #expect(status == .noContent)
                }
            }
            #expect(
                try await eventually {
                    adServer.requests("/imp-a1").count + adServer.requests("/imp-wrapper").count == 1
                })
        }
    }

    @Test("an expired URL gets 410 and is not passed on; it is counted as dropped")
    func expired() async throws {
        try await AdServerTests.withAdServer { adServer in
            var configuration = try AdServerTests.configuration(adServer.origin, tracking: "relay")
            configuration.limits.beaconLifetime = MediaTime(seconds: 600)
            let clock = TestClock(DateTime(Date()))
            try await Harness.withServer(configuration, clock: clock) { client in
                let urls = try await Self.impressions(client, viewer: "viewer-1")
                clock.advance(600)
                // HEAD says the same, and counts nothing.
                #expect(try await client.execute(uri: urls[0], method: .head).status.code == 410)
                let response = try await client.get(urls[0])
                #expect(response.status.code == 410)
                #expect(response.text.contains(#""code":"beacon-expired""#), "\(response.text)")
                #expect(try await Self.metrics(client).contains(#"hlsi_beacons_dropped_total{reason="expired"} 1"#))
            }
            #expect(adServer.requests("/imp-a1").isEmpty && adServer.requests("/imp-wrapper").isEmpty)
        }
    }

    @Test("one client's self-minted beacons, under many viewer IDs, stop at its address's budget; others' pass")
    func addressBudget() async throws {
        try await AdServerTests.withAdServer { adServer in
            var configuration = try AdServerTests.configuration(adServer.origin, tracking: "relay")
            configuration.limits.beaconsPerAddress = 4
            // A clock that stands still: the budget's minute does not turn during the test.
            try await Harness.withServer(configuration, clock: TestClock(DateTime(Date()))) { client in
                // From loopback (trusted), X-Forwarded-For names the client.
                let attacker: HTTPFields = [.init("X-Forwarded-For")!: "203.0.113.66"]
                var statuses: [Int] = []
                for index in 0..<5 {
                    for url in try await Self.impressions(client, viewer: "minted-\(index)") {
                        statuses.append(try await client.get(url, headers: attacker).status.code)
                    }
                }
                #expect(statuses == Array(repeating: 204, count: 4) + Array(repeating: 429, count: 6), "\(statuses)")
                let viewer: HTTPFields = [.init("X-Forwarded-For")!: "198.51.100.7"]
                for url in try await Self.impressions(client, viewer: "honest") {
                    #expect(try await client.get(url, headers: viewer).status == .noContent)
                }
                let text = try await Self.metrics(client)
                #expect(text.contains(#"hlsi_beacons_dropped_total{reason="budget"} 6"#), "\(text)")
                #expect(text.contains(#"hlsi_beacons_seen_total{type="impression"} 6"#), "\(text)")
            }
            #expect(try await eventually { adServer.requests("/imp-a1").count == 3 })
        }
    }

    @Test("a flood of relayed beacons pushes out none of the server's own impressions; the dropped are counted")
    func separateQueues() async throws {
        try await TestOrigin.withOrigin(routes: { _ in .init(contentType: "text/plain", body: []) }) { origin in
            let metrics = ServerMetrics()
            let dispatcher = TrackingDispatcher(
                fetcher: AdServerFetcher(
                    client: HTTPClient.shared, policy: .allowingLoopback, clock: SystemServerClock()),
                logger: Self.logger,
                metrics: metrics, capacity: 16, relayedCapacity: 16)
            // Queued before the dispatcher runs: the impressions are the oldest waiting.
            dispatcher.send((0..<10).map { origin.origin + "/imp/\($0)" }, kind: "impression")
            dispatcher.send((0..<200).map { origin.origin + "/relayed/\($0)" }, kind: "relayed")
            #expect(dispatcher.snapshot.dropped == 184)
            let text = metrics.renderText()
            #expect(text.contains(#"hlsi_tracking_dropped_total{kind="relayed"} 184"#), "\(text)")
            #expect(!text.contains(#"hlsi_tracking_dropped_total{kind="impression"}"#), "\(text)")
            let running = Task { try await dispatcher.run() }
            defer { running.cancel() }
            let impressions = try await eventually { (0..<10).allSatisfy { origin.count("/imp/\($0)") == 1 } }
            #expect(impressions, "every impression is sent")
            let sent = try await eventually { dispatcher.snapshot.sent == 26 }
            #expect(sent, "the impressions and the 16 relayed beacons kept: \(dispatcher.snapshot)")
        }
    }
}
