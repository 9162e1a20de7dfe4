import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// Standing decisions (issue 43, items 1 and 2): with `prefetch.expectedBreak`, each viewer seen on
/// a live channel is decided for the channel's next break before any cue; a break the viewer has
/// no decision made ahead for (one that shows only as it starts) takes it, fitted to its duration
/// (R30), and consumes it: the viewer is decided again for the next break.
@Suite("Standing decisions")
struct StandingDecisionTests {
    static let channel = Target(.live, "demo")

    @Test("the standing break: named by its refresh period, decided in its first half, kept into the next")
    func periods() throws {
        var settings = PrefetchSettings()
        #expect(StandingBreak(target: Self.channel, settings: settings, at: DateTime(nanosecondsSinceEpoch: 0)) == nil)
        settings.expectedBreak = MediaTime(seconds: 30)
        let at = DateTime(nanosecondsSinceEpoch: 1_800_000_100 * 1_000_000_000)
        let standing = try #require(StandingBreak(target: Self.channel, settings: settings, at: at))
        // 1,800,000,100 s / 300 s: period 6,000,000, begun 100 s ago.
        #expect(standing.id == "standing-6000000")
        #expect(standing.begins == at - MediaTime(seconds: 100))
        #expect(standing.window == standing.begins..<(standing.begins + MediaTime(seconds: 150)))
        #expect(standing.end == standing.begins + MediaTime(seconds: 450))
        #expect(standing.duration == MediaTime(seconds: 30))
        #expect(
            standing.lookups(session: "v1").map(\.breakID) == ["standing-6000000", "standing-5999999"])
        settings.enabled = false
        #expect(StandingBreak(target: Self.channel, settings: settings, at: at) == nil)
        // The settings round trip, with their bounds.
        var reader = try PrefetchSettings.decode(
            .object(["expectedBreak": .number(30), "refresh": .number(120)]), path: "prefetch")
        #expect(reader.expectedBreak == MediaTime(seconds: 30) && reader.refresh == MediaTime(seconds: 120))
        reader = try PrefetchSettings.decode(try #require(reader.jsonValue), path: "prefetch")
        #expect(reader.refresh == MediaTime(seconds: 120))
        #expect(throws: APIError.self) {
            try PrefetchSettings.decode(.object(["expectedBreak": .number(1)]), path: "prefetch")
        }
    }

    @Test("the cache caps standing decisions apart, counts them per channel, and a taken one is gone")
    func cap() {
        let cache = PrefetchCache(limits: .init(count: 100, bytes: 1 << 20, standing: 3))
        let end = DateTime(nanosecondsSinceEpoch: 1_800_000_000 * 1_000_000_000)
        for index in 0..<5 {
            cache.store(
                DecisionKey(target: Self.channel, breakID: "standing-1", session: "s\(index)"), [1], expires: end)
        }
        #expect(cache.standing == [Self.channel: 3])
        #expect(cache.store(DecisionKey(target: Self.channel, breakID: "b1", session: "s9"), [1], expires: end))
        #expect(cache.take(DecisionKey(target: Self.channel, breakID: "standing-1", session: "s0")) == [1])
        #expect(cache.standing == [Self.channel: 2])
        #expect(cache.take(DecisionKey(target: Self.channel, breakID: "standing-1", session: "s0")) == nil)
    }

    @Test(
        "end to end: viewers seen are decided for the next break; a break that shows as it starts takes each one's, fitted, and consumes it"
    )
    func endToEnd() async throws {
        try await PrefetchTests.withVASTServer { adServer, demo in
            var configuration = demo
            configuration.live[0].adServer = try AdServerSettings.decode(
                .object([
                    "vast": .string(
                        adServer.origin
                            + "/vast?sid=[SESSIONID]&brk=[BREAKID]&dur=[BREAKDURATION]&ua=[DEVICEUA]&cb=[CACHEBUSTING]"),
                    "prefetch": .object(["expectedBreak": .number(30)]),
                ]))
            // On the server's clock, which ticks 3 s for the prefetcher to decide once the viewers are
            // playing (they reload a playing span apart) (and again once one is consumed), then stands
            // still: no decision's deadline (5 s) passes, however late a loaded machine makes it.
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration, serverClock: clock) { client in
                try await PlayingViewers.play(["v1", "v2"], on: client, clock: clock)
                func standing(_ session: String) -> [String] {
                    adServer.requests("/vast").filter { $0.contains("sid=\(session)&brk=standing-") }
                }
                let deciding = tick(clock, to: clock.now + MediaTime(seconds: 3))
                defer { deciding.cancel() }
                #expect(
                    await PrefetchTests.until { standing("v1").count == 1 && standing("v2").count == 1 },
                    "\(adServer.requests("/vast"))")
                // Seen in the metrics: the decisions kept and the expected break, per channel.
                #expect(
                    try await PrefetchTests.until {
                        try await AdServerProtectionTests.metric(
                            client, "hlsi_standing_decisions{target=\"live/demo\"}") == "2.0"
                    })
                #expect(
                    try await AdServerProtectionTests.metric(
                        client, "hlsi_expected_break_seconds{target=\"live/demo\"}") == "30.0")
                // Asked for a break of the expected length.
                #expect(standing("v1").allSatisfy { $0.contains("dur=30") })
                // A break that shows as it starts: begun 2 s ago, 5 s long; nothing decided ahead for it.
                await deciding.value
                let start = clock.wall - MediaTime(seconds: 2)
                let created = try await client.admin(
                    .post, "breaks", #"{"id":"cue","target":"live/demo","date":"\#(start.iso8601)","duration":5}"#)
                #expect(created.status == .created, "\(created.text)")
                // Nothing is known of the viewer's device before its first asset list.
                #expect(standing("v1").allSatisfy { !$0.contains("TestTV") })
                let list = try await client.get(
                    "/demo/live/asset-list.json?_HLS_interstitial_id=cue&_HLS_primary_id=v1",
                    headers: [.userAgent: "TestTV/1.0"])
                #expect(list.status == .ok)
                // R30: the ads that fit 5 s, in the ad server's order: a1 (4 s), not a2 (6 s).
                #expect(list.text.contains("/ads/a1/master.m3u8") && !list.text.contains("/ads/a2/"), "\(list.text)")
                #expect(adServer.requests("/vast").filter { $0.contains("brk=cue") }.isEmpty, "not asked on the cue")
                #expect(
                    try await AdServerProtectionTests.metric(
                        client, "hlsi_ad_decisions_total{target=\"live/demo\",path=\"standing\"}") == "1")
                // Consumed: v1 is decided again for the next break; v2's is untouched.
                let redeciding = tick(clock, to: clock.now + MediaTime(seconds: 3))
                defer { redeciding.cancel() }
                #expect(await PrefetchTests.until { standing("v1").count == 2 }, "\(adServer.requests("/vast"))")
                // Item 5: the new one carries the device fields seen on the viewer's asset list.
                #expect(standing("v1").last?.contains("&ua=TestTV%2F1.0&") == true, "\(standing("v1"))")
                #expect(standing("v2").count == 1)
                // A viewer without one is decided on asking.
                let other = try await client.get(
                    "/demo/live/asset-list.json?_HLS_interstitial_id=cue&_HLS_primary_id=v9")
                #expect(other.status == .ok)
                #expect(adServer.requests("/vast").contains { $0.contains("sid=v9&brk=cue") })
            }
        }
    }
    @Test(
        "replicas: a cue's viewer whose standing decision is in memory is answered from it, with no ledger read and no store round trip on the request path",
        arguments: [0, 5])
    func answeredFromMemoryOnReplicas(earlierRequests: Int) async throws {
        try await PrefetchTests.withVASTServer { adServer, demo in
            var configuration = demo
            configuration.live[0].adServer = try AdServerSettings.decode(
                .object([
                    "vast": .string(adServer.origin + "/vast?sid=[SESSIONID]&brk=[BREAKID]&cb=[CACHEBUSTING]"),
                    "prefetch": .object(["expectedBreak": .number(30)]),
                ]))
            // A store and a ledger shared with other replicas, that count what reaches them; the
            // store says every viewer asked `earlierRequests` times before (5: a request that waited
            // for it would be a rebind, decided live; 0: one that read the ledger after it would
            // still take its standing decision).
            let ledger = CountingLedger(LocalDecisionLedger(isShared: true))
            let store = try SharedCountingStore(ledger: ledger, earlierRequests: earlierRequests)
            // On the server's clock, which ticks 3 s for the prefetcher once the viewer plays, then
            // stands still.
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration, store: store, serverClock: clock) { client in
                try await PlayingViewers.play(["v1"], on: client, clock: clock)
                let deciding = tick(clock, to: clock.now + MediaTime(seconds: 3))
                defer { deciding.cancel() }
                #expect(
                    await PrefetchTests.until {
                        adServer.requests("/vast").contains { $0.contains("sid=v1&brk=standing-") }
                            && ledger.calls.published >= 1
                    }, "\(adServer.requests("/vast"))")
                // The gauges are set on the prefetcher's ticks: 2 s more, the decision kept.
                await deciding.value
                let counting = tick(clock, to: clock.now + MediaTime(seconds: 2))
                defer { counting.cancel() }
                #expect(
                    try await PrefetchTests.until {
                        try await AdServerProtectionTests.metric(
                            client, "hlsi_standing_decisions{target=\"live/demo\"}") == "1.0"
                    })
                // A break that shows as it starts: begun 2 s ago, 5 s long.
                await counting.value
                let start = clock.wall - MediaTime(seconds: 2)
                let created = try await client.admin(
                    .post, "breaks", #"{"id":"cue","target":"live/demo","date":"\#(start.iso8601)","duration":5}"#)
                #expect(created.status == .created, "\(created.text)")
                let before = ledger.calls
                let list = try await client.get(
                    "/demo/live/asset-list.json?_HLS_interstitial_id=cue&_HLS_primary_id=v1")
                #expect(list.status == .ok)
                #expect(list.text.contains("/ads/a1/master.m3u8"), "\(list.text)")
                #expect(
                    try await AdServerProtectionTests.metric(
                        client, "hlsi_ad_decisions_total{target=\"live/demo\",path=\"standing\"}") == "1")
                #expect(adServer.requests("/vast").filter { $0.contains("brk=cue") }.isEmpty, "not asked on the cue")
                // No read of the ledger for a break no replica follows.
                #expect(ledger.calls.decisions == before.decisions, "\(ledger.calls) after \(before)")
                // The store still hears of the request, after the answer.
                #expect(await PrefetchTests.until { store.viewerCounts >= 1 })
            }
        }
    }
}

/// A ledger that counts the calls reaching the ledger it wraps (every call is passed on).
final class CountingLedger: DecisionLedger {
    struct Calls: Equatable, CustomStringConvertible {
        var claims = 0
        var decisions = 0
        var published = 0
        var description: String { "claims \(claims), decisions \(decisions), published \(published)" }
    }

    let base: any DecisionLedger
    private let box = NIOLockedValueBox(Calls())

    init(_ base: any DecisionLedger) { self.base = base }

    var calls: Calls { box.withLockedValue { $0 } }
    var isShared: Bool { base.isShared }

    func claim(_ keys: [DecisionKey], owner: String, until: DateTime, now: DateTime) async throws -> Set<DecisionKey> {
        box.withLockedValue { $0.claims += 1 }
        return try await base.claim(keys, owner: owner, until: until, now: now)
    }

    func publish(_ decisions: [DecisionKey: [UInt8]], expires: DateTime) async throws {
        box.withLockedValue { $0.published += 1 }
        try await base.publish(decisions, expires: expires)
    }

    func decisions(_ keys: [DecisionKey]) async throws -> [DecisionKey: [UInt8]] {
        box.withLockedValue { $0.decisions += 1 }
        return try await base.decisions(keys)
    }

    func published(
        target: Target, breaks: [String], after cursor: Int64, limit: Int
    ) async throws -> (decisions: [(DecisionKey, [UInt8])], cursor: Int64) {
        try await base.published(target: target, breaks: breaks, after: cursor, limit: limit)
    }

    func prune(now: DateTime) async throws -> Int { try await base.prune(now: now) }
}

/// A store shared with other replicas (in memory), with `ledger`, whose viewer counts say every viewer
/// asked `earlierRequests` times before, and count the requests that reach them.
final class SharedCountingStore: ServerStore {
    let base: SQLiteStore
    let ledger: any DecisionLedger
    let earlierRequests: Int
    private let counts = NIOLockedValueBox(0)

    init(ledger: any DecisionLedger, earlierRequests: Int) throws {
        base = try SQLiteStore(path: nil)
        self.ledger = ledger
        self.earlierRequests = earlierRequests
    }

    var isShared: Bool { true }
    var decisionLedger: (any DecisionLedger)? { ledger }
    /// The viewer requests counted.
    var viewerCounts: Int { counts.withLockedValue { $0 } }

    func load() throws -> StoredState { try base.load() }
    func write(_ changes: [StoreChange]) async throws { try await base.write(changes) }
    func changeCount() async throws -> Int64 { 0 }
    func servedValues(for keys: [ServedKey]) async throws -> [ServedKey: AttributeList] {
        try await base.servedValues(for: keys)
    }
    func countViewerRequest(viewer: String, target: Target, id: String, expiry: Duration) async throws -> Int? {
        counts.withLockedValue { $0 += 1 }
        return earlierRequests
    }
    func pruneViewerRequests(limit: Int) async throws -> Int { 0 }
    func close() throws { try base.close() }
}
