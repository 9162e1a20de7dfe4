import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// Decisions made ahead of a live break (issue 32, item 2): the cache's bounds and interning, the
/// prepared decision kept whole, and end to end with a VAST ad server on 127.0.0.1: the sessions
/// that poll the live playlist are decided before the break, each once, and their asset lists are
/// answered from those decisions with the bytes a live decision gives, from any start offset, with
/// `tracking: server` impressions fired when the viewer is answered.
@Suite("Prefetch")
struct PrefetchTests {
    static let channel = Target(.live, "demo")
    static let end = DateTime(nanosecondsSinceEpoch: 1_800_000_000 * 1_000_000_000)

    static func key(_ breakID: String, _ session: String) -> DecisionKey {
        DecisionKey(target: channel, breakID: breakID, session: session)
    }

    @Test("identical decisions are kept once; a break's decisions are dropped together, and at its end")
    func interning() {
        let cache = PrefetchCache()
        let same = Array(repeating: UInt8(ascii: "x"), count: 1000)
        for index in 0..<100 { #expect(cache.store(Self.key("b1", "s\(index)"), same, expires: Self.end)) }
        #expect(cache.store(Self.key("b2", "s0"), Array("other".utf8), expires: Self.end + MediaTime(seconds: 60)))
        #expect(cache.distinct == 2)
        #expect(cache.totals.count == 101)
        #expect(cache.totals.bytes < 1000 + 5 + 101 * (PrefetchCache.keyOverhead + 8))
        #expect(!cache.store(Self.key("b1", "s0"), Array("later".utf8), expires: Self.end), "the first decision stays")
        #expect(cache.decision(Self.key("b1", "s7")) == same)
        #expect(cache.expire(now: Self.end) == 1)
        #expect(cache.decision(Self.key("b1", "s7")) == nil)
        #expect(cache.distinct == 1)
        cache.drop(target: Self.channel, breakID: "b2")
        #expect(cache.totals.count == 0 && cache.totals.bytes == 0 && cache.distinct == 0)
    }

    @Test("the count and byte bounds hold: decisions past them are not kept")
    func bounds() {
        let counted = PrefetchCache(limits: .init(count: 10, bytes: 1 << 20))
        for index in 0..<50 { counted.store(Self.key("b", "s\(index)"), [UInt8(index)], expires: Self.end) }
        #expect(counted.totals.count == 10)
        let sized = PrefetchCache(limits: .init(count: 1000, bytes: 10_000))
        for index in 0..<1000 {
            sized.store(Self.key("b", "s\(index)"), Array("decision \(index)".utf8), expires: Self.end)
        }
        #expect(sized.totals.bytes <= 10_000)
        #expect(sized.totals.count < 1000)
    }

    @Test(
        "issue 42: when full, a break that starts earlier takes the room of the one that starts last; live decisions are kept for followed breaks only"
    )
    func evictionByStart() {
        let cache = PrefetchCache(limits: .init(count: 10, bytes: 1 << 20))
        // A break a hundred years ahead filled the cache first.
        let far = Self.end + MediaTime(seconds: 3_000_000_000)
        for index in 0..<10 { #expect(cache.store(Self.key("far", "s\(index)"), [UInt8(index)], expires: far)) }
        // The next break's decisions push the far one's out, its newest first.
        for index in 0..<4 {
            #expect(cache.store(Self.key("next", "s\(index)"), [UInt8(100 + index)], expires: Self.end))
        }
        #expect(cache.totals.count == 10)
        #expect(cache.contains(Self.key("far", "s5")) && !cache.contains(Self.key("far", "s6")))
        #expect((0..<4).allSatisfy { cache.contains(Self.key("next", "s\($0)")) })
        // A break that starts no earlier than every break kept makes no room.
        #expect(!cache.store(Self.key("later", "s0"), [1], expires: far + MediaTime(seconds: 60)))
        // A live decision is kept only for a break the planner follows.
        let next = PrefetchCache.BreakKey(target: Self.channel, breakID: "next")
        cache.follow([next: Self.end - MediaTime(seconds: 10)])
        #expect(!cache.keepLive(Self.key("break-4900000000", "v"), [9], expires: far))
        #expect(!cache.contains(Self.key("break-4900000000", "v")))
        #expect(cache.keepLive(Self.key("next", "v"), [9], expires: Self.end))
        #expect(cache.follows(next) && cache.totals.count == 10)
    }

    /// The unix seconds of the demo channel's cadence breaks: every 60 s, 30 s into the minute.
    static func cadenceID(after seconds: Int64) -> String {
        let base = Int64(ServerConfiguration.defaultEpoch.nanosecondsSinceEpoch / 1_000_000_000) + 30
        return "break-\(base + 60 * ((seconds - base) / 60 + 1))"
    }

    @Test(
        "issue 42: the asset list of a cadence break further ahead than the look-ahead and the windows, or under another spelling of its ID, is a 404"
    )
    func farAheadAndAliases() async throws {
        let now = Int64(Date().timeIntervalSince1970)
        let next = Self.cadenceID(after: now + 60)
        let seconds = next.dropFirst("break-".count)
        let cases: [(id: String, status: Int)] = [
            (next, 200), ("break-0" + seconds, 404), ("break-%2B" + seconds, 404),
            (Self.cadenceID(after: now + 100 * 365 * 86_400), 404), (Self.cadenceID(after: now + 3_600), 404),
        ]
        try await Harness.withServer(try Harness.demo()) { client in
            for item in cases {
                let path = "/demo/live/asset-list.json?_HLS_interstitial_id=\(item.id)&_HLS_primary_id=v1"
                let response = try await client.get(path)
                #expect(Int(response.status.code) == item.status, "\(item.id)")
            }
        }
    }

    @Test(
        "once per viewer: a key being decided is not decided again, a viewer asking meanwhile waits for it, a decided key is never begun again"
    )
    func oncePerViewer() async {
        let cache = PrefetchCache()
        let key = Self.key("b", "s1")
        #expect(cache.begin(key))
        #expect(!cache.begin(key), "being decided: nothing else asks the ad server for it")
        let decision = Self.prepared("https://ads.example/a/master.m3u8")
        let waiting = Task { await cache.prepared(key, waitingUpTo: MediaTime(seconds: 60)) }
        cache.store(key, decision.encoded(), expires: Self.end)
        cache.finished(key)
        #expect(await waiting.value == decision)
        #expect(!cache.begin(key), "decided (ahead, or live when the viewer asked first): not decided again")
        let other = Self.key("b", "s2")
        #expect(cache.begin(other))
        cache.finished(other)
        #expect(
            await cache.prepared(other, waitingUpTo: MediaTime(seconds: 60)) == nil,
            "a failed decision is not waited for")
        #expect(cache.begin(other), "and may be tried again")
    }

    /// A decision of one ad at `uri`, 4 s long.
    static func prepared(_ uri: String) -> PreparedDecision {
        var prepared = PreparedDecision()
        prepared.entries = [
            .init(
                uri: uri, duration: MediaTime(seconds: 4),
                slot: AdCreativeSignaling.Slot(
                    duration: MediaTime(seconds: 4),
                    tracking: [.init(type: "impression", urls: ["https://t.example/i"])]))
        ]
        return prepared
    }

    @Test(
        "a decision is kept decoded: as stored, or decoded on first use and kept; the decoded form counts its encoded size again, within the bound"
    )
    func keptDecoded() throws {
        let one = Self.prepared("https://ads.example/a/master.m3u8")
        let two = Self.prepared("https://ads.example/b/master.m3u8")
        let (bytes1, bytes2) = (one.encoded(), two.encoded())
        let cache = PrefetchCache()
        let (k1, k2, k3) = (Self.key("b", "s1"), Self.key("b", "s2"), Self.key("b", "s3"))
        #expect(cache.store(k1, bytes1, expires: Self.end, decoded: one))
        let keys = PrefetchCache.keyOverhead + 1 + 2
        #expect(cache.totals.bytes == keys + 2 * bytes1.count, "stored decoded: the bytes counted twice")
        #expect(cache.prepared(k1) == one)
        #expect(cache.store(k2, bytes2, expires: Self.end))
        #expect(cache.totals.bytes == 2 * keys + 2 * bytes1.count + bytes2.count, "not decoded yet")
        #expect(cache.prepared(k2) == two, "decoded on first use")
        #expect(cache.totals.bytes == 2 * keys + 2 * bytes1.count + 2 * bytes2.count, "and kept decoded")
        // The same decision for another viewer shares the decoded form.
        #expect(cache.store(k3, bytes2, expires: Self.end))
        #expect(cache.prepared(k3) == two)
        #expect(cache.totals.bytes == 3 * keys + 2 * bytes1.count + 2 * bytes2.count)
        // Taken and dropped: nothing is left counted.
        #expect(cache.take(k1) == bytes1)
        cache.drop(target: Self.channel, breakID: "b")
        #expect(cache.totals.count == 0 && cache.totals.bytes == 0)
        #expect(cache.prepared(k2) == nil)
        // Bytes that are not a decision decode to nothing (and are not kept decoded).
        #expect(cache.store(k1, [1, 2, 3], expires: Self.end))
        #expect(cache.prepared(k1) == nil)
        #expect(cache.totals.bytes == keys + 3)
        // No room for the decoded form: it is decoded on each use, never kept past the bound.
        let tight = PrefetchCache(limits: .init(count: 10, bytes: keys + bytes1.count + 10))
        #expect(tight.store(k1, bytes1, expires: Self.end, decoded: one))
        #expect(tight.totals.bytes == keys + bytes1.count)
        #expect(tight.prepared(k1) == one)
        #expect(tight.totals.bytes == keys + bytes1.count)
    }

    @Test("a prepared decision is kept whole through its encoding")
    func encoding() throws {
        var verification = VASTVerification(vendor: "v.example")
        verification.javaScriptResources = [VASTResourceURL(url: "https://v.example/v.js")]
        verification.parameters = "p=1"
        let slot = AdCreativeSignaling.Slot(
            duration: MediaTime(seconds: 4), identifiers: [VASTUniversalAdId(value: "u1", idRegistry: "reg")],
            tracking: [
                .init(type: "impression", urls: ["https://t.example/i"]),
                .init(type: "progress", urls: ["https://t.example/p"], offset: MediaTime(seconds: 2)),
            ], verifications: [verification], clickThrough: "https://c.example", skipOffset: MediaTime(seconds: 1))
        var prepared = PreparedDecision()
        prepared.entries = [
            .init(uri: "https://ads.example/a/master.m3u8", duration: MediaTime(seconds: 4), slot: slot)
        ]
        let decoded = try #require(PreparedDecision(encoded: prepared.encoded()))
        #expect(decoded.entries.map(\.slot.json) == prepared.entries.map(\.slot.json))
        #expect(decoded.entries.map(\.uri) == prepared.entries.map(\.uri))
        #expect(PreparedDecision(encoded: Array("{}".utf8)) == nil)
        #expect(prepared.encoded().count < 600, "compact: \(prepared.encoded().count) bytes")
    }

    @Test("the prefetch setting: on by default, false turns it off, a window caps the retrieval window")
    func settings() throws {
        func decode(_ prefetch: JSONValue?) throws -> AdServerSettings {
            var object: [String: JSONValue] = ["vast": .string("https://ads.example/v")]
            object["prefetch"] = prefetch
            return try AdServerSettings.decode(.object(object))
        }
        #expect(try decode(nil).prefetch.enabled)
        #expect(try decode(nil).jsonValue == (try decode(nil)).jsonValue)
        #expect(try !decode(.bool(false)).prefetch.enabled)
        let capped = try decode(.object(["window": .integer(60)]))
        #expect(capped.prefetch.windows.maximumRetrieval == MediaTime(seconds: 60))
        #expect(try AdServerSettings.decode(capped.jsonValue) == capped)
        #expect(try AdServerSettings.decode(decode(.bool(false)).jsonValue).prefetch.enabled == false)
        for bad: JSONValue in [.object(["window": .integer(5)]), .object(["other": .integer(1)]), .string("on")] {
            #expect(throws: APIError.self) { try decode(bad) }
        }
        let limits = try ServerLimits.decode(
            .object(["prefetchSessions": .integer(1000), "prefetchBytes": .integer(1 << 20)]), path: "limits")
        #expect(limits.prefetchSessions == 1000 && limits.prefetchBytes == 1 << 20)
    }

    /// Runs `body` with a test ad server answering `/vast` with ``vast(_:)`` (which names the ad
    /// server's own origin, so it is set once its port is known) and the demo configuration without
    /// its schedules.
    static func withVASTServer(_ body: (TestOrigin, ServerConfiguration) async throws -> Void) async throws {
        let answer = NIOLockedBody()
        try await TestOrigin.withOrigin(routes: { path in
            path == "/vast" ? .init(contentType: "application/xml", body: answer.bytes) : .init()
        }) { adServer in
            answer.set(Array(vast(adServer.origin).utf8))
            var configuration = try Harness.demo()
            configuration.seed.schedules = []
            try await body(adServer, configuration)
        }
    }

    /// A pod of two ads of 4 and 6 s with HLS files, impressions and tracking.
    static func vast(_ origin: String) -> String {
        func ad(_ id: String, _ seconds: Int) -> String {
            """
            <Ad id="\(id)" sequence="\(seconds)"><InLine><AdSystem>t</AdSystem><AdTitle>\(id)</AdTitle>
              <Impression>\(origin)/imp-\(id)</Impression>
              <Creatives><Creative id="c-\(id)"><UniversalAdId idRegistry="r">u-\(id)</UniversalAdId><Linear>
                <Duration>00:00:0\(seconds)</Duration>
                <TrackingEvents><Tracking event="start">\(origin)/start-\(id)</Tracking></TrackingEvents>
                <MediaFiles><MediaFile delivery="streaming" type="application/x-mpegURL" width="1280" height="720">\(origin)/ads/\(id)/master.m3u8</MediaFile></MediaFiles>
              </Linear></Creative></Creatives>
            </InLine></Ad>
            """
        }
        return "<VAST version=\"4.2\">\(ad("a1", 4))\(ad("a2", 6))</VAST>"
    }

    /// Waits for `condition`, at most `seconds`.
    static func until(_ seconds: Double = 300, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test(
        "end to end: polling sessions are decided before the break, once each; their asset lists come from those decisions, as a live decision's"
    )
    func endToEnd() async throws {
        try await PrefetchTests.withVASTServer { adServer, demo in
            var configuration = demo
            configuration.live[0].adServer = try AdServerSettings.decode(
                .object([
                    "vast": .string(adServer.origin + "/vast?sid=[SESSIONID]&brk=[BREAKID]&cb=[CACHEBUSTING]"),
                    "tracking": .string("server"),
                ]))
            // On the server's clock: the viewers play (they reload their playlists a playing span
            // apart), then the break is made 25 s on, its retrieval window [-3 s, 7 s) from then. The
            // clock ticks 3 s into the window, and stops there: however late the machine runs the
            // decisions, they are made before the break, and no deadline of theirs (5 s on) passes.
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration, serverClock: clock) { client in
                // v4: a session given as _HLS_primary_id only.
                try await PlayingViewers.play(
                    ["v1", "v2", "v3"].map { (client, PlayingViewers.videoPath, $0) }
                        + [(client, "/demo/live/audio-en/main.m3u8?_HLS_primary_id=v4", nil)], clock: clock)
                let start = clock.wall + MediaTime(seconds: 25)
                let created = try await client.admin(
                    .post, "breaks", #"{"id":"herd","target":"live/demo","date":"\#(start.iso8601)","duration":10}"#)
                #expect(created.status == .created, "\(created.text)")
                let sessions = ["v1", "v2", "v3", "v4"]
                let ticker = tick(clock, to: clock.now + MediaTime(seconds: 3))
                defer { ticker.cancel() }
                func asked(_ session: String) -> Int {
                    adServer.requests("/vast").filter { $0.contains("sid=\(session)&") }.count
                }
                let decided = await Self.until { sessions.allSatisfy { asked($0) == 1 } }
                #expect(decided, "\(adServer.requests("/vast"))")
                #expect(clock.wall < start, "decided before the break")
                #expect(
                    try await Self.until {
                        try await AdServerProtectionTests.metric(
                            client, "hlsi_ad_decisions_total{target=\"live/demo\",path=\"prefetched\"}") == "4"
                    })

                func list(_ viewer: String, offset: Int? = nil) async throws -> String {
                    let query = "_HLS_interstitial_id=herd&_HLS_primary_id=\(viewer)"
                    let response = try await client.get(
                        "/demo/live/asset-list.json?" + query + (offset.map { "&_HLS_start_offset=\($0)" } ?? ""))
                    #expect(response.status == .ok)
                    return response.text
                }
                let ahead = try await list("v1")
                let live = try await list("live-1")
                #expect(ahead == live)
                #expect(ahead.contains("/ads/a1/master.m3u8") && ahead.contains("/ads/a2/master.m3u8"), "\(ahead)")
                #expect(!ahead.contains("imp-a1"), "tracking: server leaves impressions out")
                let aheadLate = try await list("v2", offset: 5)
                let liveLate = try await list("live-2", offset: 5)
                #expect(aheadLate == liveLate)
                #expect(aheadLate.contains("/ads/a1/master.m3u8") && !aheadLate.contains("/ads/a2/master.m3u8"))
                #expect(
                    try await AdServerProtectionTests.metric(
                        client, "hlsi_ad_decisions_total{target=\"live/demo\",path=\"prefetch\"}") == "2")
                #expect(
                    try await AdServerProtectionTests.metric(
                        client, "hlsi_ad_decisions_total{target=\"live/demo\",path=\"live\"}") == "2")
                // Impressions are fired when each viewer is answered: a1 four times, a2 twice.
                #expect(await Self.until { adServer.count("/imp-a1") == 4 && adServer.count("/imp-a2") == 2 })
                // The ad server heard each prefetched session once, and each live viewer once.
                #expect(sessions.allSatisfy { asked($0) == 1 })
                #expect(adServer.requests("/vast").count == 6)
                // The viewers who only asked for an asset list are seen too (a CDN may answer their
                // playlists); decided live already, they are not decided ahead again. The audience's
                // gauge is set on the prefetcher's ticks: the clock ticks 1 s more (still in the window).
                let counting = tick(clock, to: clock.now + MediaTime(seconds: 1))
                defer { counting.cancel() }
                #expect(
                    try await Self.until {
                        try await AdServerProtectionTests.metric(client, "hlsi_viewer_sessions") == "6.0"
                    })
                // Playing: the four that reloaded, not the two seen on one asset list each.
                #expect(try await AdServerProtectionTests.metric(client, "hlsi_viewer_sessions_playing") == "4.0")
                #expect(adServer.requests("/vast").count == 6)
            }
        }
    }
}

extension PrefetchTests {
    /// Runs `body` against a replica sharing `ledger`.
    static func withReplica(
        _ configuration: ServerConfiguration, ledger: any DecisionLedger, clock: any ServerClock = SystemServerClock(),
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let ports = LiveServer.ports()
        let server = try InterstitialServer(
            configuration: configuration, decisionLedger: ledger, logger: Harness.logger, clock: clock,
            onServerRunning: { ports.continuation.yield($0) })
        let client = server.makeHTTPClient()
        do {
            try await LiveServer.run(server.application(client: client), ports: ports) { client in
                try await body(client)
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}

/// A body the test sets once its ad server's port is known.
final class NIOLockedBody: Sendable {
    private let box = NIOLockedValueBox<[UInt8]>([])
    var bytes: [UInt8] { box.withLockedValue { $0 } }
    func set(_ bytes: [UInt8]) { box.withLockedValue { $0 = bytes } }
}
