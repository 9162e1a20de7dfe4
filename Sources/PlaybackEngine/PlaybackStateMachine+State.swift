import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// Where playback is; each case carries what it needs.
    package enum State: Sendable {
        /// Waiting for the primary presentation, with a group state or a session to apply once it
        /// loads.
        case loading(Placement?)
        /// In primary, playing or paused.
        case primary(PrimaryState)
        /// Playing an interstitial group; primary waits.
        case interstitial(GroupRun)
        /// Ended: at the end, after the POST group, or because the primary could not be loaded.
        /// A seek or a placement starts playback again once the primary loaded.
        case ended
        /// The session went to the player at this URL: this one stops for good (its mode is
        /// ``Mode/ended``), and takes no command, placement or load result.
        case handedOff(to: String)
    }

    /// Primary playback; it changes through its own methods.
    package struct PrimaryState: Sendable {
        /// Whether primary playback began: false until the first play (and while PRE plays).
        package private(set) var started: Bool
        /// Waiting at the live edge for the playlist to grow.
        package private(set) var stalled = false
        /// A group that resumed at its own start, so it does not fire again there.
        package private(set) var handledKey: String?

        /// Primary playback that began (`started`) or waits for the first play, with the group
        /// `handledKey` resumed at its own start, if any.
        package init(started: Bool, handledKey: String? = nil) {
            (self.started, self.handledKey) = (started, handledKey)
        }

        /// Playback began (PRE played, or play was asked for without one).
        mutating func begin() { started = true }

        /// Primary media moved on: the group that resumed at its start is behind the playhead and
        /// may fire again once the playhead comes back to it.
        mutating func moved() { handledKey = nil }

        /// The playhead jumped (a seek, or a placement at `handledKey`'s start, which then does not
        /// fire there): it no longer waits at the live edge.
        mutating func jumped(handling handledKey: String? = nil) {
            self.handledKey = handledKey
            stalled = false
        }

        /// Primary reached the live edge: it waits for the playlist to grow.
        mutating func stall() { stalled = true }

        /// The live playlist grew: primary no longer waits at its edge.
        mutating func grew() { stalled = false }
    }

    /// Where a coordinated group (or a handed-off session) places playback.
    package struct Placement: Sendable {
        package var location: CoordinatedLocation
        /// The clock time the location is as of (nil: now).
        package var anchor: Duration?
        /// A handed-off session, whose pre-roll has played when it is in primary.
        package var continuing: Bool
    }

    /// The player's part in a coordinated group.
    package enum Coordination: Sendable, Equatable {
        /// Not in a group.
        case off
        /// Playing as the group does.
        case following
        /// Playing the interstitial group with this key on its own: its content may vary (R24).
        case alone(String)
        /// Waiting at the resumption point for the group after playing on its own.
        case held
    }

    /// Waiting for the group after an interstitial played on its own.
    package var held: Bool { coordination == .held }

    /// Whether the player plays on its own in its group (an interstitial whose content may vary, or
    /// waiting after one), so that its commands are not the group's.
    package var playsAlone: Bool {
        switch coordination {
        case .alone, .held: true
        case .off, .following: false
        }
    }

    /// Where playback is, without the data.
    package var mode: Mode { state.mode }

    /// The interstitial group playing.
    package var run: GroupRun? {
        if case .interstitial(let run) = state { return run }
        return nil
    }

    /// Primary playback.
    var primary: PrimaryState? {
        if case .primary(let primary) = state { return primary }
        return nil
    }

    /// Changes the group run through its own methods (in `body`). Only while a group plays: in
    /// another mode the change is refused with a trace warning, and the result is nil.
    @discardableResult
    mutating func updateRun<Result>(_ body: (inout GroupRun) -> Result) -> Result? {
        guard case .interstitial(var run) = state else {
            refuseChange("the group run", in: mode)
            return nil
        }
        // The run leaves the state while it changes, so that it is not copied (as postgres-nio's
        // `.modifying`).
        transition(to: .ended, because: .modifying)
        defer { transition(to: .interstitial(run), because: .modifying) }
        return body(&run)
    }

    /// Changes primary playback. Only in primary: in another mode the change is refused with a
    /// trace warning.
    mutating func updatePrimary(_ body: (inout PrimaryState) -> Void) {
        guard case .primary(var primary) = state else {
            refuseChange("primary playback", in: mode)
            return
        }
        body(&primary)
        transition(to: .primary(primary), because: .changed)
    }

    /// Reports a change to `what` that the current mode does not have (a trace warning, in
    /// release builds too).
    private mutating func refuseChange(_ what: String, in mode: Mode) {
        emit(.warning, [("message", .string("\(what) cannot change in mode \(mode): the change was refused"))])
    }

    /// Whether primary playback began (PRE played, or play asked for without one).
    var started: Bool {
        switch state {
        case .loading: false
        case .primary(let primary): primary.started
        case .interstitial(let run): run.group.cue != .join
        case .ended, .handedOff: true
        }
    }
}
