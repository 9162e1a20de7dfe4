import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// Where playback is, in the terms a coordinated group shares.
    package var coordinatedLocation: CoordinatedLocation {
        if mode == .interstitial, let run {
            return .interstitial(
                group: run.group.key, event: run.eventID, offset: run.elapsed, resume: run.resumeOverride)
        }
        return .primary(position, after: primary?.handledKey)
    }

    /// The session to hand off: where and how playback is, the controller's events, the ONCE events
    /// that played, the selected tracks.
    package func session(url: String) -> PlaybackSession {
        PlaybackSession(
            url: url, location: coordinatedLocation, playing: playing, rate: rate, events: controllerEvents,
            automaticallyHandlesInterstitialEvents: automaticallyHandles, playedOnce: program.exhausted.sorted(),
            tracks: tracks)
    }

    /// Whether an interstitial group plays on its own in a coordinated group: when any of its
    /// events' content may vary (X-CONTENT-MAY-VARY, YES when missing, R24).
    func mayVary(_ run: GroupRun) -> Bool {
        run.members.contains { (activeEvent($0) ?? (run.eventID == $0 ? run.event : nil))?.contentMayVary ?? true }
    }

    /// Reports the start and end of an interstitial group played on its own; at its end the player
    /// holds at the resumption point until the group releases it.
    mutating func trackIndependence() {
        var current: String?
        if let run, mayVary(run) { current = run.group.key }
        for signal in coordinator.track(playingAlone: current, at: position) {
            if case .arrived(let finished, _) = signal { emit(.waitingForGroup, [("group", .string(finished))]) }
            actions.append(.signal(signal))
        }
    }

    /// Continues a handed-off session: its events, ONCE history and automatic handling now, its
    /// position once the primary is loaded.
    mutating func restore(_ session: PlaybackSession) {
        program.restore(session)
        recompute()
        coordinate(session.location, playing: session.playing, rate: session.rate, anchor: nil, continuing: true)
    }

    /// Places playback at `location` as of clock time `anchor` and plays forward to now, so that
    /// every participant given the same state is at the same point (interstitials included).
    /// `continuing`: a handed-off session, whose pre-roll has played when it is in primary.
    mutating func coordinate(
        _ location: CoordinatedLocation, playing: Bool, rate: Double, anchor: Duration?, continuing: Bool
    ) {
        actions += coordinator.placed(loaded: timeline != nil, at: position).map { .signal($0) }
        playhead.follow(playing: playing, rate: rate)
        guard timeline != nil else {
            if case .loading = state {
                transition(
                    to: .loading(Placement(location: location, anchor: anchor, continuing: continuing)),
                    because: .placed)
            }
            return
        }
        let now = clock
        place(location, continuing: continuing)
        emit(
            .coordinated,
            [("location", .string(location.description)), ("playing", .bool(playing)), ("rate", .number(rate))])
        if let anchor, anchor < now {
            playhead.rewind(to: anchor)
            move(to: now)
        }
    }

    /// Applies a placement asked for before the primary loaded, moved on by the time since.
    mutating func placePending(_ pending: Placement?) {
        guard let pending else { return }
        var location = pending.location
        if let anchor = pending.anchor, playing, anchor < clock {
            let gone = MediaTime(nanoseconds: Int64(Double((clock - anchor).wholeNanoseconds) * rate))
            switch location {
            case .primary(let time, let after): location = .primary(time + gone, after: gone > .zero ? nil : after)
            case .interstitial(let group, let event, let offset, let resume):
                location = .interstitial(group: group, event: event, offset: offset + gone, resume: resume)
            }
        }
        coordinate(location, playing: playing, rate: rate, anchor: nil, continuing: pending.continuing)
    }

    /// Puts the playhead at a location without the checks of a user's seek: the group already
    /// made them.
    mutating func place(_ location: CoordinatedLocation, continuing: Bool) {
        guard let timeline else { return }
        switch location {
        case .primary(let time, let after):
            leaveRun()
            let first = timeline.playlist.segments.first?.startTime ?? .zero
            let to = min(max(time, first), timeline.end)
            if to < position { program.release(after: to) }
            playhead.jump(to: to)
            let handled = program.groups.first { $0.key == after && $0.start == to }?.key
            let begins = continuing && !started
            updatePrimary {
                $0.jumped(handling: handled)
                if begins { $0.begin() }
            }
            if begins { emit(.primaryResumed) }
            actions.append(.flush)
        case .interstitial(let key, let event, let offset, let resume):
            guard let group = program.groups.first(where: { $0.key == key }) else {
                emit(
                    .warning,
                    [
                        (
                            "message",
                            .string("the group is in interstitial \"\(key)\", which this player does not schedule")
                        )
                    ])
                return
            }
            if run?.group.key != key {
                leaveRun()
                switch group.cue {
                case .join:
                    startRun(group, resumeOverride: resume)
                case .leave:
                    playhead.jump(to: timeline.end)
                    startRun(group)
                default:
                    playhead.jump(to: group.start)
                    startRun(group, resumeOverride: resume)
                }
            }
            guard let run, let index = run.members.firstIndex(of: event) else {
                emit(
                    .warning,
                    [
                        (
                            "message",
                            .string("the group plays \"\(event)\", which this player does not (ONCE, or not scheduled)")
                        )
                    ])
                return
            }
            updateRun { $0.overrideResume(resume) }
            if index != run.memberIndex { switchMember(to: index) }
            placeInMember(offset)
        }
    }

    /// Ends the current interstitial group, if any, as a seek out of it does.
    mutating func leaveRun() {
        if run != nil { endMember(.seek) }
        if case .ended = state { transition(to: .primary(PrimaryState(started: true)), because: .restarted) }
    }

    /// Moves to `offset` from the start of the current member: in its assets once they are known,
    /// else from the moment they are.
    mutating func placeInMember(_ offset: MediaTime) {
        guard let run else { return }
        if run.plan == nil {
            updateRun { $0.awaitPlan(at: offset) }
            return
        }
        _ = moveInMember(to: offset - min(offset, run.joinOffset))
    }
}
