import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOHTTP1
import Testing

@testable import InterstitialServer

/// The ad server protected (issue 32, item 3): a down or failing ad server opens its breaker and the
/// viewers get the fallback at once, with no retry storm; a slow one has its queue shed at the
/// viewers' deadline; the fallback is the inventory or the configured slate; identical requests
/// in flight share one decision.
@Suite("Ad-server protection")
struct AdServerProtectionTests {
    static let list = "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2&_HLS_primary_id=viewer-1"

    /// The demo with its VOD asset filled by the VAST template `vast` and the `settings` added.
    static func configuration(
        vast: String, deadline: Double = 30, _ settings: [String: JSONValue] = [:]
    ) throws -> ServerConfiguration {
        var configuration = try Harness.demo()
        configuration.vod[0].adServer = try AdServerSettings.decode(
            .object(settings.merging(["vast": .string(vast)]) { given, _ in given }))
        configuration.assetListDeadline = MediaTime(seconds: deadline)
        return configuration
    }

    /// The ad IDs of an asset list's assets (the demo inventory's URIs are `/ads/ID/master.m3u8`).
    static func ads(_ response: TestResponse) throws -> [String] {
        try AssetList.decode(Array(String(buffer: response.body).utf8)).assets.map { asset in
            asset.uri.split(separator: "/").dropLast().last.map(String.init) ?? asset.uri
        }
    }

    /// The value of the metric line starting with `prefix`, if there is one.
    static func metric(_ client: any TestClientProtocol, _ prefix: String) async throws -> String? {
        let response = try await client.get("/metrics", headers: [.authorization: "Bearer \(Harness.token)"])
        let text = String(buffer: response.body)
        return text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }.map {
            String($0.dropFirst(prefix.count + 1))
        }
    }

    @Test(
        "an ad server that answers 500: the breaker opens after its failures, the ad server hears no more, viewers get the inventory"
    )
    func failingAdServer() async throws {
        try await TestOrigin.withOrigin(routes: { _ in .init(status: .internalServerError, body: []) }) { adServer in
            let configuration = try Self.configuration(
                vast: adServer.origin + "/vast?cb=[CACHEBUSTING]",
                ["breaker": .object(["failures": .integer(3), "coolDown": .integer(600)])])
            // On a clock that stands still: however slow the machine, the breaker's cool-down and the
            // decisions' deadlines do not pass, so its count is the failures' alone.
            try await Harness.withServer(configuration, serverClock: ManualServerClock.starting()) { client in
                for _ in 0..<12 {
                    let response = try await client.get(Self.list)
                    #expect(response.status == .ok)
                    #expect(try !Self.ads(response).isEmpty, "the fallback fills the break")
                }
                #expect(adServer.count("/vast") == 3, "no retry storm: \(adServer.count("/vast")) requests")
                let key = "http://127.0.0.1:\(adServer.port)"
                #expect(try await Self.metric(client, "hlsi_ad_server_breaker_state{ad_server=\"\(key)\"}") == "2.0")
                #expect(
                    try await Self.metric(
                        client, "hlsi_ad_server_shed_total{ad_server=\"\(key)\",reason=\"breaker\"}") == "9")
                #expect(
                    try await Self.metric(client, "hlsi_ad_decisions_total{target=\"vod/demo\",path=\"fallback\"}")
                        == "12")
            }
        }
    }

    @Test(
        "an ad server that is down: its requests fail at once (none waits for the deadline), the breaker opens and viewers get the configured slate"
    )
    func downAdServerSlate() async throws {
        // A port that refuses connections, held for the test: no other test's server can take it.
        try await withRefusingPort { closed in
            let configuration = try Self.configuration(
                vast: "http://127.0.0.1:\(closed)/vast?brk=[BREAKID]", deadline: 20,
                ["breaker": .object(["failures": .integer(2), "coolDown": .integer(600)]), "slate": .string("ad2")])
            // On a clock that stands still: no deadline passes, so a timeout cannot be counted by a slow machine.
            try await Harness.withServer(configuration, serverClock: ManualServerClock.starting()) { client in
                for _ in 0..<6 {
                    let response = try await client.get(Self.list)
                    #expect(response.status == .ok)
                    let ads = try Self.ads(response)
                    #expect(!ads.isEmpty && ads.allSatisfy { $0 == "ad2" }, "\(ads)")
                }
                let key = "http://127.0.0.1:\(closed)"
                // A refused connection is a failure, not a wait for the deadline (which cannot pass on the
                // clock standing still); that the client does not retry the connection until its connect
                // timeout is the next test's.
                #expect(try await Self.metric(client, "hlsi_vast_timeouts_total{target=\"vod/demo\"}") == "0")
                #expect(try await Self.metric(client, "hlsi_ad_server_breaker_state{ad_server=\"\(key)\"}") == "2.0")
                #expect(
                    try await Self.metric(client, "hlsi_ad_server_shed_total{ad_server=\"\(key)\",reason=\"breaker\"}")
                        == "4")
            }
        }
    }

    @Test("the ad-server client fails a connection that cannot be made at once: no retries inside the client")
    func noConnectionRetries() {
        for fresh in [false, true] {
            let configuration = InterstitialServer.adServerClientConfiguration(fresh: fresh)
            #expect(configuration.connectionPool.retryConnectionEstablishment == false)
        }
    }

    @Test(
        "a slow ad server limited to one request a second: what the rate does not start is shed at the deadline, every viewer gets the fallback"
    )
    func slowAdServerSheds() async throws {
        try await TestOrigin.withOrigin(routes: { _ in
            .init(contentType: "application/xml", body: Array("<VAST>".utf8), stallAfter: 0)
        }) { adServer in
            // The deadline (30 s) and the rate are on the server's clock, which stands still until all
            // five viewers wait; the ad server's HTTP deadline is the same 30 s of real time.
            let configuration = try Self.configuration(
                vast: adServer.origin + "/vast?cb=[CACHEBUSTING]", deadline: 30, ["maxPerSecond": .integer(1)])
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration, serverClock: clock) { client in
                try await withThrowingTaskGroup(of: [String].self) { group in
                    // Each on a connection of its own: the test client sends one after another.
                    let port = try #require(client.port)
                    @Sendable func viewer() async throws -> [String] {
                        let (status, body) = try await get(port: port, Self.list)
                        #expect(status == 200)
                        return try AssetList.decode(Array(body.utf8)).assets.map(\.uri)
                    }
                    // One token a second: of five viewers at once, one request starts and four wait in
                    // the ad server's queue. All wait when the clock holds the five decisions'
                    // deadlines, 30 s on (whatever else sleeps on it), and the ad server heard one.
                    // Then the deadline passes: the four are shed, the one that started is cut, every
                    // viewer gets the fallback.
                    for _ in 0..<5 { group.addTask { try await viewer() } }
                    #expect(
                        try await eventually {
                            clock.waiting(for: MediaTime(seconds: 30)) == 5 && adServer.count("/vast") == 1
                        })
                    clock.advance(31)
                    for try await ads in group { #expect(!ads.isEmpty, "the fallback fills the break") }
                }
                let key = "http://127.0.0.1:\(adServer.port)"
                let requests = adServer.count("/vast")
                let shed =
                    Int(
                        try await Self.metric(
                            client, "hlsi_ad_server_shed_total{ad_server=\"\(key)\",reason=\"deadline\"}")
                            ?? "0") ?? -1
                #expect(requests == 1, "\(requests) requests")
                #expect(shed == 4, "\(requests) started, \(shed) shed")
                #expect(
                    try await eventually {
                        try await Self.metric(client, "hlsi_ad_server_in_flight{ad_server=\"\(key)\"}") == "0.0"
                    })
            }
        }
    }

    @Test(
        "issue 42: an ad server that answers 400 (nginx, to a 9 KB user agent) is no failure: its breaker stays closed, and the user agent it hears is cut to 512 bytes"
    )
    func refusalsKeepTheBreakerClosed() async throws {
        try await TestOrigin.withOrigin(routes: { _ in .init(status: .badRequest, body: []) }) { adServer in
            let configuration = try Self.configuration(
                vast: adServer.origin + "/vast?cb=[CACHEBUSTING]&ua=[DEVICEUA]",
                ["breaker": .object(["failures": .integer(3), "coolDown": .integer(600)])])
            try await Harness.withServer(configuration) { client in
                let agent = "Bot/1.0 " + String(repeating: "x", count: 9 * 1024)
                for _ in 0..<12 {
                    let response = try await client.get(Self.list, headers: [.userAgent: agent])
                    #expect(response.status == .ok)
                    #expect(try !Self.ads(response).isEmpty, "the fallback fills the break")
                }
                #expect(adServer.count("/vast") == 12, "the breaker stayed closed: \(adServer.count("/vast"))")
                let key = "http://127.0.0.1:\(adServer.port)"
                #expect(try await Self.metric(client, "hlsi_ad_server_breaker_state{ad_server=\"\(key)\"}") == "0.0")
                let heard = adServer.headers("/vast").compactMap { $0["X-Device-User-Agent"].first }
                #expect(heard.count == 12 && heard.allSatisfy { $0.utf8.count == DeviceFields.maximumBytes })
                #expect(heard.first.map { agent.hasPrefix($0) } == true)
                #expect(adServer.requests("/vast").allSatisfy { $0.utf8.count < 2 * 1024 }, "[DEVICEUA] is cut too")
            }
        }
    }

    @Test(
        "issue 42: a decision every viewer shares (no per-viewer macro) carries no viewer's device: no X-Device-* field reaches the ad server"
    )
    func sharedDecisionsCarryNoDevice() async throws {
        try await AdServerTests.withAdServer { adServer in
            let configuration = try Self.configuration(vast: adServer.origin + "/inline?brk=[BREAKID]")
            try await Harness.withServer(configuration) { client in
                let response = try await client.get(
                    Self.list,
                    headers: [.userAgent: "Googlebot/2.1", .init("X-Forwarded-For")!: "203.0.113.7"])
                #expect(try Self.ads(response) == ["a1", "a2"])
                let heard = try #require(adServer.headers("/inline").first)
                #expect(heard["X-Device-User-Agent"].isEmpty && heard["X-Device-IP"].isEmpty, "\(heard)")
            }
        }
        // A template with a per-viewer macro is the viewer's own: its device goes out.
        try await AdServerTests.withAdServer { adServer in
            let configuration = try Self.configuration(vast: adServer.origin + "/inline?sid=[SESSIONID]")
            try await Harness.withServer(configuration) { client in
                _ = try await client.get(Self.list, headers: [.userAgent: "TestPlayer/1.0"])
                let heard = try #require(adServer.headers("/inline").first)
                #expect(heard["X-Device-User-Agent"] == ["TestPlayer/1.0"])
            }
        }
    }

    @Test("an ad server that answers is used live; a template with no viewer macro may coalesce")
    func liveAndShared() async throws {
        try await AdServerTests.withAdServer { adServer in
            let configuration = try Self.configuration(vast: adServer.origin + "/inline?brk=[BREAKID]")
            try await Harness.withServer(configuration) { client in
                let response = try await client.get(Self.list)
                #expect(try Self.ads(response) == ["a1", "a2"])
                #expect(
                    try await Self.metric(client, "hlsi_ad_decisions_total{target=\"vod/demo\",path=\"live\"}") == "1")
            }
        }
        #expect(AdTagTemplate("https://ads.example/v?brk=[BREAKID]&d=[BREAKDURATION]&c=[CONTENTID]").isShared)
        for macro in ["SESSIONID", "DEVICEIP", "DEVICEUA", "CACHEBUSTING", "TIMESTAMP"] {
            #expect(!AdTagTemplate("https://ads.example/v?x=[\(macro)]").isShared, "\(macro)")
        }
    }

    @Test("the protection settings are read with their bounds and written back")
    func settings() throws {
        let settings = try AdServerSettings.decode(
            .object([
                "vast": .string("https://ads.example/v?brk=[BREAKID]"), "maxConcurrent": .integer(8),
                "maxPerSecond": .integer(50), "slate": .string("house-ad"),
                "breaker": .object(["failures": .integer(4), "window": .integer(20), "coolDown": .integer(2)]),
            ]))
        #expect(settings.maximumConcurrent == 8 && settings.maximumPerSecond == 50 && settings.slate == "house-ad")
        #expect(settings.breaker == .init(failures: 4, window: MediaTime(seconds: 20), coolDown: MediaTime(seconds: 2)))
        #expect(try AdServerSettings.decode(settings.jsonValue) == settings)
        let defaults = try AdServerSettings.decode(.object(["vast": .string("https://ads.example/v")]))
        // Without maxPerSecond the rate is learned (issue 43, item 9; docs/ad-decisioning.md).
        #expect(defaults.learnsRate && defaults.gateLimits.learning == AdServerRateLearner.Bounds())
        for (key, value, path) in [
            ("maxConcurrent", JSONValue.integer(0), "maxConcurrent"),
            ("maxPerSecond", .integer(100_001), "maxPerSecond"),
            ("breaker", .object(["coolDown": .integer(0)]), "breaker.coolDown"),
            ("breaker", .object(["failures": .integer(1), "probe": .integer(1)]), "breaker.probe"),
            ("slate", .string("a b"), "slate"),
        ] {
            #expect {
                try AdServerSettings.decode(.object(["vast": .string("https://ads.example/v"), key: value]))
            } throws: { error in
                (error as? APIError)?.path == path
            }
        }
    }

    @Test("identical decisions in flight share one: the followers wait for the first and take its outcome")
    func coalescing() async throws {
        let coalescer = DecisionCoalescer()
        let calls = NIOLockedValueBox(0)
        let (released, release) = AsyncStream<Void>.makeStream()
        let leader = Task {
            await coalescer.share("u") {
                calls.withLockedValue { $0 += 1 }
                for await _ in released { break }
                var outcome = VASTDecisionClient.Outcome()
                outcome.requests = 1
                return outcome
            }
        }
        #expect(try await eventually { calls.withLockedValue { $0 } == 1 })
        let followers = (0..<3).map { _ in
            Task { await coalescer.share("u") { VASTDecisionClient.Outcome() } }
        }
        #expect(try await eventually { coalescer.followers(of: "u") == 3 })
        release.yield()
        release.finish()
        let first = await leader.value
        #expect(!first.coalesced && first.requests == 1)
        for follower in followers {
            let shared = await follower.value
            #expect(shared.coalesced && shared.requests == 0)
        }
        #expect(calls.withLockedValue { $0 } == 1)
        #expect(coalescer.followers(of: "u") == 0)
        // Once done, the next decision is its own.
        #expect(await !coalescer.share("u") { VASTDecisionClient.Outcome() }.coalesced)
    }
}
