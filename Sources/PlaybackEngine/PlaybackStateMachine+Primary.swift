import HLSInterstitials
import HLSPlaylist

extension PlaybackStateMachine {
    /// The events in force: the controller's when it set some (they override the server's, reference
    /// §2.3); otherwise the server's, unless `automaticallyHandlesInterstitialEvents` is false.
    var activeEvents: [InterstitialEvent] {
        controllerEvents ?? (automaticallyHandles ? timeline?.events ?? [] : [])
    }

    /// The active events as scheduled now: resolved asset lists (with the durations of the loaded
    /// asset playlists, failed assets left out), failures, played durations and the playback start
    /// point (R26). ONCE events that played are left out once their group is over (R9); a playing
    /// event stays until it ends (R12).
    mutating func recompute() {
        guard let timeline else { return }
        var failed: Set<String> = []
        let current = Set(run?.members ?? [])
        var scheduled = activeEvents.filter {
            !program.exhausted.contains($0.identifier) || current.contains($0.identifier)
        }
        // A playing event that was removed runs to completion (R12): it stays scheduled until then.
        if let run, !scheduled.contains(where: { $0.identifier == run.eventID }) { scheduled.append(run.event) }
        let events = scheduled.map { event -> InterstitialEvent in
            var event = event
            let id = event.identifier
            if hasFailed(id) {
                failed.insert(id)
                return event
            }
            guard var list = playList(for: event) else { return event }
            if event.assetURI != nil && event.assetList == nil {
                guard case .loaded? = loads.assets[id]?[0] else { return event }
            }
            var kept: [AssetList.Asset] = []
            for (index, asset) in list.assets.enumerated() {
                switch loads.assets[id]?[index] {
                case .failed?: continue
                case .loaded(let media)?:
                    var asset = asset
                    asset.duration = media.duration
                    kept.append(asset)
                default: kept.append(asset)
                }
            }
            list.assets = kept
            event.assetList = list
            return event
        }
        let input = ScheduleInput(
            primary: timeline.playlist, otherPlaylists: timeline.others, events: events,
            failedEvents: failed, playedDurations: program.played, isLive: timeline.isLive,
            playbackStart: program.startPoint)
        program.scheduled(InterstitialSchedule.resolve(input))
    }

    /// Whether a group still has a member to play.
    func isPlayable(_ group: Group) -> Bool { group.members.contains { !program.exhausted.contains($0) } }

    /// The first mid-roll group after `time` (or at it, unless it just played there) that will fire.
    func nextGroup(after time: MediaTime, inclusive: Bool) -> Group? {
        program.groups.first { group in
            group.cue == .none
                && (group.start > time || (inclusive && group.start == time && group.key != primary?.handledKey))
                && !program.suppressed.contains(group.key) && isPlayable(group)
        }
    }

    /// The group that fires at the playhead now, if any.
    func dueGroup() -> Group? {
        program.groups.first { group in
            group.cue == .none && group.start == position && group.key != primary?.handledKey
                && !program.suppressed.contains(group.key) && isPlayable(group)
        }
    }

    // MARK: Loading the primary

    mutating func primaryLoaded(_ presentation: PrimaryPresentation) {
        loads.finished(.primary)
        guard var timeline else {
            let timeline = PrimaryTimeline(presentation)
            let start = startPosition(timeline)
            program.loaded(timeline, startingAt: start)
            selection.loaded(presentation)
            playhead.jump(to: start)
            recompute()
            var pending: Placement?
            if case .loading(let placement) = state { pending = placement }
            transition(to: .primary(PrimaryState(started: false)), because: .primaryLoaded)
            placePreloads()
            emitEventsChanged()
            // Before playback may begin: it waits for the documents the first load names (R27).
            requestSchedules()
            placePending(pending)
            if timeline.isLive { loads.scheduleReload(at: clock + Duration(timeline.targetDuration)) }
            return
        }
        let update = timeline.merge(presentation)
        program.revise(timeline)
        discardRemovedPreloads()
        for conflict in update.conflicts { emit(.warning, [("message", .string(conflict))]) }
        if update.newSegments > 0, mode == .primary { updatePrimary { $0.grew() } }
        if update.eventsChanged {
            for event in update.removed where run?.members.contains(event.identifier) != true {
                let id = event.identifier
                let start = scheduledEvent(id)?.start
                if let start, start >= position || mode == .loading {
                    // Its content had been resolved: the asset list, or the X-ASSET-URI asset.
                    var error: String?
                    var resolved = false
                    switch loads.lists[id] {
                    case .loaded?: resolved = true
                    case .failed(let message)?: error = message
                    default: break
                    }
                    if event.assetURI != nil {
                        switch loads.assets[id]?[0] {
                        case .loaded?: resolved = true
                        case .failed(let message)?: error = message
                        default: break
                        }
                    }
                    var fields: [(name: String, value: PlaybackEvent.Value)] = [("id", .string(id))]
                    if let error { fields.append(("error", .string(error))) }
                    emit(.eventUnscheduled, fields)
                    if resolved || error != nil { notify(.eventWasUnscheduled(event, error: error)) }
                }
                loads.forget(eventID: id)
            }
            recompute()
            emitEventsChanged()
        } else {
            recompute()
        }
        placePreloads()
        let interval = timeline.targetDuration
        loads.scheduleReload(
            at: timeline.isLive
                ? clock + .nanoseconds(update.newSegments > 0 ? interval.nanoseconds : interval.nanoseconds / 2) : nil)
    }

    mutating func emitEventsChanged() {
        let ids = activeEvents.map(\.identifier)
        emit(.eventsChanged, [("count", .integer(ids.count)), ("ids", .string(ids.joined(separator: ",")))])
        notify(.eventsDidChange)
    }

    /// Where primary starts: the configured time, EXT-X-START, or 0 (VOD) / the live start point
    /// (hold back from the end, 3 target durations by default), at a segment boundary.
    func startPosition(_ timeline: PrimaryTimeline) -> MediaTime {
        let playlist = timeline.playlist
        let first = playlist.segments.first?.startTime ?? .zero
        let end = timeline.end
        var start: MediaTime
        if let given = configuration.startTime {
            start = first + given
        } else if let point = playlist.start {
            start = point.timeOffset < .zero ? end + point.timeOffset : first + point.timeOffset
        } else if timeline.isLive {
            let holdBack =
                playlist.serverControl?.holdBack
                ?? MediaTime(nanoseconds: timeline.targetDuration.nanoseconds * 3)
            start = end - holdBack
            if let segment = playlist.segments.last(where: { $0.startTime <= start }) { start = segment.startTime }
        } else {
            start = first
        }
        return min(max(start, first), end)
    }

    /// Starts playback once the primary is loaded and play was asked for: PRE first (R9), a start
    /// inside an event from there (R11, R26), else primary.
    mutating func begin() {
        guard timeline != nil else { return }
        if program.moveStart(to: position) { recompute() }
        if let pre = program.groups.first(where: { $0.cue == .join && isPlayable($0) }) {
            startRun(pre)
            if run != nil { return }
        }
        if let (group, member) = startInside() {
            startRun(group, from: member.id, joinOffset: member.startOffset)
            if run != nil { return }
        }
        updatePrimary { $0.begin() }
        emit(.primaryResumed)
    }

    /// The group that plays at the playback start point although it starts before it (R11, R26),
    /// and the member that plays first: the schedule gives it a playout from there. It plays after
    /// the PRE group, if any (R9).
    func startInside() -> (Group, InterstitialSchedule.Event)? {
        let point = program.startPoint ?? position
        for group in program.groups where group.cue == .none && group.start < point && group.playout > .zero {
            let members = group.members.compactMap { scheduledEvent($0) }
            if let member = members.first(where: { $0.playoutDuration > .zero && !program.exhausted.contains($0.id) }) {
                return (group, member)
            }
        }
        return nil
    }

    /// The group with a positive offset whose [start, resumption point) contains `time` (R15).
    func resumeWindow(containing time: MediaTime) -> Group? {
        program.groups.first { group in
            group.cue == .none && group.start < time && time < group.resume && !program.suppressed.contains(group.key)
                && isPlayable(group)
        }
    }

    // MARK: Settling

    /// Processes every transition due at the current clock time, then starts the loads due.
    mutating func settle() {
        trackAssetProgress()
        var count = 0
        while count < configuration.transitionLimit, transition() { count += 1 }
        if count == configuration.transitionLimit { warnLimit("\(count) transitions at one clock time") }
        trackIndependence()
        issueLoads()
    }

    /// One due transition; false when none is due.
    mutating func transition() -> Bool {
        switch mode {
        case .loading, .ended: return false
        case .interstitial: return stepInterstitial()
        case .primary:
            guard let timeline else { return false }
            if !started {
                guard playing, !awaitsScheduleDocuments else { return false }
                begin()
                return true
            }
            if let group = dueGroup() {
                startRun(group)
                return true
            }
            if !timeline.isLive && position >= timeline.end {
                if let post = program.groups.first(where: { $0.cue == .leave && isPlayable($0) }) {
                    startRun(post)
                    if run != nil { return true }
                }
                transition(to: .ended, because: .ended)
                playhead.pause()
                emit(.ended)
                return true
            }
            if timeline.isLive && position >= timeline.end && primary?.stalled == false {
                updatePrimary { $0.stall() }
                emit(.stalled, [("reason", .string("primary reached the live edge; waiting for the playlist to grow"))])
                return true
            }
            return false
        }
    }
}
