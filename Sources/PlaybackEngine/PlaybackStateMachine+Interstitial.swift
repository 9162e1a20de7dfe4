import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    // MARK: Starting

    /// Starts playing `group` with primary suspended at `position`: from member `from` (earlier ones
    /// play nothing), `joinOffset` into it.
    mutating func startRun(
        _ group: Group, from member: String? = nil, joinOffset: MediaTime = .zero, resumeOverride: MediaTime? = nil
    ) {
        var members = group.members.filter { !program.exhausted.contains($0) && activeEvent($0) != nil }
        if let member, let index = members.firstIndex(of: member) { members.removeFirst(index) }
        guard let first = members.first, let event = activeEvent(first) else { return }
        rebind(members)
        transition(
            to: .interstitial(
                GroupRun(
                    group: group, members: members, event: event, suspendedAt: position, at: clock,
                    joinOffset: joinOffset, resumeOverride: resumeOverride)), because: .groupStarted)
        actions.append(.flush)
    }

    /// The playout limit of the current member: its X-PLAYOUT-LIMIT, or the template's maximum when
    /// that is smaller.
    func playoutLimit(of event: InterstitialEvent) -> MediaTime? {
        switch (event.playoutLimit, template.maximumPlayoutDuration) {
        case (let own?, let most?): min(own, most)
        case (let own, let most): own ?? most
        }
    }

    /// The tracks interstitial assets select: the template's, else the primary's.
    package var assetTracks: TrackSelection { template.preferredTracks ?? tracks }

    /// The event with an ID among the active events.
    func activeEvent(_ id: String) -> InterstitialEvent? { activeEvents.first { $0.identifier == id } }

    /// The resolved schedule entry of an event.
    func scheduledEvent(_ id: String) -> InterstitialSchedule.Event? { schedule?.events.first { $0.id == id } }

    /// What plays for an event: the client's assets, its single X-ASSET-URI, or its loaded asset
    /// list; nil while the list is not loaded.
    package func playList(for event: InterstitialEvent) -> AssetList? {
        if let given = event.assetList { return given }
        if let uri = event.assetURI {
            return AssetList(assets: [AssetList.Asset(uri: uri, duration: event.duration ?? .zero)])
        }
        if event.assetListURI != nil {
            if case .loaded(let list)? = loads.lists[event.identifier] { return list }
            return nil
        }
        return AssetList(assets: [])
    }

    /// Whether an event's content failed to load (R7): its asset list, its X-ASSET-URI, or every
    /// asset of its list.
    func hasFailed(_ id: String) -> Bool {
        if case .failed? = loads.lists[id] { return true }
        guard let event = activeEvent(id) ?? (run?.eventID == id ? run?.event : nil), let list = playList(for: event),
            !list.assets.isEmpty
        else { return false }
        return list.assets.indices.allSatisfy {
            if case .failed? = loads.assets[id]?[$0] { return true }
            return false
        }
    }

    /// Client rebinding (``InterstitialItemTemplate/rebindsAssetLists``): forgets the asset lists of
    /// the events about to play again, so that they are requested anew when the run reaches them.
    mutating func rebind(_ members: [String]) {
        guard template.rebindsAssetLists else { return }
        for id in members where program.played[id] != nil {
            guard let event = activeEvent(id), event.assetList == nil, event.assetURI == nil,
                event.assetListURI != nil, case .loaded? = loads.lists[id], !loads.inFlight.contains(.assetList(id))
            else { continue }
            loads.forget(eventID: id)
            beacons.forget(eventID: id)
            emit(.assetListRebound, [("id", .string(id))])
        }
    }

    // MARK: Progress

    /// One transition of the current member, if one is due; false when nothing changed.
    mutating func stepInterstitial() -> Bool {
        guard let current = run else { return false }
        let id = current.eventID
        let event = activeEvent(id) ?? current.event
        let content = GroupRun.Content(
            failed: hasFailed(id), list: playList(for: event), assets: loads.assets[id] ?? [:],
            playoutLimit: playoutLimit(of: event), maximumAssetCount: template.maximumAssetCount)
        let now = clock
        guard let step = updateRun({ $0.step(event: event, content: content, at: now) }), let run else { return false }
        switch step {
        case .none, .waiting: return false
        case .planned, .passedFailedAsset: return true
        case .memberStarted:
            if run.event.willPlayOnce { program.exhaust(id) }
            var fields: [(name: String, value: PlaybackEvent.Value)] = [("id", .string(id))]
            if run.joinOffset > .zero { fields.append(("startOffset", .time(run.joinOffset))) }
            if let schedule = run.event.scheduleIdentifier { fields.append(("schedule", .string(schedule))) }
            emit(.interstitialStarted, fields)
            notify(.currentEventDidChange(run.event))
        case .assetStarted(let index):
            if let media = run.currentMedia { emitAssetStarted(index, media: media) }
        case .assetEnded(let index):
            emit(.assetEnded, [("id", .string(id)), ("index", .integer(index))])
        case .skippableChanged(let state):
            reportSkippable(state, of: run)
        case .end(let ending):
            endMember(ending)
        }
        return true
    }

    /// Records that asset `index` of the current member started, with the renditions chosen to
    /// match the primary's.
    mutating func emitAssetStarted(_ index: Int, media: AssetMedia) {
        guard let run else { return }
        var fields: [(name: String, value: PlaybackEvent.Value)] = [
            ("id", .string(run.eventID)), ("index", .integer(index)),
            ("uri", .string(playList(for: run.event)?.assets[index].uri ?? "")),
        ]
        if let tracks = media.tracks {
            fields.append(("audio", tracks.audio.map { .string($0.description) } ?? .null))
            fields.append(("subtitles", tracks.subtitles.map { .string($0.description) } ?? .null))
        }
        emit(.assetStarted, fields)
        trackAssetStart(index, media: media)
    }

    /// Reports the current member's new skippable state, with its label (trace and notification).
    mutating func reportSkippable(_ state: SkippableEventState, of run: GroupRun) {
        let label = skipLabel(state, labelID: run.skipControl.labelID)
        var fields: [(name: String, value: PlaybackEvent.Value)] = [
            ("id", .string(run.eventID)), ("state", .string(state.rawValue)),
        ]
        if let label { fields.append(("label", .string(label))) }
        emit(.skippableStateChanged, fields)
        notify(.currentEventSkippableStateDidChange(event: run.event, state: state, label: label))
    }

    /// Ends the current member and goes on to the next one, or resumes primary.
    mutating func endMember(_ ending: GroupRun.Ending) {
        trackMemberEnd(skipped: ending == .skipped)
        if run != nil, updateRun({ $0.endSkippable() }) == true, let run { reportSkippable(.notSkippable, of: run) }
        guard let ended = run else { return }
        let id = ended.eventID
        if let index = ended.assetIndex, ending != .completed {
            emit(.assetEnded, [("id", .string(id)), ("index", .integer(index)), ("reason", .string(ending.rawValue))])
        }
        let playedNow = ending == .failed ? MediaTime.zero : ended.elapsed
        if ending != .failed {
            // An indefinite offset is the wall-clock time elapsed (R4); the schedule resumes after it.
            program.record(
                played: ended.event.resumptionOffset == .indefinite
                    ? MediaTime(clock - ended.member.startedAt) : playedNow,
                for: id)
        }
        recompute()
        // Events that joined the group once this member's length became known (a PRE without
        // DURATION, R3, R5) play after it instead of being skipped with the primary it covers.
        var joining: [String] = []
        if let group = program.groups.first(where: { $0.members.contains(id) }),
            let own = group.members.firstIndex(of: id), ending != .cancelled, ending != .seek
        {
            joining = group.members[(own + 1)...].filter {
                !program.exhausted.contains($0) && activeEvent($0) != nil
            }
        }
        let scheduledResume = scheduledEvent(id)?.resumeTime
        updateRun { $0.memberEnded(resume: scheduledResume, joining: joining) }
        guard let run else { return }
        let goesOn = run.hasNextMember && ending != .cancelled && ending != .seek
        let resume = goesOn ? run.resume : run.resumePoint
        notify(
            .eventDidFinish(
                run.event, playoutTime: playedNow - min(playedNow, run.joinOffset),
                didPlayEntireEvent: ending == .completed && !run.cutShort))
        var fields: [(name: String, value: PlaybackEvent.Value)] = [
            ("id", .string(id)), ("playedDuration", .time(playedNow - min(playedNow, run.joinOffset))),
            ("resumeTime", run.group.cue == .leave ? .null : .time(resume)),
        ]
        if ending != .completed { fields.append(("reason", .string(ending.rawValue))) }
        fields.append(("playedEntirely", .bool(ending == .completed && !run.cutShort)))
        emit(.interstitialEnded, fields)
        if goesOn {
            switchMember(to: run.memberIndex + 1)
            return
        }
        if ending == .seek {
            transition(to: .primary(PrimaryState(started: true)), because: .resumed)
            playhead.jump(to: run.suspendedAt)
            notify(.currentEventDidChange(nil))
            return
        }
        finishRun()
    }

    /// Makes member `index` of the current group the current one, not yet started.
    mutating func switchMember(to index: Int) {
        guard let run, run.members.indices.contains(index) else { return }
        let event = activeEvent(run.members[index])
        let now = clock
        updateRun { $0.switchMember(to: index, event: event, at: now) }
    }

    /// Resumes primary after the group (R5, R6 IN, R8, R10), or ends after POST (R9).
    mutating func finishRun() {
        guard let run else { return }
        notify(.currentEventDidChange(nil))
        if run.group.cue == .leave {
            playhead.jump(to: timeline?.end ?? position)
            transition(to: .ended, because: .ended)
            playhead.pause()
            emit(.ended)
            return
        }
        // After the PRE, a group that covers the playback start plays from there (R9, R26); primary
        // then resumes at that group's resumption point.
        if run.group.cue == .join, run.resumeOverride == nil, let (group, member) = startInside() {
            playhead.jump(to: program.startPoint ?? position)
            transition(to: .primary(PrimaryState(started: true)), because: .resumed)
            startRun(group, from: member.id, joinOffset: member.startOffset)
            if self.run != nil { return }
        }
        var resume = run.resumePoint
        var handled: String?
        if run.group.cue != .join && resume < run.group.start {
            program.suppress(run.group.key)
        } else if run.group.cue != .join && resume == run.group.start {
            handled = run.group.key
        }
        let lowest = timeline?.playlist.segments.first?.startTime ?? .zero
        resume = max(resume, lowest)
        if let timeline, !timeline.isLive { resume = min(resume, timeline.end) }
        transition(to: .primary(PrimaryState(started: true, handledKey: handled)), because: .resumed)
        playhead.jump(to: resume)
        emit(.primaryResumed)
        if let target = run.completesSeek { emit(.seekCompleted, [("to", .time(target))]) }
    }
}
