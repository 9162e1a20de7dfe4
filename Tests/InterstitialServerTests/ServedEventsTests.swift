import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The events of served date ranges, read once (``ServedEvents``): what a planner with the memo
/// plans is what it plans without, however often a served break is planned, and the memo keeps at
/// most its limit.
@Suite struct ServedEventsTests {
    let planning = PlanningTests()

    /// A live channel's cadence break served once, then planned with its served values (and an early
    /// return), by a planner with `memo` or without.
    func plans(memo: ServedEvents?) throws -> [String] {
        var state = planning.liveState(
            cadence: .init(
                every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30)))
        let target = Target(.live, "demo")
        let epoch = planning.epoch
        let timeline = BreakPlanner.Timeline.live(
            epoch: epoch, window: epoch..<(epoch + MediaTime(seconds: 40)), lookahead: .zero)
        func planner() -> BreakPlanner {
            var planner = BreakPlanner(target: target, state: state, assetListURI: "/l.json", adURI: { $0.uri })
            planner.servedEvents = memo
            return planner
        }
        let first = try #require(planner().plan(timeline).first)
        let served = try #require(first.firstServing)
        state.served[ServedKey(target, first.event.identifier)] = served
        var written = [try first.event.dateRangeTag.description]
        for _ in 0..<3 {
            let again = try #require(planner().lookup(id: first.event.identifier, timeline))
            #expect(again.firstServing == nil)
            written.append(try again.event.dateRangeTag.description)
        }
        state.earlyReturns[ServedKey(target, first.event.identifier)] = MediaTime(seconds: 4.5)
        written += try planner().plan(timeline).map { try $0.event.dateRangeTag.description }
        written.append(
            try #require(planner().lookup(id: first.event.identifier, timeline)).event.dateRangeTag.description)
        return written
    }

    @Test("A planner with the memo writes what one without writes, the served date range read once")
    func samePlans() throws {
        let memo = ServedEvents()
        let with = try plans(memo: memo)
        #expect(with == (try plans(memo: nil)))
        #expect(with[4].hasSuffix(",X-PLAYOUT-LIMIT=4.5"))
        // The served attributes, once: an early return changes the event, not the attributes read.
        #expect(memo.count == 1)
    }

    @Test("An attribute list that is no interstitial reads as nil, kept; at most the limit are kept")
    func bounded() throws {
        let memo = ServedEvents(limit: 2)
        let hint: AttributeList = [("ID", try .quoted("hint")), ("CLASS", try .quoted("com.example.other"))]
        #expect(memo.event(hint) == nil)
        #expect(memo.count == 1)
        #expect(memo.event(hint) == nil)
        for index in 0..<5 {
            let attributes: AttributeList = [
                ("ID", try .quoted("b\(index)")), ("CLASS", try .quoted("com.apple.hls.interstitial")),
                ("START-DATE", try .quoted("2026-01-01T00:00:0\(index).000Z")),
                ("X-ASSET-URI", try .quoted("https://ads.example/\(index).m3u8")),
            ]
            #expect(memo.event(attributes)?.identifier == InterstitialEvent(attributes: attributes)?.identifier)
            #expect(memo.event(attributes)?.date == InterstitialEvent(attributes: attributes)?.date)
            #expect(memo.count <= 2)
        }
    }
}
