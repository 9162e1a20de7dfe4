import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// Applies a command; returns why it was refused, if it was.
    mutating func apply(_ command: PlaybackCommand) -> Refusal? {
        let refusal = perform(command)
        if let refusal { emit(refusal.kind, refusal.fields) }
        return refusal
    }

    private mutating func perform(_ command: PlaybackCommand) -> Refusal? {
        switch command {
        case .play:
            playhead.play()
            emit(.rateChanged, [("rate", .number(rate))])
        case .pause:
            playhead.pause()
            emit(.paused)
        case .setRate(let value): return setRate(value)
        case .seek(let time): return seek(to: time)
        case .seekToDate(let date):
            guard let time = timeline?.playlist.time(at: date) else {
                emit(.seekRequested, [("date", .string(date.iso8601))])
                return .seek(nil, .noProgramDateTime)
            }
            return seek(to: time)
        case .seekIntegrated(let time): return seekIntegrated(time)
        case .seekInInterstitial(let offset): return seekInInterstitial(offset)
        case .skipCurrentEvent: return skipCurrentEvent()
        case .cancelCurrentEvent(let offset): cancelCurrentEvent(offset)
        case .setEvents(let events): setEvents(events)
        case .setRestrictions(let id, let restrictions):
            var events = activeEvents
            guard let index = events.firstIndex(where: { $0.identifier == id }) else {
                emit(.warning, [("message", .string("no event \"\(id)\" to change the restrictions of"))])
                return nil
            }
            events[index].restrictions = restrictions
            setEvents(events)
        case .setAutomaticallyHandlesInterstitialEvents(let on):
            guard program.handleAutomatically(on) else { return nil }
            recompute()
            emitEventsChanged()
        case .selectAudio(let option): select(option, type: "AUDIO")
        case .selectSubtitles(let option): select(option, type: "SUBTITLES")
        }
        return nil
    }

    /// Selects the primary's rendition of a TYPE that matches `option` (``TrackMatcher``); assets
    /// loaded from now on match the new selection.
    mutating func select(_ option: MediaOption?, type: String) {
        guard selection.select(option, type: type) else {
            emit(.warning, [("message", .string("the primary offers no \(type) renditions to select"))])
            return
        }
        let chosen = type == "AUDIO" ? tracks.audio : tracks.subtitles
        if option != nil && chosen == nil {
            emit(
                .warning,
                [("message", .string("no \(type) rendition matches \(option?.description ?? ""); subtitles are off"))])
        }
        emit(
            .tracksSelected,
            [
                ("audio", tracks.audio.map { .string($0.description) } ?? .null),
                ("subtitles", tracks.subtitles.map { .string($0.description) } ?? .null),
            ])
    }

    /// Whether the current event forbids advancing: X-RESTRICT=SKIP (R13).
    var currentEventRestrictsSkip: Bool { mode == .interstitial && run?.event.restrictions.contains(.skip) == true }

    mutating func setRate(_ value: Double) -> Refusal? {
        guard value.isFinite, value >= 0, value <= Self.maximumRate else { return .rate(value, .unsupportedRate) }
        if value == 0 {
            playhead.pause()
            emit(.paused)
            return nil
        }
        if value > 1, currentEventRestrictsSkip, let run { return .rate(value, .skipRestricted(event: run.eventID)) }
        playhead.play(at: value)
        emit(.rateChanged, [("rate", .number(value))])
        return nil
    }

    /// The fastest rate accepted.
    static let maximumRate: Double = 64

    /// Seeks primary to `target` (R8, R13, R14, R15).
    mutating func seek(to target: MediaTime) -> Refusal? {
        emit(.seekRequested, [("to", .time(target))])
        guard let timeline else { return .seek(nil, .primaryNotLoaded) }
        if mode == .interstitial, let run {
            if run.event.restrictions.contains(.skip) && target >= run.suspendedAt {
                return .seek(.primary(target), .skipRestricted(event: run.eventID))
            }
            // The seek ends the interstitial (PRE included: primary starts).
            endMember(.seek)
        }
        if case .ended = state { transition(to: .primary(PrimaryState(started: true)), because: .restarted) }
        let first = timeline.playlist.segments.first?.startTime ?? .zero
        let to = min(max(target, first), timeline.end)
        let from = position
        if to < from { program.release(after: to) }
        updatePrimary { $0.jumped() }
        actions.append(.flush)
        if !started {
            playhead.jump(to: to)
            emit(.seekCompleted, [("to", .time(to))])
            return nil
        }
        // R15: into a resume window, the event plays from its beginning.
        if let window = resumeWindow(containing: to) {
            playhead.jump(to: window.start)
            emit(
                .seekCompleted,
                [
                    ("to", .time(window.start)),
                    ("reason", .string("inside the resume window of \"\(window.key)\" (R15)")),
                ])
            return nil
        }
        // R14: crossing JUMP events plays the last one crossed, then the seek completes.
        if to > from,
            let crossed = program.groups.last(where: { group in
                group.cue == .none && group.start > from && group.start < to && isPlayable(group)
                    && group.members.contains { id in
                        !program.exhausted.contains(id) && activeEvent(id)?.restrictions.contains(.jump) == true
                    }
            })
        {
            playhead.jump(to: crossed.start)
            startRun(crossed, resumeOverride: to)
            if run != nil { updateRun { $0.completeSeek(at: to) } }
            return nil
        }
        playhead.jump(to: to)
        emit(.seekCompleted, [("to", .time(to))])
        return nil
    }

    /// Seeks on the integrated timeline: primary segments map to primary time; an interstitial
    /// segment seeks to its event's start.
    mutating func seekIntegrated(_ time: MediaTime) -> Refusal? {
        guard let schedule, let index = schedule.item(atIntegrated: time) else {
            emit(.seekRequested, [("integrated", .time(time))])
            return .seek(nil, .outsideIntegratedTimeline(time))
        }
        let item = schedule.items[index]
        guard item.kind == .interstitial, let eventIndex = item.eventIndex else {
            return seek(to: item.primary.start + (time - item.integrated.lowerBound))
        }
        let event = schedule.events[eventIndex]
        let offset = time - item.integrated.lowerBound
        guard offset > .zero, let group = schedule.group(ofEvent: eventIndex) else { return seek(to: event.start) }
        // Into a RANGE interstitial: it plays from that offset, as a join does (R11).
        if let refusal = seek(to: group.start) { return refusal }
        if mode == .primary, started, let due = dueGroup(), due.members.contains(event.id) {
            startRun(due, from: event.id, joinOffset: offset)
        }
        return nil
    }

    /// Seeks inside the current event; forward is refused under SKIP (R13), backward is allowed.
    mutating func seekInInterstitial(_ offset: MediaTime) -> Refusal? {
        emit(.seekRequested, [("interstitialTime", .time(offset))])
        guard mode == .interstitial, let run else { return .seek(nil, .noInterstitial) }
        if offset > run.elapsed && run.event.restrictions.contains(.skip) {
            return .seek(.interstitial(offset), .skipRestricted(event: run.eventID))
        }
        guard run.plan != nil else { return .seek(nil, .assetsNotLoaded) }
        guard moveInMember(to: offset) else { return .seek(nil, .noPlayableAsset) }
        emit(.seekCompleted, [("interstitialTime", .time(offset))])
        return nil
    }

    /// Moves to `offset` (from where the member's playback began) in the current member's assets;
    /// false when none of them is playable.
    mutating func moveInMember(to offset: MediaTime) -> Bool {
        guard let id = run?.eventID else { return false }
        let assets = loads.assets[id] ?? [:]
        guard let moved = updateRun({ $0.move(to: offset, assets: assets) }) ?? nil, let run else { return false }
        if let left = moved.left {
            emit(.assetEnded, [("id", .string(id)), ("index", .integer(left)), ("reason", .string("seek"))])
        }
        if moved.changed {
            emitAssetStarted(moved.index, media: moved.media)
        } else {
            beacons.moved(to: run.assetPosition)
        }
        return true
    }

    /// Skips the current event (R16): allowed inside the skip control window even under SKIP;
    /// without a window, allowed unless SKIP is set.
    mutating func skipCurrentEvent() -> Refusal? {
        guard mode == .interstitial, let run else { return .skip(.noInterstitial) }
        let restricted = run.event.restrictions.contains(.skip)
        let state = run.skippableState
        if state != .eligible && restricted {
            let id = run.eventID
            switch state {
            case .notYetEligible:
                return .skip(.skipWindowNotOpen(event: id, opensAt: run.skipControl.offset, now: run.elapsed))
            case .noLongerEligible: return .skip(.skipWindowClosed(event: id))
            default: return .skip(.noSkipControl(event: id))
            }
        }
        emit(.eventSkipped, [("id", .string(run.eventID))])
        notify(.currentEventSkipped(run.event))
        endMember(.skipped)
        return nil
    }

    /// Abandons the whole group and resumes primary at the given offset from the group's start:
    /// indefinite is the wall-clock time elapsed, nil (invalid) where primary would have resumed.
    /// With no interstitial playing there is nothing to cancel: a trace warning says so.
    mutating func cancelCurrentEvent(_ offset: ResumptionOffset?) {
        guard mode == .interstitial, let run else {
            ignore("cancelCurrentEvent", in: mode, because: "no interstitial is playing")
            return
        }
        let resume: MediaTime
        switch offset {
        case .time(let value)?: resume = run.group.start + value
        case .indefinite?:
            resume = run.group.start + MediaTime(clock - run.groupStartedAt)
        case nil: resume = run.projectedResume
        }
        updateRun { $0.overrideResume(resume) }
        emit(
            .interstitialCancelled,
            [("id", .string(run.eventID)), ("resumptionOffset", .string(offset.map(\.description) ?? "invalid"))])
        endMember(.cancelled)
    }

    /// Sets the controller's events (nil restores the server's). A current event that is not in
    /// the new set runs to completion; later members that are not are dropped.
    mutating func setEvents(_ events: [InterstitialEvent]?) {
        program.override(events: events)
        recompute()
        emitEventsChanged()
        guard run != nil else { return }
        let ids = Set(activeEvents.map(\.identifier))
        updateRun { $0.keepMembers(in: ids) }
    }
}
