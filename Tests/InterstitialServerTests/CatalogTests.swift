import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The admin rules of ``Catalog``, driven directly: each is decided inside the store transaction.
@Suite("Catalog rules")
struct CatalogTests {
    static let now = DateTime(iso8601: "2026-03-01T12:00:00Z")!

    struct Fixture {
        let configuration: ServerConfiguration
        let state: ServerState
        let catalog: Catalog
        var channel: ServerConfiguration.Content { configuration.live[0] }
        var target: Target { Target(.live, channel.id) }

        init(store: any ServerStore) throws {
            configuration = try Harness.demo()
            state = try ServerState(store: store)
            catalog = Catalog(
                configuration: configuration, state: state,
                planner: { content, target, state in
                    BreakPlanner(
                        target: target, state: state, assetListURI: content.path + "/asset-list.json",
                        adURI: { $0.uri })
                },
                liveEdge: { _, now in now + MediaTime(seconds: 6) })
        }

        /// A live break starting `offset` seconds from ``CatalogTests/now``.
        func liveBreak(
            _ id: String, at offset: Double, duration: Double, playoutLimit: Double? = nil, ad: String? = nil
        ) -> Break {
            var request = InsertionRequest(id: id)
            request.date = CatalogTests.now + MediaTime(seconds: offset)
            request.duration = MediaTime(seconds: duration)
            request.playoutLimit = playoutLimit.map { MediaTime(seconds: $0) }
            return Break(target: target, interstitial: request, ad: ad)
        }

        /// Serves a break's date range (as a playlist request would), recorded in memory.
        func serve(_ id: String) throws {
            let planner = catalog.planner(channel, target, state.snapshot)
            let timeline = BreakPlanner.Timeline.live(
                epoch: channel.epoch, window: (CatalogTests.now - MediaTime(seconds: 60))..<CatalogTests.now,
                lookahead: .zero)
            let planned = try #require(planner.lookup(id: id, timeline))
            let attributes = try #require(planned.firstServing)
            #expect(state.claimServed([(ServedKey(target, id), attributes)]) != nil)
        }
    }

    @Test(
        "An early return compares the new limit with the break's duration D, not with a playout limit it has (R3, R12)")
    func earlyReturnAgainstDuration() async throws {
        let fixture = try Fixture(store: SQLiteStore(path: nil))
        // D = 30 s; the tag's X-PLAYOUT-LIMIT of 10 s is not D.
        try await fixture.catalog.createBreak(fixture.liveBreak("limited", at: -20, duration: 30, playoutLimit: 10))
        let done = try await fixture.catalog.earlyReturn(fixture.channel, breakID: "limited", now: Self.now)
        #expect(done == Catalog.EarlyReturn(id: "limited", playoutLimit: MediaTime(seconds: 20), start: done.start))
        #expect(fixture.state.snapshot.earlyReturns[ServedKey(fixture.target, "limited")] == MediaTime(seconds: 20))
        await expectRefusal(409, "already-returned") {
            try await fixture.catalog.earlyReturn(fixture.channel, breakID: "limited", now: Self.now)
        }
        // 40 s into a 30 s break: over.
        try await fixture.catalog.createBreak(fixture.liveBreak("over", at: -40, duration: 30))
        await expectRefusal(409, "break-over") {
            try await fixture.catalog.earlyReturn(fixture.channel, breakID: "over", now: Self.now)
        }
        try await fixture.catalog.createBreak(fixture.liveBreak("later", at: 10, duration: 30))
        await expectRefusal(409, "no-break") {
            try await fixture.catalog.earlyReturn(fixture.channel, breakID: "later", now: Self.now)
        }
        #expect(fixture.state.snapshot.earlyReturns.count == 1)
    }

    @Test("Without an ID, the early return ends the latest break that has started")
    func earlyReturnLatest() async throws {
        let fixture = try Fixture(store: SQLiteStore(path: nil))
        await expectRefusal(409, "no-break") {
            try await fixture.catalog.earlyReturn(fixture.channel, breakID: nil, now: Self.now)
        }
        try await fixture.catalog.createBreak(fixture.liveBreak("first", at: -50, duration: 60))
        try await fixture.catalog.createBreak(fixture.liveBreak("second", at: -5, duration: 60))
        let done = try await fixture.catalog.earlyReturn(fixture.channel, breakID: nil, now: Self.now)
        #expect(done.id == "second" && done.playoutLimit == MediaTime(seconds: 5))
    }

    @Test("A served live break cannot change or go while it may be in the live window (§6.2.1)")
    func servedBreakWindow() async throws {
        let fixture = try Fixture(store: SQLiteStore(path: nil))
        let item = fixture.liveBreak("served", at: -10, duration: 30)
        try await fixture.catalog.createBreak(item)
        try fixture.serve("served")
        var changed = item
        changed.interstitial.duration = MediaTime(seconds: 20)
        await expectRefusal(409, "served-break") {
            try await fixture.catalog.replaceBreak(changed)
        }
        try await fixture.catalog.replaceBreak(item)
        // Start −10 s + 30 s + the 120 s margin: in the window until 140 s from now.
        await expectRefusal(409, "served-break") {
            try await fixture.catalog.deleteBreak(id: "served", now: Self.now + MediaTime(seconds: 139))
        }
        try await fixture.catalog.deleteBreak(id: "served", now: Self.now + MediaTime(seconds: 141))
        #expect(fixture.state.snapshot.breaks["served"] == nil)
        // Its ID is never reused for other values.
        await expectRefusal(409, "served-break") { try await fixture.catalog.createBreak(changed) }
    }

    @Test(
        "A break now starts at the live edge, takes its duration from the request or the schedule, and checks its values"
    )
    func breakNow() async throws {
        let fixture = try Fixture(store: SQLiteStore(path: nil))
        let item = try await fixture.catalog.breakNow(
            fixture.channel, .init(duration: MediaTime(seconds: 12), id: "now-a"), now: Self.now)
        #expect(item.interstitial.date == Self.now + MediaTime(seconds: 6))
        #expect(item.interstitial.plannedDuration == MediaTime(seconds: 12))
        #expect(fixture.state.snapshot.breaks["now-a"] == item)
        await expectRefusal(409, "exists") {
            try await fixture.catalog.breakNow(fixture.channel, .init(id: "now-a"), now: Self.now)
        }
        await expectRefusal(400, "json-schema", path: "duration") {
            try await fixture.catalog.breakNow(
                fixture.channel, .init(duration: MediaTime(seconds: 3601), id: "now-b"), now: Self.now)
        }
        await expectRefusal(400, "unknown-ad", path: "ad") {
            try await fixture.catalog.breakNow(fixture.channel, .init(ad: "nope", id: "now-c"), now: Self.now)
        }
        // Breaks do not stack: another break now while "now-a" plays is refused; after it, one is made.
        await expectRefusal(409, "break-in-progress") {
            try await fixture.catalog.breakNow(fixture.channel, .init(id: "now-d"), now: Self.now)
        }
        let later = Self.now + MediaTime(seconds: 20)
        let defaulted = try await fixture.catalog.breakNow(fixture.channel, .init(), now: later)
        #expect(defaulted.id == "now-\(later.nanosecondsSinceEpoch / 1_000_000)")
        #expect(defaulted.interstitial.plannedDuration == MediaTime(seconds: 30))
    }

    @Test("A check and its write do not interleave: a break cannot take an ad that is being deleted")
    func checkAndWriteInOneTransaction() async throws {
        let store = try GatedStore()
        let fixture = try Fixture(store: store)
        let ad = Ad(id: "spot", uri: "/ads/spot.m3u8", duration: MediaTime(seconds: 10))
        try await fixture.catalog.createAd(ad)
        store.close()
        // The delete holds the writer lock, waiting at the store; the ad is still in memory.
        let deletion = Task { try await fixture.catalog.deleteAd(id: "spot") }
        while store.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(fixture.state.snapshot.ads["spot"] != nil)
        let creation = Task {
            try await fixture.catalog.createBreak(fixture.liveBreak("uses-spot", at: 60, duration: 10, ad: "spot"))
        }
        try await Task.sleep(for: .milliseconds(100))
        store.open()
        try await deletion.value
        await expectRefusal(400, "unknown-ad", path: "ad") { try await creation.value }
        let stored = try store.load()
        #expect(stored.ads["spot"] == nil && stored.breaks["uses-spot"] == nil)
    }
}

/// Runs `body` and checks that it throws an ``APIError`` with this status, code and path.
func expectRefusal<T>(
    _ status: Int, _ code: String, path: String = "", sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(status) \(code)", sourceLocation: sourceLocation)
    } catch let error as APIError {
        #expect(
            error.statusCode == status && error.code.rawValue == code && error.path == path, "\(error)",
            sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected an APIError, got \(error)", sourceLocation: sourceLocation)
    }
}
