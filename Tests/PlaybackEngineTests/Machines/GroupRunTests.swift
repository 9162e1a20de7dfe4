import HLSInterstitials
import HLSPlaylist
import Testing

@testable import PlaybackEngine

/// The group run on its own: a member's progress through its assets, and the run through its members.
@Suite("Group run")
struct GroupRunTests {
    typealias Run = PlaybackStateMachine.GroupRun
    static let group = PlaybackStateMachine.Group(
        key: "a", cue: .none, start: s(10), members: ["a", "b"], resume: s(10), playout: s(20))
    static let list = AssetList(assets: [
        AssetList.Asset(uri: "x.m3u8", duration: s(5)), AssetList.Asset(uri: "y.m3u8", duration: s(5)),
    ])
    static let media = AssetMedia(duration: s(5), segmentURLs: ["x-0.ts"])

    static func event(_ id: String) -> InterstitialEvent {
        var event = InterstitialEvent(identifier: id, time: s(10))
        event.assetListURI = "\(id).json"
        return event
    }

    static func content(
        list: AssetList? = list, assets: [Int: PlaybackStateMachine.LoadBook.AssetState] = [:], failed: Bool = false,
        limit: MediaTime? = nil
    ) -> Run.Content {
        Run.Content(failed: failed, list: list, assets: assets, playoutLimit: limit, maximumAssetCount: nil)
    }

    static func run(joinOffset: MediaTime = .zero) -> Run {
        Run(
            group: group, members: ["a", "b"], event: event("a"), suspendedAt: s(10), at: clock(1),
            joinOffset: joinOffset, resumeOverride: nil)
    }

    @Test("a member starts, waits for its list, plans, plays its assets, passes a failed one, completes")
    func member() {
        var run = Self.run()
        let a = Self.event("a")
        #expect(run.step(event: a, content: Self.content(list: nil), at: clock(2)) == .memberStarted)
        #expect(run.step(event: a, content: Self.content(list: nil), at: clock(2)) == .waiting)
        #expect(run.waiting)
        #expect(run.step(event: a, content: Self.content(), at: clock(3)) == .planned)
        #expect(run.plan == [0, 1])
        #expect(run.step(event: a, content: Self.content(), at: clock(3)) == .waiting, "asset 0 is not loaded")
        let loaded = Self.content(assets: [0: .loaded(Self.media), 1: .failed("404")])
        #expect(run.step(event: a, content: loaded, at: clock(3)) == .assetStarted(0))
        #expect(run.step(event: a, content: loaded, at: clock(3)) == .none)
        #expect(run.play(s(5)) == .zero)
        #expect(run.elapsed == s(5) && run.assetPosition == s(5))
        #expect(run.step(event: a, content: loaded, at: clock(8)) == .assetEnded(0))
        #expect(run.assetIndex == nil)
        #expect(run.step(event: a, content: loaded, at: clock(8)) == .passedFailedAsset)
        #expect(run.step(event: a, content: loaded, at: clock(8)) == .end(.completed))
    }

    @Test("the playout limit ends a member; failed content ends it as failed")
    func endings() {
        var run = Self.run()
        let a = Self.event("a")
        let loaded = Self.content(assets: [0: .loaded(Self.media)], limit: s(2))
        _ = run.step(event: a, content: loaded, at: clock(1))
        _ = run.step(event: a, content: loaded, at: clock(1))
        #expect(run.step(event: a, content: loaded, at: clock(1)) == .assetStarted(0))
        _ = run.play(s(2))
        #expect(run.step(event: a, content: loaded, at: clock(3)) == .end(.limit))
        var failing = Self.run()
        _ = failing.step(event: a, content: Self.content(failed: true), at: clock(1))
        #expect(failing.step(event: a, content: Self.content(failed: true), at: clock(1)) == .end(.failed))
    }

    @Test("a join offset starts inside the plan")
    func join() {
        var run = Self.run(joinOffset: s(7))
        let a = Self.event("a")
        let loaded = Self.content(assets: [1: .loaded(Self.media)])
        _ = run.step(event: a, content: loaded, at: clock(1))
        #expect(run.step(event: a, content: loaded, at: clock(1)) == .planned)
        #expect(run.plan == [1])
        #expect(run.step(event: a, content: loaded, at: clock(1)) == .assetStarted(1))
        #expect(run.assetPosition == s(2) && run.elapsed == s(7))
    }

    @Test("the next member starts afresh; later members can be dropped; the resume point follows the members")
    func members() {
        var run = Self.run(joinOffset: s(3))
        let a = Self.event("a")
        _ = run.step(event: a, content: Self.content(), at: clock(1))
        _ = run.step(event: a, content: Self.content(), at: clock(1))
        run.memberEnded(resume: s(15), joining: ["b", "c"])
        #expect(run.members == ["a", "b", "c"])
        #expect(run.resume == s(15) && run.resumePoint == s(15))
        run.overrideResume(s(40))
        #expect(run.resumePoint == s(40))
        let switched = run.switchMember(to: 1, event: Self.event("b"), at: clock(9))
        #expect(switched)
        #expect(run.eventID == "b" && run.event.identifier == "b")
        #expect(run.plan == nil && run.elapsed == .zero && run.joinOffset == .zero && !run.member.started)
        let beyond = run.switchMember(to: 5, event: nil, at: clock(9))
        #expect(!beyond)
        run.keepMembers(in: ["a"])
        #expect(run.members == ["a", "b"], "the current member stays")
        #expect(!run.hasNextMember)
    }

    @Test("a move inside the member lands in the asset at the offset")
    func move() {
        var run = Self.run()
        let a = Self.event("a")
        let loaded = Self.content(assets: [0: .loaded(Self.media), 1: .loaded(Self.media)])
        _ = run.step(event: a, content: loaded, at: clock(1))
        _ = run.step(event: a, content: loaded, at: clock(1))
        _ = run.step(event: a, content: loaded, at: clock(1))
        let moved = run.move(to: s(7), assets: [0: .loaded(Self.media), 1: .loaded(Self.media)])
        #expect(moved?.left == 0 && moved?.changed == true && moved?.index == 1)
        #expect(run.assetPosition == s(2) && run.elapsed == s(7) && run.planPosition == 1)
        run.awaitPlan(at: s(1))
        #expect(run.elapsed == s(1))
    }
}
