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
        machine.placed(loaded: true)
        #expect(machine.role == .following)
        machine.join(false)
        #expect(machine.role == .off)
    }

    @Test("a lone player follows again when placed after the primary loaded, not before")
    func placedBeforeLoad() {
        var machine = PlaybackStateMachine.CoordinationMachine()
        machine.join(true)
        _ = machine.track(playingAlone: "g", at: s(1))
        machine.placed(loaded: false)
        #expect(machine.role == .alone("g"))
        machine.placed(loaded: true)
        #expect(machine.role == .following)
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
