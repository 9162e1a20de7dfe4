import AdDecisioning
import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// A standing decision is made again before it goes stale: VAST's own `<Expires>` where its ads
/// give one, else the `refresh` setting (issue 43, item 1). Time is given as input (a manual clock's
/// dates); nothing here sleeps.
@Suite("Standing decisions expire")
struct StandingExpiryTests {
    static let channel = Target(.live, "demo")
    static let decided = DateTime(nanosecondsSinceEpoch: 1_800_000_000 * 1_000_000_000)
    static func at(_ seconds: Int) -> DateTime { decided + MediaTime(seconds: seconds) }

    @Test(
        "the rule: VAST's expiry, refreshed at three quarters of it (at least 10 s in), never past the period's end; else the period's end",
        arguments: [
            // expires, end (s after deciding), refresh, stale
            (Int?.none, 450, Int?.none, 450),  // the refresh setting: the next period takes over
            (60, 450, 45, 60),
            (3600, 450, nil, 450),  // VAST's expiry after the period's end: the period's
            (400, 450, 300, 400),
            (8, 450, nil, 8),  // shorter than the shortest refresh: dropped when stale, made again then
            (0, 450, nil, 0),
        ])
    func rule(expires: Int?, end: Int, refresh: Int?, stale: Int) {
        let freshness = StandingBreak.freshness(decided: Self.decided, expires: expires, end: Self.at(end))
        #expect(freshness.refresh == refresh.map(Self.at))
        #expect(freshness.stale == Self.at(stale))
    }

    @Test("the shortest <Expires> of a pod's InLine ads is its expiry; a negative one is not read")
    func podExpiry() throws {
        func vast(_ expires: [String]) -> String {
            let ads = expires.enumerated().map { index, value in
                """
                <Ad id="a\(index)" sequence="\(index + 1)"><InLine><AdSystem>t</AdSystem><AdTitle>t</AdTitle>\
                <Impression>https://t.example/i</Impression>\(value.isEmpty ? "" : "<Expires>\(value)</Expires>")\
                <Creatives/></InLine></Ad>
                """
            }.joined()
            return "<VAST version=\"4.2\">\(ads)</VAST>"
        }
        func expiry(_ values: [String]) throws -> Int? {
            let document = try VASTReader().read(vast(values))
            return ResolvedAd.expiry(of: document.ads.map { ResolvedAd(inline: $0, wrappers: [], requestURLs: []) })
        }
        #expect(try expiry(["3600", "60", ""]) == 60)
        #expect(try expiry(["", ""]) == nil)
        #expect(try expiry(["-5"]) == nil)
    }

    @Test(
        "the cache: due to be made again at its refresh time (still answering), replaced by the new one, dropped when stale"
    )
    func cache() {
        let cache = PrefetchCache()
        let key = DecisionKey(target: Self.channel, breakID: "standing-6000000", session: "v1")
        let plain = DecisionKey(target: Self.channel, breakID: "standing-6000000", session: "v2")
        let freshness = StandingBreak.freshness(decided: Self.decided, expires: 60, end: Self.at(450))
        #expect(cache.store(key, [1], expires: Self.at(450), freshness: freshness))
        #expect(cache.store(plain, [1], expires: Self.at(450)))
        #expect(cache.refreshDue(now: Self.at(44)).isEmpty)
        #expect(!cache.begin(key), "not decided again before its refresh time")
        // 45 s: made again, while the old one answers.
        #expect(cache.refreshDue(now: Self.at(45)) == [key])
        #expect(cache.refreshDue(now: Self.at(46)).isEmpty, "returned once")
        #expect(cache.decision(key) == [1])
        #expect(cache.wants(key) && !cache.wants(plain))
        #expect(cache.begin(key))
        let next = StandingBreak.freshness(decided: Self.at(46), expires: 60, end: Self.at(450))
        #expect(cache.store(key, [2], expires: Self.at(450), freshness: next))
        cache.finished(key)
        #expect(cache.decision(key) == [2])
        #expect(!cache.wants(key))
        #expect(cache.totals.count == 2)
        // The old one's stale time passes: the new one stays; at the new one's (106 s) it is dropped.
        #expect(cache.refreshDue(now: Self.at(61)).isEmpty)
        #expect(cache.refreshDue(now: Self.at(91)) == [key], "the new one's refresh time: 46 + 45")
        #expect(cache.refreshDue(now: Self.at(106)) == [key])
        #expect(cache.decision(key) == nil)
        #expect(cache.decision(plain) == [1], "without VAST's expiry: kept until the period's end")
        #expect(cache.standing == [Self.channel: 1])
    }

    @Test("the planner decides a standing decision due again once more, within its period")
    func planner() {
        var planner = PrefetchPlanner(claims: false)
        let breakKey = PrefetchCache.BreakKey(target: Self.channel, breakID: "standing-6000000")
        let upcoming = PrefetchPlanner.Upcoming(
            key: breakKey, start: Self.at(300), end: Self.at(450), window: Self.at(0)..<Self.at(150), shared: false,
            server: "ads", pacing: .init(inFlight: 4, perSecond: 10))
        _ = planner.update([upcoming], now: Self.at(0))
        planner.sessions(["v1"], for: breakKey, now: Self.at(0))
        let key = DecisionKey(target: Self.channel, breakID: breakKey.breakID, session: "v1")
        #expect(planner.tick(now: Self.at(0)) == [.decide(key)])
        _ = planner.decided(key, now: Self.at(1))
        planner.sessions(["v1"], for: breakKey, now: Self.at(2))
        #expect(planner.tick(now: Self.at(2)).isEmpty, "decided once")
        // 45 s later the cache says it is due: decided again.
        planner.consumed(key)
        planner.sessions(["v1"], for: breakKey, now: Self.at(46))
        #expect(planner.tick(now: Self.at(46)) == [.decide(key)])
    }
}

/// A new refresh period decides first the viewers the previous period left without a standing
/// decision.
@Suite("Standing decisions: a new period's order")
struct StandingOrderTests {
    @Test("the previous period's ID, and the sessions without its decision first, in their order")
    func order() {
        #expect(StandingBreak.previousID(of: "standing-6000000") == "standing-5999999")
        #expect(StandingBreak.previousID(of: "scte35-1-abc") == nil)
        #expect(StandingBreak.previousID(of: "standing-x") == nil)
        let decided: Set = ["b", "d"]
        #expect(StandingBreak.order(["a", "b", "c", "d", "e"]) { decided.contains($0) } == ["a", "c", "e", "b", "d"])
    }
}
