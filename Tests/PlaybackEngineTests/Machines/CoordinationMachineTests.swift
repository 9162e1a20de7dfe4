import HLSPlaylist
import PlaybackCoordination
import Testing

@testable import PlaybackEngine

/// The player's part in a coordinated group on its own (R24).
@Suite("Coordination machine")
struct CoordinationMachineTests {
    @Test("joining follows the group; leaving stops; a lone group holds at its end until placed")
    func roles() {
        var machine = PlaybackStateMachine.CoordinationMachine()
        #expect(machine.track(playingAlone: "g", at: s(1)).isEmpty, "not in a group: nothing to tell")
        machine.join(true)
        #expect(machine.role == .following)
        #expect(machine.track(playingAlone: "g", at: s(10)) == [.suspended("g")])
        #expect(machine.role == .alone("g"))
        #expect(machine.track(playingAlone: "g", at: s(10)).isEmpty)
        #expect(machine.track(playingAlone: nil, at: s(12)) == [.arrived("g", s(12))])
        #expect(machine.role == .held)
        #expect(machine.placed(loaded: true, at: s(12)).isEmpty, "a held player arrived already")
        #expect(machine.role == .following)
        machine.join(false)
        #expect(machine.role == .off)
    }

    @Test("a lone player follows again when placed after the primary loaded, not before")
    func placedBeforeLoad() {
        var machine = PlaybackStateMachine.CoordinationMachine()
        machine.join(true)
        _ = machine.track(playingAlone: "g", at: s(1))
        #expect(machine.placed(loaded: false, at: s(1)).isEmpty)
        #expect(machine.role == .alone("g"))
        #expect(machine.placed(loaded: true, at: s(1)) == [.arrived("g", s(1))], "the group stops waiting for it")
        #expect(machine.role == .following)
        #expect(machine.track(playingAlone: nil, at: s(1)).isEmpty, "and it does not arrive twice")
    }

    @Test("a local change is signalled once")
    func change() {
        var machine = PlaybackStateMachine.CoordinationMachine()
        #expect(machine.takeChange() == nil)
        machine.commandApplied()
        #expect(machine.takeChange() == .changed)
        #expect(machine.takeChange() == nil)
    }
}

/// The coordination machine inside the engine.
@Suite("Coordination in the engine")
struct EngineCoordinationTests {
    @Test("a player the group leads out of a pre-roll it plays on its own tells the group it arrived")
    func ledAwayArrives() {
        var harness = Harness(
            dated(event("pre", at: 0, "CUE=\"PRE\",X-ASSET-URI=\"a6.m3u8\",X-RESUME-OFFSET=0")), assets: ["a6.m3u8": 6])
        func signals(_ input: PlaybackStateMachine.Input) -> [PlaybackStateMachine.Signal] {
            let outcome = harness.machine.handle(input, at: harness.now)
            harness.record(outcome.actions)
            return outcome.actions.compactMap { if case .signal(let signal) = $0 { signal } else { nil } }
        }
        harness.deliver()
        _ = signals(.setCoordinated(true))
        _ = signals(.command(.play))
        harness.run(until: 1)
        #expect(harness.machine.mode == .interstitial)
        #expect(harness.machine.playsAlone, "the pre-roll's content may vary: played alone")
        // Another participant's start places everyone at primary 0: this player leaves its pre-roll.
        let placed = signals(.coordinate(.primary(s(0), after: nil), playing: true, rate: 1, anchor: nil))
        #expect(placed.contains(.arrived("pre", s(0))), "\(placed)")
        #expect(harness.machine.mode == .primary)
    }
}
