import HLSPlaylist
import Testing

@testable import PlaybackEngine

/// The one transition function and the changes that need a mode: a move or a change the state
/// does not allow is refused with a trace warning (in release builds too), and the state stays.
@Suite("Engine transitions")
struct TransitionTests {
    typealias Machine = PlaybackStateMachine

    /// A machine waiting for its primary.
    static func loading() -> Machine {
        Machine(url: "https://example.com/main.m3u8", configuration: Machine.Configuration(primaryID: "p"))
    }

    /// The messages of the trace warnings among `actions`.
    static func warnings(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { action in
            guard case .emit(let event) = action, event.kind == .warning, case .string(let message)? = event["message"]
            else { return nil }
            return message
        }
    }

    @Test("a change to primary playback outside primary is refused with a warning, not applied")
    func primaryOutsidePrimary() {
        var machine = Self.loading()
        machine.updatePrimary { $0.stall() }
        #expect(machine.mode == .loading)
        let actions = machine.take().actions
        #expect(
            Self.warnings(actions) == [
                "primary playback cannot change in mode loading: the change was refused"
            ])
    }

    @Test("a change to the group run when no group plays is refused with a warning, and has no result")
    func runOutsideInterstitial() {
        var machine = Self.loading()
        let result = machine.updateRun { _ in 1 }
        #expect(result == nil)
        #expect(machine.mode == .loading)
        let actions = machine.take().actions
        #expect(
            Self.warnings(actions) == [
                "the group run cannot change in mode loading: the change was refused"
            ])
    }

    @Test(
        "from loading, a cause moves playback only where it allows",
        arguments: [
            (Machine.Cause.ended, Machine.State.ended, false),
            (.resumed, .primary(Machine.PrimaryState(started: true)), false),
            (.restarted, .primary(Machine.PrimaryState(started: true)), false),
            (.changed, .primary(Machine.PrimaryState(started: true)), false),
            (.primaryLoaded, .primary(Machine.PrimaryState(started: false)), true),
            (.loadFailed, .ended, true),
            (.handedOff, .ended, true),
            (.placed, .loading(nil), true),
        ])
    func fromLoading(cause: Machine.Cause, next: Machine.State, allowed: Bool) {
        var machine = Self.loading()
        let moved = machine.transition(to: next, because: cause)
        #expect(moved == allowed)
        #expect(machine.mode == (allowed ? next.mode : .loading))
        let warnings = Self.warnings(machine.take().actions)
        #expect(
            warnings
                == (allowed
                    ? []
                    : [
                        "playback cannot go from loading to \(next.mode) because \(cause.rawValue): the change was refused"
                    ]))
    }

    @Test("after a hand-off nothing but another hand-off moves playback, not even a restart")
    func afterHandOff() {
        var machine = Self.loading()
        let moves = [
            machine.transition(to: .handedOff(to: "tv"), because: .handedOff),
            machine.transition(to: .primary(Machine.PrimaryState(started: false)), because: .primaryLoaded),
            machine.transition(to: .ended, because: .loadFailed),
            machine.transition(to: .primary(Machine.PrimaryState(started: true)), because: .restarted),
            machine.transition(to: .handedOff(to: "phone"), because: .handedOff),
        ]
        #expect(moves == [true, false, false, false, true])
        #expect(machine.mode == .ended)
        guard case .handedOff(let target) = machine.state else {
            Issue.record("the last hand-off holds")
            return
        }
        #expect(target == "phone")
        let warnings = Self.warnings(machine.take().actions)
        #expect(warnings.count == 3)
        #expect(
            warnings.last
                == "playback cannot go from ended to primary because playback restarted after the end: the change was refused"
        )
    }
}
