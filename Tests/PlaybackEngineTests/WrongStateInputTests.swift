import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// Inputs the state cannot take: each is not applied, and a trace warning says so.
@Suite("Engine: inputs in a state that cannot take them")
struct WrongStateInputTests {
    /// Whether the trace has a warning containing `text`.
    static func warned(_ harness: Harness, _ text: String) -> Bool {
        harness.events(.warning).contains { ($0["message"]?.description ?? "").contains(text) }
    }

    @Test("a primary that loads after a hand-off does not start playback again")
    func primaryAfterHandOff() {
        var harness = Harness(vod())
        harness.record(harness.machine.handle(.handedOff(to: "tv"), at: harness.now).actions)
        harness.deliver()
        #expect(harness.machine.mode == .ended)
        #expect(harness.machine.timeline == nil)
        #expect(Self.warned(harness, "primaryLoaded cannot be taken in mode ended"))
    }

    @Test("a session restored while primary plays does not move it")
    func restoreWhilePlaying() {
        var harness = Harness(vod())
        harness.deliver()
        let session = harness.machine.session(url: Harness.base + "main.m3u8")
        harness.play(until: 20)
        let position = harness.machine.position
        #expect(position > .zero)
        harness.record(harness.machine.handle(.restore(session), at: harness.now).actions)
        #expect(harness.machine.position == position)
        #expect(Self.warned(harness, "restore cannot be taken in mode primary"))
    }

    @Test("a variant that loads before the primary is not switched to")
    func variantBeforePrimary() {
        var harness = Harness(vod())
        guard case .primaryLoaded(let presentation) = harness.primaryInput(Harness.base + "main.m3u8", key: .primary)
        else {
            Issue.record("the primary's input")
            return
        }
        harness.record(harness.machine.handle(.variantLoaded(1, presentation), at: harness.now).actions)
        #expect(harness.machine.mode == .loading)
        #expect(Self.warned(harness, "variantLoaded cannot be taken in mode loading"))
    }

    @Test("a primary that fails after a hand-off does not end playback a second time")
    func failureAfterHandOff() {
        var harness = Harness(vod())
        harness.record(harness.machine.handle(.handedOff(to: "tv"), at: harness.now).actions)
        harness.record(harness.machine.handle(.loadFailed(.primary, "gone"), at: harness.now).actions)
        #expect(harness.machine.mode == .ended)
        #expect(harness.events(.ended).isEmpty, "the hand-off ended playback; the failure does not end it again")
        #expect(!Self.warned(harness, "the change was refused"))
        #expect(
            Self.warned(harness, "loadFailed cannot be taken in mode ended: the session was handed off to tv"))
    }

    @Test("cancelling with no interstitial playing is not silent")
    func cancelInPrimary() {
        var harness = Harness(vod())
        harness.play(until: 5)
        let outcome = harness.send(.cancelCurrentEvent(resumptionOffset: nil))
        #expect(outcome.refusal == nil)
        #expect(harness.machine.mode == .primary)
        #expect(Self.warned(harness, "cancelCurrentEvent cannot be taken in mode primary: no interstitial is playing"))
    }

    @Test("an asset list that arrives before the primary loaded is not taken")
    func assetListBeforePrimary() {
        var harness = Harness(vod())
        harness.record(harness.machine.handle(.assetListLoaded("x", AssetList(assets: [])), at: harness.now).actions)
        #expect(harness.events(.assetListLoaded).isEmpty)
        #expect(Self.warned(harness, "assetListLoaded cannot be taken in mode loading"))
    }

    @Test("a second start does not load the primary again", arguments: [false, true])
    func secondStart(loaded: Bool) {
        var harness = Harness(vod())
        if loaded { harness.play(until: 5) }
        let requests = harness.requests.count
        harness.record(harness.machine.start().actions)
        #expect(harness.requests.count == requests)
        #expect(Self.warned(harness, "start cannot be taken in mode \(loaded ? "primary" : "loading")"))
    }

    @Test(
        "a player that handed its session off does not play again",
        arguments: [PlaybackCommand.seek(s(20)), .play, .setEvents(nil)])
    func commandAfterHandOff(command: PlaybackCommand) {
        var harness = Harness(vod())
        harness.play(until: 5)
        harness.record(harness.machine.handle(.handedOff(to: "tv"), at: harness.now).actions)
        let position = harness.machine.position
        let outcome = harness.send(command)
        harness.run(until: 15)
        #expect(outcome.refusal == nil)
        #expect(harness.machine.mode == .ended)
        #expect(harness.machine.position == position)
        #expect(harness.events(.seekCompleted).isEmpty && harness.events(.eventsChanged).count == 1)
        #expect(Self.warned(harness, "cannot be taken in mode ended: the session was handed off to tv"))
    }
}
