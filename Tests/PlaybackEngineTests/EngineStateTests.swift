import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination
import PlaybackEngine
import Testing

/// The machine's state, outcomes and the schedule it plays, observed directly.
@Suite("Engine state")
struct EngineStateTests {
    @Test("R5: an event that starts where the previous one resumes is a group of its own (a at 12, b at 17)")
    func adjacentGroups() {
        // profile R5
        var harness = Harness(
            dated(
                event("a", at: 12, "DURATION=5,X-ASSET-URI=\"b.m3u8\""),
                event("b", at: 17, "DURATION=5,X-ASSET-URI=\"b.m3u8\"")),
            assets: ["b.m3u8": 5])
        harness.play(until: 30)
        #expect(harness.machine.schedule?.groups.count == 2)
        #expect(
            harness.lines([.interstitialStarted, .primaryResumed]) == [
                "0.0 primaryResumed @0.0", "12.0 interstitialStarted @12.0 id=a", "17.0 primaryResumed @17.0",
                "17.0 interstitialStarted @17.0 id=b", "22.0 primaryResumed @22.0",
            ])
    }

    @Test("R5, R9: a PRE and a plain event at the start point play as one group and their offsets add up")
    func preGroup() {
        // profile R5, R9
        var harness = Harness(
            dated(
                event("pre", at: 0, "CUE=\"PRE\",DURATION=5,X-ASSET-URI=\"b.m3u8\""),
                event("zero", at: 0, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESUME-OFFSET=0")),
            assets: ["b.m3u8": 5])
        harness.play(until: 20)
        #expect(
            harness.lines([.interstitialStarted, .primaryResumed]) == [
                "0.0 interstitialStarted @0.0 id=pre", "5.0 interstitialStarted @0.0 id=zero",
                "10.0 primaryResumed @5.0",
            ])
    }

    @Test("the state carries its data: loading, primary (not started, then started), interstitial, ended")
    func states() {
        var harness = Harness(
            dated(event("post", at: 0, "CUE=\"POST\",DURATION=5,X-ASSET-URI=\"b.m3u8\"")), assets: ["b.m3u8": 5])
        guard case .loading(nil) = harness.machine.state else {
            Issue.record("a new machine waits for the primary")
            return
        }
        harness.deliver()
        guard case .primary(let primary) = harness.machine.state else {
            Issue.record("the loaded primary waits for play")
            return
        }
        #expect(!primary.started)
        harness.play(until: 62)
        guard case .interstitial(let run) = harness.machine.state else {
            Issue.record("POST plays after the end")
            return
        }
        #expect(run.eventID == "post")
        harness.run(until: 70)
        guard case .ended = harness.machine.state else {
            Issue.record("the machine ends after POST")
            return
        }
        #expect(harness.lines([.ended]) == ["65.0 ended @60.0"])
    }

    @Test("R14: a JUMP event plays again on a later seek across it, even after it played through")
    func jumpReplays() {
        // profile R14
        var harness = Harness(
            dated(event("j", at: 20, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESTRICT=\"JUMP\",X-RESUME-OFFSET=0")),
            assets: ["b.m3u8": 5])
        harness.play(until: 30)
        harness.send(.seek(s(10)))
        harness.send(.seek(s(40)))
        harness.run(until: 40)
        #expect(harness.events(.interstitialStarted).count == 2)
        #expect(harness.lines([.seekCompleted], fields: ["to"]).last == "35.0 seekCompleted @40.0 to=40.000")
    }

    @Test("R12: a removed event that has not started is unscheduled; a playing one runs to completion")
    func removedEvents() {
        // profile R12
        let playing = event("on", at: 30, "DURATION=10,X-ASSET-URI=\"a.m3u8\"")
        let later = event("later", at: 50, "DURATION=10,X-ASSET-URI=\"a.m3u8\"")
        var harness = Harness(
            live(8, playing, later), assets: ["a.m3u8": 10], configure: { $0.startTime = .zero })
        harness.play(until: 33)
        harness.playlists[Harness.base + "main.m3u8"] = live(8)
        harness.run(until: 70)
        #expect(harness.lines([.eventUnscheduled]).count == 1)
        #expect(harness.lines([.eventUnscheduled]).first?.hasSuffix("id=later") == true)
        #expect(
            harness.lines([.interstitialEnded], fields: ["id", "resumeTime"]) == [
                "40.0 interstitialEnded @30.0 id=on resumeTime=40.000"
            ])
    }

    @Test("a timing command of a following member is signalled to the group; a refused one is not")
    func signals() {
        var harness = Harness(
            dated(event("e", at: 10, "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESTRICT=\"SKIP\",X-RESUME-OFFSET=0")),
            assets: ["a.m3u8": 10])
        harness.deliver()
        _ = harness.machine.handle(.setCoordinated(true), at: harness.now)
        #expect(harness.machine.coordination == .following)
        func signalled(_ outcome: PlaybackStateMachine.Outcome) -> Bool {
            outcome.actions.contains {
                if case .signal(.changed) = $0 { return true }
                return false
            }
        }
        #expect(signalled(harness.send(.play)))
        harness.run(until: 12)
        let refused = harness.send(.seek(s(50)))
        #expect(refused.refusal != nil)
        #expect(!signalled(refused))
    }
}
