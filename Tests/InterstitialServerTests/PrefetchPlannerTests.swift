import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The planner of decisions made ahead (issue 32, item 2), driven directly with the time given:
/// the retrieval window opens and the break starts and ends, the pacing keeps to half the ad
/// server's concurrency and its rate less the live requests, a shared tag is decided once, claims
/// won and lost, a failing ledger.
@Suite("Prefetch planner")
struct PrefetchPlannerTests {
    static let t0 = DateTime(nanosecondsSinceEpoch: 1_800_000_000 * 1_000_000_000)
    static let channel = Target(.live, "demo")

    static func at(_ seconds: Double) -> DateTime { t0 + MediaTime(seconds: seconds) }

    /// A break starting at 100 s, 10 s long, window 40..<80 s.
    static func upcoming(
        id: String = "b1", shared: Bool = false, inFlight: Int = 32, perSecond: Int = 100, start: Double = 100
    ) -> PrefetchPlanner.Upcoming {
        PrefetchPlanner.Upcoming(
            key: PrefetchCache.BreakKey(target: channel, breakID: id), start: at(start), end: at(start + 10),
            window: at(start - 60)..<at(start - 20), shared: shared, server: "http://ads:80",
            pacing: PrefetchPlanner.Pacing(inFlight: inFlight, perSecond: perSecond))
    }

    static func decided(_ actions: [PrefetchPlanner.Action]) -> [String] {
        actions.compactMap { action in
            if case .decide(let key) = action { return key.session }
            return nil
        }
    }

    static func sessions(_ count: Int) -> [String] { (0..<count).map { "s\($0)" } }

    @Test("nothing before the window; at its start the sessions are decided, each once")
    func window() {
        var planner = PrefetchPlanner(claims: false)
        let item = Self.upcoming()
        #expect(planner.update([item], now: Self.at(0)).isEmpty)
        planner.sessions(Self.sessions(5), for: item.key, now: Self.at(0))
        #expect(planner.tick(now: Self.at(39)).isEmpty)
        #expect(!planner.isDeciding(item.key))
        #expect(planner.tick(now: Self.at(40)).isEmpty, "no session known yet")
        #expect(planner.isDeciding(item.key))
        planner.sessions(Self.sessions(5), for: item.key, now: Self.at(40))
        let first = Self.decided(planner.tick(now: Self.at(40.25)))
        #expect(first == Self.sessions(5))
        // Seen again, and one new: only the new one.
        planner.sessions(Self.sessions(6), for: item.key, now: Self.at(41))
        #expect(Self.decided(planner.tick(now: Self.at(41))) == ["s5"])
        for session in Self.sessions(6) {
            _ = planner.decided(DecisionKey(target: Self.channel, breakID: "b1", session: session), now: Self.at(42))
        }
        #expect(planner.tick(now: Self.at(43)).isEmpty)
    }

    @Test("after the window it goes on until the break starts; then nothing new; at its end it expires")
    func afterWindow() {
        var planner = PrefetchPlanner(claims: false)
        let item = Self.upcoming()
        _ = planner.update([item], now: Self.at(50))
        planner.sessions(["late"], for: item.key, now: Self.at(90))
        #expect(Self.decided(planner.tick(now: Self.at(90))) == ["late"])
        _ = planner.decided(DecisionKey(target: Self.channel, breakID: "b1", session: "late"), now: Self.at(91))
        #expect(planner.tick(now: Self.at(100)).isEmpty)
        planner.sessions(["later"], for: item.key, now: Self.at(101))
        #expect(planner.tick(now: Self.at(101)).isEmpty, "the break started: viewers asking now decide live")
        // Gone from the upcoming list once started: kept until it ends.
        #expect(planner.update([], now: Self.at(105)).isEmpty)
        #expect(planner.tick(now: Self.at(110)) == [.expire(item.key)])
        #expect(planner.breaks.isEmpty)
    }

    @Test("a break gone from the schedule before it starts is dropped at once")
    func deleted() {
        var planner = PrefetchPlanner(claims: false)
        let item = Self.upcoming()
        _ = planner.update([item], now: Self.at(45))
        #expect(planner.update([], now: Self.at(50)) == [.expire(item.key)])
        #expect(planner.breaks.isEmpty)
    }

    @Test("at most three quarters of the ad server's concurrency in flight; more start as decisions end")
    func concurrency() {
        var planner = PrefetchPlanner(claims: false)
        let item = Self.upcoming(inFlight: 4, perSecond: 10_000)
        _ = planner.update([item], now: Self.at(40))
        planner.sessions(Self.sessions(10), for: item.key, now: Self.at(40))
        let first = Self.decided(planner.tick(now: Self.at(40)))
        #expect(first == ["s0", "s1", "s2", "s3"])
        #expect(Self.decided(planner.tick(now: Self.at(41))).isEmpty)
        let next = planner.decided(DecisionKey(target: Self.channel, breakID: "b1", session: "s1"), now: Self.at(41))
        #expect(Self.decided(next) == ["s4"])
        #expect(PrefetchPlanner.Pacing(AdServerSettings(vast: "http://a/v"), perSecond: 50).inFlight == 48)
    }

    @Test("the rate: at most perSecond started a second, less the live requests")
    func rate() {
        var planner = PrefetchPlanner(claims: false)
        let item = Self.upcoming(inFlight: 10_000, perSecond: 8)
        _ = planner.update([item], now: Self.at(40))
        planner.sessions(Self.sessions(100), for: item.key, now: Self.at(40))
        var started = Self.decided(planner.tick(now: Self.at(40))).count
        // A quarter second of tokens at once, then 8 a second.
        #expect(started == 2)
        for step in 1...16 { started += Self.decided(planner.tick(now: Self.at(40 + Double(step) / 4))).count }
        #expect(started == 2 + 32)
        // Live requests take their share: 2 live starts leave none for the next quarter second.
        planner.live(server: "http://ads:80", started: 2, now: Self.at(44.1))
        #expect(Self.decided(planner.tick(now: Self.at(44.25))).isEmpty)
        #expect(Self.decided(planner.tick(now: Self.at(44.5))).count == 2)
    }

    @Test("a flood of new sessions during the window: at most maximumSessions are queued for a break")
    func sessionBound() {
        var planner = PrefetchPlanner(claims: false)
        planner.maximumSessions = 100
        let item = Self.upcoming(inFlight: 1, perSecond: 100)
        _ = planner.update([item], now: Self.at(40))
        for round in 0..<50 {
            planner.sessions((0..<1000).map { "r\(round)-\($0)" }, for: item.key, now: Self.at(40))
        }
        guard case .deciding(let progress) = planner.breaks[item.key]?.phase else {
            Issue.record("not deciding")
            return
        }
        #expect(progress.known.count == 100 && progress.waiting + progress.inFlight.count == 100)
    }

    @Test(
        "issue 42: 75,760 new sessions in a window queue no more than the ad server can decide before the break starts"
    )
    func sessionsWithinCapacity() {
        var planner = PrefetchPlanner(claims: false)
        // From the window's start (40 s) to the break's (100 s) at 10 decisions a second: 600.
        let item = Self.upcoming(inFlight: 1, perSecond: 10)
        _ = planner.update([item], now: Self.at(40))
        planner.sessions((0..<75_760).map { "flood-\($0)" }, for: item.key, now: Self.at(40))
        guard case .deciding(let progress) = planner.breaks[item.key]?.phase else {
            Issue.record("not deciding")
            return
        }
        #expect(progress.known.count == 600)
        #expect(planner.sessionBound(item) == 600)
        #expect(!planner.wantsSessions(item.key), "full: the sessions seen need not be listed again")
        // The first of them are decided as the pacing allows, the rest wait in order.
        #expect(Self.decided(planner.tick(now: Self.at(40.25))) == ["flood-0"])
        #expect(Self.decided(planner.decided(Self.key("flood-0"), now: Self.at(41))) == ["flood-1"])
    }

    static func key(_ session: String, breakID: String = "b1") -> DecisionKey {
        DecisionKey(target: channel, breakID: breakID, session: session)
    }

    @Test("issue 42: a decision that ends starts more for its own ad server only; another waits for its tick")
    func perServer() {
        var planner = PrefetchPlanner(claims: false)
        let first = Self.upcoming(id: "a", inFlight: 1, perSecond: 1000)
        var other = Self.upcoming(id: "b", inFlight: 10, perSecond: 1)
        other.server = "http://other-ads:80"
        _ = planner.update([first, other], now: Self.at(40))
        planner.sessions(["a1", "a2"], for: first.key, now: Self.at(40))
        planner.sessions(["b1", "b2"], for: other.key, now: Self.at(40))
        #expect(Set(Self.decided(planner.tick(now: Self.at(40)))) == ["a1", "b1"])
        // At 41 s the other ad server has a token again, but only a1's ad server is scheduled.
        #expect(Self.decided(planner.decided(Self.key("a1", breakID: "a"), now: Self.at(41))) == ["a2"])
        #expect(Self.decided(planner.tick(now: Self.at(41))) == ["b2"])
    }

    @Test("a shared ad tag is decided once per break, with session \"\"")
    func sharedTag() {
        var planner = PrefetchPlanner(claims: false)
        let item = Self.upcoming(shared: true)
        _ = planner.update([item], now: Self.at(40))
        planner.sessions(Self.sessions(50), for: item.key, now: Self.at(40))
        #expect(Self.decided(planner.tick(now: Self.at(40))) == [""])
        planner.sessions(Self.sessions(60), for: item.key, now: Self.at(41))
        #expect(Self.decided(planner.tick(now: Self.at(41))).isEmpty)
    }

    @Test("with a shared ledger: keys are claimed first, the won ones decided, the lost ones left to the other replica")
    func claims() throws {
        var planner = PrefetchPlanner(claims: true)
        let item = Self.upcoming()
        _ = planner.update([item], now: Self.at(40))
        planner.sessions(Self.sessions(4), for: item.key, now: Self.at(40))
        let actions = planner.tick(now: Self.at(40))
        guard case .claim(let keys) = try #require(actions.first) else {
            Issue.record("expected a claim, got \(actions)")
            return
        }
        #expect(keys.map(\.session) == Self.sessions(4))
        #expect(Self.decided(actions).isEmpty, "nothing is decided before it is claimed")
        #expect(!planner.tick(now: Self.at(40.25)).contains { if case .claim = $0 { true } else { false } })
        let won = Set(keys.filter { $0.session == "s0" || $0.session == "s2" })
        #expect(Self.decided(planner.claimed(keys, won: won, now: Self.at(40.5))) == ["s0", "s2"])
        #expect(Self.decided(planner.tick(now: Self.at(41))).isEmpty, "s1 and s3 are the other replica's")
    }

    @Test("the ledger fails: this replica decides for its own sessions anyway")
    func ledgerFailure() throws {
        var planner = PrefetchPlanner(claims: true)
        let item = Self.upcoming()
        _ = planner.update([item], now: Self.at(40))
        planner.sessions(Self.sessions(3), for: item.key, now: Self.at(40))
        guard case .claim(let keys) = try #require(planner.tick(now: Self.at(40)).first) else {
            Issue.record("expected a claim")
            return
        }
        #expect(Self.decided(planner.claimed(keys, won: nil, now: Self.at(40.5))) == Self.sessions(3))
    }

    @Test("the earliest break is served first when the ad server's capacity is short")
    func earliestFirst() {
        var planner = PrefetchPlanner(claims: false)
        let late = Self.upcoming(id: "late", inFlight: 2, perSecond: 1000, start: 110)
        let early = Self.upcoming(id: "early", inFlight: 2, perSecond: 1000, start: 100)
        _ = planner.update([late, early], now: Self.at(55))
        planner.sessions(["a", "b"], for: late.key, now: Self.at(55))
        planner.sessions(["c", "d"], for: early.key, now: Self.at(55))
        let actions = planner.tick(now: Self.at(55))
        let breaks = actions.compactMap { action -> String? in
            if case .decide(let key) = action { return key.breakID }
            return nil
        }
        #expect(breaks == ["early", "early"])
    }
}
