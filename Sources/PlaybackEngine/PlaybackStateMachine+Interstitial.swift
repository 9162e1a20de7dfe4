import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// An interstitial group being played: its members one after the other, each one's assets back
    /// to back.
    package struct Run: Sendable {
        /// How a member ended.
        enum Ending: String, Sendable {
            case completed, limit, skipped, cancelled, failed, seek
        }

        /// The group; resumption offsets count from its start (for PRE, the playback start point, R10).
        var group: Group
        /// The members to play, in order (ONCE events already played are left out).
        var members: [String]
        var memberIndex = 0
        /// Where primary was suspended.
        var suspendedAt: MediaTime
        var groupStartedAt: Duration
        /// Where primary resumes after the members that ended, as the schedule has it (R5).
        var resume: MediaTime
        /// Where primary resumes instead (a JUMP seek's target, a cancel's offset).
        var resumeOverride: MediaTime?
        /// The target of the JUMP seek that started the group: the seek completes when it ends (R14).
        var completesSeek: MediaTime?
        /// Where primary would resume if every member played as scheduled.
        var projectedResume: MediaTime
        /// For a start inside the first member (a live join, R11, R26; a seek into a RANGE event): the
        /// offset into it.
        package internal(set) var joinOffset: MediaTime = .zero
        /// Where the current member starts once its assets are known (a coordinated group is
        /// further in).
        var seekOffset: MediaTime?

        /// The current member as last seen (kept if the server removes it: it runs to completion).
        package internal(set) var event: InterstitialEvent
        var memberStartedAt: Duration
        var memberStarted = false
        /// Time from the start of the member: played, plus the join offset.
        package internal(set) var elapsed: MediaTime = .zero
        /// The indices of the assets to play; nil until the asset list is known.
        package internal(set) var plan: [Int]?
        package internal(set) var planPosition = 0
        var startOffsetInFirstAsset: MediaTime = .zero
        /// The asset playing, with its media.
        package internal(set) var assetIndex: Int?
        var currentMedia: AssetMedia?
        /// The position in the current asset.
        package internal(set) var assetPosition: MediaTime = .zero
        var skipControl = SkipControl()
        var skippable = SkippableEventState.notSkippable
        /// Waiting for an asset list or an asset playlist.
        var waiting = false

        /// The ID of the current member.
        package var eventID: String { members[memberIndex] }
        /// The duration of the asset playing; nil between assets.
        package var currentDuration: MediaTime? { currentMedia?.duration }
    }

    // MARK: Starting

    /// Starts playing `group` with primary suspended at `position`: from member `from` (earlier ones
    /// play nothing), `joinOffset` into it.
    mutating func startRun(
        _ group: Group, from member: String? = nil, joinOffset: MediaTime = .zero, resumeOverride: MediaTime? = nil
    ) {
        var members = group.members.filter { !exhausted.contains($0) && activeEvent($0) != nil }
        if let member, let index = members.firstIndex(of: member) { members.removeFirst(index) }
        guard let first = members.first, let event = activeEvent(first) else { return }
        rebind(members)
        var run = Run(
            group: group, members: members, suspendedAt: position, groupStartedAt: clock,
            resume: group.start, resumeOverride: resumeOverride, projectedResume: group.resume,
            joinOffset: joinOffset, event: event, memberStartedAt: clock)
        run.elapsed = joinOffset
        state = .interstitial(run)
        actions.append(.flush)
    }

    /// The playout limit of the current member: its X-PLAYOUT-LIMIT, or the template's maximum when
    /// that is smaller.
    func playoutLimit(of run: Run) -> MediaTime? {
        switch (run.event.playoutLimit, template.maximumPlayoutDuration) {
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
            if case .loaded(let list)? = lists[event.identifier] { return list }
            return nil
        }
        return AssetList(assets: [])
    }

    /// Whether an event's content failed to load (R7): its asset list, its X-ASSET-URI, or every
    /// asset of its list.
    func hasFailed(_ id: String) -> Bool {
        if case .failed? = lists[id] { return true }
        guard let event = activeEvent(id) ?? (run?.eventID == id ? run?.event : nil), let list = playList(for: event),
            !list.assets.isEmpty
        else { return false }
        return list.assets.indices.allSatisfy {
            if case .failed? = assets[id]?[$0] { return true }
            return false
        }
    }

    /// Client rebinding (``InterstitialItemTemplate/rebindsAssetLists``): forgets the asset lists of
    /// the events about to play again, so that they are requested anew when the run reaches them.
    mutating func rebind(_ members: [String]) {
        guard template.rebindsAssetLists else { return }
        for id in members where played[id] != nil {
            guard let event = activeEvent(id), event.assetList == nil, event.assetURI == nil,
                event.assetListURI != nil, case .loaded? = lists[id], !inFlight.contains(.assetList(id))
            else { continue }
            lists.removeValue(forKey: id)
            listURLs.removeValue(forKey: id)
            assets.removeValue(forKey: id)
            beacons.forget(eventID: id)
            emit(.assetListRebound, [("id", .string(id))])
        }
    }

    // MARK: Progress

    /// One transition of the current member, if one is due; false when nothing changed.
    mutating func stepInterstitial() -> Bool {
        guard var run else { return false }
        if let fresh = activeEvent(run.eventID) { run.event = fresh }
        let id = run.eventID
        defer { self.run = run }
        if !run.memberStarted {
            run.memberStarted = true
            run.memberStartedAt = clock
            if run.event.willPlayOnce { exhausted.insert(id) }
            var fields: [(name: String, value: PlaybackEvent.Value)] = [("id", .string(id))]
            if run.joinOffset > .zero { fields.append(("startOffset", .time(run.joinOffset))) }
            self.run = run
            emit(.interstitialStarted, fields)
            notify(.currentEventDidChange(run.event))
            return true
        }
        if run.plan == nil {
            if hasFailed(id) {
                self.run = run
                endMember(.failed)
                run = self.run ?? run
                return true
            }
            guard let list = playList(for: run.event) else {
                run.waiting = true
                return false
            }
            run.skipControl = run.event.skipControl.overridden(by: list.skipControl)
            let skip = max(run.joinOffset, run.seekOffset ?? .zero)
            var timed = list
            if skip > .zero, run.event.assetURI != nil, run.event.assetList == nil {
                // Where to start inside an X-ASSET-URI asset needs its real duration (the tag may
                // give none, only X-PLAYOUT-LIMIT): wait for its playlist (R11, R26).
                switch assets[id]?[0] {
                case .loaded(let media)?: timed.assets[0].duration = media.duration
                case .failed?: break
                default:
                    run.waiting = true
                    return false
                }
            }
            run.seekOffset = nil
            if skip > .zero {
                if let start = timed.startPosition(at: skip) {
                    run.plan = Array(start.index..<timed.assets.count)
                    run.startOffsetInFirstAsset = start.offset
                } else {
                    run.plan = []
                }
            } else {
                run.plan = Array(list.assets.indices)
            }
            if let most = template.maximumAssetCount { run.plan = run.plan.map { Array($0.prefix(max(0, most))) } }
            run.waiting = false
            return true
        }
        if run.assetIndex == nil {
            guard let plan = run.plan, run.planPosition < plan.count else {
                self.run = run
                endMember(hasFailed(id) ? .failed : .completed)
                run = self.run ?? run
                return true
            }
            let index = plan[run.planPosition]
            switch assets[id]?[index] {
            case .loaded(let media)?:
                run.assetIndex = index
                run.currentMedia = media
                run.assetPosition = run.planPosition == 0 ? run.startOffsetInFirstAsset : .zero
                run.waiting = false
                self.run = run
                emitAssetStarted(index, media: media)
                return true
            case .failed?:
                run.planPosition += 1
                return true
            default:
                run.waiting = true
                return false
            }
        }
        if let limit = playoutLimit(of: run), run.elapsed >= limit {
            self.run = run
            endMember(.limit)
            run = self.run ?? run
            return true
        }
        if let media = run.currentMedia, run.assetPosition >= media.duration {
            self.run = run
            emit(.assetEnded, [("id", .string(id)), ("index", .integer(run.assetIndex ?? 0))])
            run.assetIndex = nil
            run.currentMedia = nil
            run.planPosition += 1
            return true
        }
        let state = skippableState(run)
        if state != run.skippable {
            run.skippable = state
            notify(.currentEventSkippableStateDidChange(event: run.event, state: state))
            return true
        }
        return false
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

    /// The skippable state at the member's elapsed time (R16).
    func skippableState(_ run: Run) -> SkippableEventState {
        guard let window = run.skipControl.window else { return .notSkippable }
        if run.elapsed < window.start { return .notYetEligible }
        if let end = window.end, run.elapsed >= end { return .noLongerEligible }
        return .eligible
    }

    /// Ends the current member and goes on to the next one, or resumes primary.
    mutating func endMember(_ ending: Run.Ending) {
        trackMemberEnd(skipped: ending == .skipped)
        guard var run else { return }
        let id = run.eventID
        if let index = run.assetIndex, ending != .completed {
            emit(.assetEnded, [("id", .string(id)), ("index", .integer(index)), ("reason", .string(ending.rawValue))])
        }
        let playedNow = ending == .failed ? MediaTime.zero : run.elapsed
        if ending != .failed {
            // An indefinite offset is the wall-clock time elapsed (R4); the schedule resumes after it.
            played[id] =
                run.event.resumptionOffset == .indefinite
                ? MediaTime(nanoseconds: Self.nanoseconds(clock - run.memberStartedAt)) : playedNow
        }
        self.run = run
        recompute()
        // Events that joined the group once this member's length became known (a PRE without
        // DURATION, R3, R5) play after it instead of being skipped with the primary it covers.
        if let group = groups.first(where: { $0.members.contains(id) }), let own = group.members.firstIndex(of: id),
            ending != .cancelled, ending != .seek
        {
            for member in group.members[(own + 1)...]
            where !run.members.contains(member) && !exhausted.contains(member) && activeEvent(member) != nil {
                run.members.append(member)
            }
        }
        run.resume = scheduledEvent(id)?.resumeTime ?? run.resume
        let last = run.memberIndex + 1 >= run.members.count || ending == .cancelled || ending == .seek
        let resume = last ? resumePoint(run) : run.resume
        self.run = run
        notify(
            .eventDidFinish(
                run.event, playoutTime: playedNow - min(playedNow, run.joinOffset),
                didPlayEntireEvent: ending == .completed))
        var fields: [(name: String, value: PlaybackEvent.Value)] = [
            ("id", .string(id)), ("playedDuration", .time(playedNow - min(playedNow, run.joinOffset))),
            ("resumeTime", run.group.cue == .leave ? .null : .time(resume)),
        ]
        if ending != .completed { fields.append(("reason", .string(ending.rawValue))) }
        emit(.interstitialEnded, fields)
        if run.memberIndex + 1 < run.members.count, ending != .cancelled, ending != .seek {
            self.run = run
            switchMember(to: run.memberIndex + 1)
            return
        }
        if ending == .seek {
            state = .primary(PrimaryState(started: true))
            position = run.suspendedAt
            notify(.currentEventDidChange(nil))
            return
        }
        finishRun()
    }

    /// Makes member `index` of the current group the current one, not yet started.
    mutating func switchMember(to index: Int) {
        guard var run, run.members.indices.contains(index) else { return }
        run.memberIndex = index
        run.event = activeEvent(run.members[index]) ?? run.event
        run.memberStarted = false
        run.elapsed = .zero
        run.joinOffset = .zero
        run.seekOffset = nil
        run.plan = nil
        run.planPosition = 0
        run.startOffsetInFirstAsset = .zero
        run.assetIndex = nil
        run.currentMedia = nil
        run.assetPosition = .zero
        run.skipControl = SkipControl()
        run.skippable = .notSkippable
        run.waiting = false
        self.run = run
    }

    /// Where primary resumes after a run: the override, or the schedule's resumption point after
    /// the last member that ended (R5, R6).
    func resumePoint(_ run: Run) -> MediaTime { run.resumeOverride ?? run.resume }

    /// Resumes primary after the group (R5, R6 IN, R8, R10), or ends after POST (R9).
    mutating func finishRun() {
        guard let run else { return }
        notify(.currentEventDidChange(nil))
        if run.group.cue == .leave {
            position = timeline?.end ?? position
            state = .ended
            playing = false
            emit(.ended)
            return
        }
        // After the PRE, a group that covers the playback start plays from there (R9, R26); primary
        // then resumes at that group's resumption point.
        if run.group.cue == .join, run.resumeOverride == nil, let (group, member) = startInside() {
            position = startPoint ?? position
            state = .primary(PrimaryState(started: true))
            startRun(group, from: member.id, joinOffset: member.startOffset)
            if self.run != nil { return }
        }
        var resume = resumePoint(run)
        var primary = PrimaryState(started: true)
        if run.group.cue != .join && resume < run.group.start {
            suppressed.insert(run.group.key)
        } else if run.group.cue != .join && resume == run.group.start {
            primary.handledKey = run.group.key
        }
        let lowest = timeline?.playlist.segments.first?.startTime ?? .zero
        resume = max(resume, lowest)
        if let timeline, !timeline.isLive { resume = min(resume, timeline.end) }
        state = .primary(primary)
        position = resume
        emit(.primaryResumed)
        if let target = run.completesSeek { emit(.seekCompleted, [("to", .time(target))]) }
    }
}
