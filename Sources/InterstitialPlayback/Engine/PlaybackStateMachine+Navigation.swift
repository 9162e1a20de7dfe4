import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// Applies a command.
    mutating func apply(_ command: PlaybackCommand) {
        switch command {
        case .play:
            if rate <= 0 { rate = 1 }
            playing = true
            emit(.rateChanged, [("rate", .number(rate))])
        case .pause:
            playing = false
            emit(.paused)
        case .setRate(let value): setRate(value)
        case .seek(let time): seek(to: time)
        case .seekToDate(let date):
            guard let time = timeline?.playlist.time(at: date) else {
                emit(.seekRequested, [("date", .string(date.iso8601))])
                emit(.seekRefused, [("reason", .string("the primary has no EXT-X-PROGRAM-DATE-TIME to place a date"))])
                return
            }
            seek(to: time)
        case .seekIntegrated(let time): seekIntegrated(time)
        case .seekInInterstitial(let offset): seekInInterstitial(offset)
        case .skipCurrentEvent: skipCurrentEvent()
        case .cancelCurrentEvent(let offset): cancelCurrentEvent(offset)
        case .setEvents(let events): setEvents(events)
        case .setRestrictions(let id, let restrictions):
            var events = activeEvents
            guard let index = events.firstIndex(where: { $0.identifier == id }) else {
                emit(.warning, [("message", .string("no event \"\(id)\" to change the restrictions of"))])
                return
            }
            events[index].restrictions = restrictions
            setEvents(events)
        case .setAutomaticallyHandlesInterstitialEvents(let on):
            guard on != automaticallyHandles else { return }
            automaticallyHandles = on
            recompute()
            emitEventsChanged()
        case .selectAudio(let option): select(option, type: "AUDIO")
        case .selectSubtitles(let option): select(option, type: "SUBTITLES")
        }
    }

    /// Selects the primary's rendition of a TYPE that matches `option` (``TrackMatcher``); assets
    /// loaded from now on match the new selection.
    mutating func select(_ option: MediaOption?, type: String) {
        let candidates = renditions.filter { $0.type == type }
        guard !candidates.isEmpty else {
            emit(.warning, [("message", .string("the primary offers no \(type) renditions to select"))])
            return
        }
        let chosen = TrackMatcher.select(candidates, matching: option, type: type).map(TrackMatcher.option)
        if option != nil && chosen == nil {
            emit(
                .warning,
                [("message", .string("no \(type) rendition matches \(option?.description ?? ""); subtitles are off"))])
        }
        if type == "AUDIO" { tracks.audio = chosen } else { tracks.subtitles = chosen }
        emit(
            .tracksSelected,
            [
                ("audio", tracks.audio.map { .string($0.description) } ?? .null),
                ("subtitles", tracks.subtitles.map { .string($0.description) } ?? .null),
            ])
    }

    /// Whether the current event forbids advancing: X-RESTRICT=SKIP (R13).
    var currentEventRestrictsSkip: Bool { mode == .interstitial && run?.event.restrictions.contains(.skip) == true }

    mutating func setRate(_ value: Double) {
        guard value.isFinite, value >= 0, value <= Self.maximumRate else {
            let reason =
                value > Self.maximumRate
                ? "rates above \(Int(Self.maximumRate)) are not supported" : "reverse playback is not supported"
            emit(.rateRefused, [("rate", .number(value)), ("reason", .string(reason))])
            return
        }
        if value == 0 {
            playing = false
            emit(.paused)
            return
        }
        if value > 1, currentEventRestrictsSkip, let run {
            emit(
                .rateRefused,
                [
                    ("rate", .number(value)),
                    (
                        "reason",
                        .string(
                            "interstitial \"\(run.eventID)\" has X-RESTRICT=SKIP: no rate above 1 until it ends (App. D.2)"
                        )
                    ),
                ])
            return
        }
        rate = value
        playing = true
        emit(.rateChanged, [("rate", .number(value))])
    }

    /// The fastest rate accepted.
    static let maximumRate: Double = 64

    /// Seeks primary to `target` (R8, R13, R14, R15).
    mutating func seek(to target: MediaTime) {
        emit(.seekRequested, [("to", .time(target))])
        guard let timeline else {
            emit(.seekRefused, [("reason", .string("the primary is not loaded yet"))])
            return
        }
        if mode == .interstitial, let run {
            if run.event.restrictions.contains(.skip) && target >= run.suspendedAt {
                emit(
                    .seekRefused,
                    [
                        ("to", .time(target)),
                        (
                            "reason",
                            .string(
                                "interstitial \"\(run.eventID)\" has X-RESTRICT=SKIP: no seeking forward until it ends (App. D.2)"
                            )
                        ),
                    ])
                return
            }
            if run.group.cue == .join || run.group.cue == .leave {
                // Primary has not started (PRE) or has ended (POST): the seek ends the interstitial.
                if run.group.cue == .join { started = true }
            }
            endMember(.seek)
        }
        if mode == .ended {
            mode = .primary
            postPlayed = false
        }
        let first = timeline.playlist.segments.first?.startTime ?? .zero
        let to = min(max(target, first), timeline.end)
        let from = position
        if to < from {
            for group in groups where group.start > to { suppressed.remove(group.key) }
        }
        handledKey = nil
        stalled = false
        actions.append(.flush)
        if !started {
            position = to
            emit(.seekCompleted, [("to", .time(to))])
            return
        }
        // R15: into a resume window, the event plays from its beginning.
        if let window = resumeWindow(containing: to) {
            position = window.start
            emit(
                .seekCompleted,
                [
                    ("to", .time(window.start)),
                    ("reason", .string("inside the resume window of \"\(window.key)\" (R15)")),
                ])
            return
        }
        // R14: crossing JUMP events plays the last one crossed, then the seek completes.
        if to > from,
            let crossed = groups.last(where: { group in
                group.cue == .none && group.start > from && group.start < to && isPlayable(group)
                    && group.members.contains { id in
                        !exhausted.contains(id) && activeEvent(id)?.restrictions.contains(.jump) == true
                    }
            })
        {
            position = crossed.start
            pendingSeekCompletion = to
            startRun(crossed, resumeOverride: to)
            return
        }
        position = to
        emit(.seekCompleted, [("to", .time(to))])
    }

    /// Seeks on the integrated timeline: primary segments map to primary time; an interstitial
    /// segment seeks to its event's start.
    mutating func seekIntegrated(_ time: MediaTime) {
        guard let schedule, let index = schedule.item(atIntegrated: time) else {
            emit(.seekRequested, [("integrated", .time(time))])
            emit(.seekRefused, [("reason", .string("integrated time \(time) is outside the timeline"))])
            return
        }
        let item = schedule.items[index]
        switch item.kind {
        case .primary: seek(to: item.primary.start + (time - item.integrated.lowerBound))
        case .interstitial:
            let event = item.eventIndex.map { schedule.events[$0] }
            seek(to: event?.start ?? item.primary.start)
        }
    }

    /// Seeks inside the current event; forward is refused under SKIP (R13), backward is allowed.
    mutating func seekInInterstitial(_ offset: MediaTime) {
        emit(.seekRequested, [("interstitialTime", .time(offset))])
        guard mode == .interstitial, let run else {
            emit(.seekRefused, [("reason", .string("no interstitial is playing"))])
            return
        }
        if offset > run.elapsed && run.event.restrictions.contains(.skip) {
            emit(
                .seekRefused,
                [
                    ("interstitialTime", .time(offset)),
                    (
                        "reason",
                        .string(
                            "interstitial \"\(run.eventID)\" has X-RESTRICT=SKIP: no seeking forward until it ends (App. D.2)"
                        )
                    ),
                ])
            return
        }
        guard run.plan != nil else {
            emit(.seekRefused, [("reason", .string("the interstitial's assets are not loaded yet"))])
            return
        }
        guard moveInMember(to: offset) else {
            emit(.seekRefused, [("reason", .string("the interstitial has no playable asset"))])
            return
        }
        emit(.seekCompleted, [("interstitialTime", .time(offset))])
    }

    /// Moves to `offset` (from where the member's playback began) in the current member's assets;
    /// false when none of them is playable.
    mutating func moveInMember(to offset: MediaTime) -> Bool {
        guard var run, let plan = run.plan else { return false }
        // Find the asset at `offset` along the plan.
        var start = MediaTime.zero
        var target: (position: Int, index: Int, media: AssetMedia, offset: MediaTime)?
        for (position, index) in plan.enumerated() {
            guard case .loaded(let media)? = assets[run.eventID]?[index] else { continue }
            let length = position == 0 ? media.duration - run.startOffsetInFirstAsset : media.duration
            if offset < start + length || position == plan.count - 1 {
                let into = min(offset - start, length) + (position == 0 ? run.startOffsetInFirstAsset : .zero)
                target = (position, index, media, max(.zero, into))
                break
            }
            start = start + length
        }
        guard let target else { return false }
        if run.assetIndex != target.index, let index = run.assetIndex {
            emit(.assetEnded, [("id", .string(run.eventID)), ("index", .integer(index)), ("reason", .string("seek"))])
        }
        let changed = run.assetIndex != target.index
        run.planPosition = target.position
        run.assetIndex = target.index
        run.currentMedia = target.media
        run.assetPosition = target.offset
        run.elapsed = run.joinOffset + offset
        self.run = run
        if changed { emitAssetStarted(target.index, media: target.media) }
        return true
    }

    /// Skips the current event (R16): allowed inside the skip control window even under SKIP;
    /// without a window, allowed unless SKIP is set.
    mutating func skipCurrentEvent() {
        guard mode == .interstitial, let run else {
            emit(.skipRefused, [("reason", .string("no interstitial is playing"))])
            return
        }
        let restricted = run.event.restrictions.contains(.skip)
        let state = skippableState(run)
        if state != .eligible && restricted {
            let reason: String
            switch state {
            case .notYetEligible:
                reason =
                    "interstitial \"\(run.eventID)\" has X-RESTRICT=SKIP and its skip control opens at \(run.skipControl.offset?.formatted(fractionDigits: 3) ?? "?") s (now \(run.elapsed.formatted(fractionDigits: 3)) s)"
            case .noLongerEligible:
                reason = "interstitial \"\(run.eventID)\" has X-RESTRICT=SKIP and its skip control window has closed"
            default:
                reason = "interstitial \"\(run.eventID)\" has X-RESTRICT=SKIP and no skip control"
            }
            emit(.skipRefused, [("id", .string(run.eventID)), ("reason", .string(reason))])
            return
        }
        emit(.eventSkipped, [("id", .string(run.eventID))])
        notify(.currentEventSkipped(run.event))
        endMember(.skipped)
    }

    /// Abandons the whole group and resumes primary at the given offset from the group's start:
    /// indefinite is the wall-clock time elapsed, nil (invalid) where primary would have resumed.
    mutating func cancelCurrentEvent(_ offset: ResumptionOffset?) {
        guard mode == .interstitial, var run else { return }
        let resume: MediaTime
        switch offset {
        case .time(let value)?: resume = run.base + value
        case .indefinite?: resume = run.base + MediaTime(nanoseconds: Self.nanoseconds(clock - run.groupStartedAt))
        case nil: resume = run.projectedResume
        }
        run.resumeOverride = resume
        self.run = run
        emit(
            .interstitialCancelled,
            [("id", .string(run.eventID)), ("resumptionOffset", .string(offset.map(\.description) ?? "invalid"))])
        endMember(.cancelled)
    }

    /// Sets the controller's events (nil restores the server's). A current event that is not in
    /// the new set runs to completion; later members that are not are dropped.
    mutating func setEvents(_ events: [InterstitialEvent]?) {
        controllerEvents = events
        recompute()
        emitEventsChanged()
        guard var run else { return }
        let ids = Set(activeEvents.map(\.identifier))
        let current = run.eventID
        run.members = run.members.enumerated().filter { $0.offset <= run.memberIndex || ids.contains($0.element) }
            .map(\.element)
        run.memberIndex = run.members.firstIndex(of: current) ?? 0
        self.run = run
    }
}
