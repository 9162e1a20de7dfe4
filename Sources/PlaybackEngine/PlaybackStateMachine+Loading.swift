import HLSInterstitials
import HLSPlaylist

extension PlaybackStateMachine {
    /// One step of the buffering sequence: a load due now, or the media distance until one is.
    enum BufferStep {
        case now(LoadKey, String, SegmentOrigin? = nil)
        case later(MediaTime)
    }

    /// Starts the loads that are due: a live reload on its schedule, and the next step of the
    /// buffering sequence (one at a time, in Apple's order, reference §3): primary up to the event,
    /// then the asset list (late binding, R18) and the first asset, then the next, then primary from
    /// the resumption point.
    mutating func issueLoads() {
        if mode != .ended, let timeline, loads.takeReload(at: clock) {
            request(.primary, url: tagged(timeline.url))
        }
        requestSchedules()
        guard loads.bufferLoad == nil, case .now(let key, let url, let origin)? = nextBufferStep() else { return }
        if let hint = timeline?.preloads.first(where: { hint in preloadTarget(hint).map { $0.0 == key } == true }),
            hint.targetClass != DateRangeSchedule.className
        {
            loads.issued(hint: hint.id, for: hint.targetID)
        }
        loads.startedBuffering(key, url: url)
        actions.append(.load(LoadRequest(key: key, url: url, origin: origin)))
        if case .assetList(let id) = key {
            emit(.assetListRequested, [("id", .string(id)), ("url", .string(url))])
        }
        if case .schedule(let identity) = key { emitScheduleRequested(identity, url: url) }
    }

    /// The media distance until the next buffering step is due, when it waits for the playhead.
    func bufferDistance() -> MediaTime? {
        guard loads.bufferLoad == nil, case .later(let distance)? = nextBufferStep() else { return nil }
        return distance
    }

    /// The first thing of the buffering sequence that is not loaded yet; a preload hint that is due
    /// comes first, and one that is not yet due bounds the wait (R18).
    func nextBufferStep() -> BufferStep? {
        if let switching = variantStep() { return switching }
        let preload = preloadStep()
        if case .now? = preload { return preload }
        let step = sequenceStep()
        guard case .later(let hint)? = preload else { return step }
        switch step {
        case .later(let distance)?: return .later(min(distance, hint))
        case nil: return preload
        default: return step
        }
    }

    /// The load a `com.apple.hls.preload` hint asks for, once the playhead passes the hint's point
    /// (App. F): never later than without the hint.
    func preloadStep() -> BufferStep? {
        guard mode == .primary, started, let timeline else { return nil }
        var wait: MediaTime?
        for hint in timeline.preloads {
            guard let point = loads.preloadPoints[hint.id], let (key, url) = preloadTarget(hint) else { continue }
            if point <= position { return .now(key, url) }
            wait = min(wait ?? point - position, point - position)
        }
        return wait.map { .later($0) }
    }

    /// What a hint preloads: the asset list or the X-ASSET-URI asset of its target, an upcoming
    /// interstitial not loaded yet. Nothing when X-TARGET-CLASS is not the target's class or
    /// X-URI is not the URL the target loads (App. F: such a result is not used), or while the target
    /// is not in the playlist.
    func preloadTarget(_ hint: PrimaryTimeline.Preload) -> (LoadKey, String)? {
        if hint.targetClass == DateRangeSchedule.className { return schedulePreloadTarget(hint) }
        guard hint.targetClass == InterstitialEvent.className, let timeline,
            let event = activeEvents.first(where: { $0.identifier == hint.targetID }), event.assetList == nil,
            !program.exhausted.contains(event.identifier), let scheduled = scheduledEvent(event.identifier),
            scheduled.isScheduled, scheduled.start > position
        else { return nil }
        let id = event.identifier
        let uri = URIReference.resolve(hint.uri, against: timeline.url)
        if let list = event.assetListURI, event.assetURI == nil, loads.lists[id] == nil,
            URIReference.resolve(list, against: timeline.url) == uri
        {
            return (.assetList(id), tagged(uri))
        }
        if let asset = event.assetURI, event.assetListURI == nil, loads.assets[id]?[0] == nil,
            URIReference.resolve(asset, against: timeline.url) == uri
        {
            return (.asset(id, 0), tagged(uri))
        }
        return nil
    }

    /// Picks the point of each new preload hint whose target is known: a random point (the
    /// configured source, else stable for a session) of its range, clamped to start at the playhead
    /// and to end before the target's normal request time (R18, App. F).
    mutating func placePreloads() {
        guard let timeline else { return }
        for hint in timeline.preloads where loads.preloadPoints[hint.id] == nil {
            // A schedule's document has no event time to arrive before: the hint's range alone (R27).
            let isSchedule = hint.targetClass == DateRangeSchedule.className
            let target = isSchedule ? nil : scheduledEvent(hint.targetID)
            guard isSchedule || target != nil else { continue }
            let start = max(hint.start, position)
            let end = target.map { min(hint.end, $0.start - template.lookahead) } ?? hint.end
            guard end > start else {
                loads.place(hint: hint.id, at: start)
                continue
            }
            let span = UInt64(end.nanoseconds - start.nanoseconds)
            let draw: UInt64
            if let random = configuration.random {
                draw = random(span) % span
            } else {
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in (configuration.primaryID + "/" + hint.id).utf8 {
                    hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                }
                draw = hash % span
            }
            loads.place(hint: hint.id, at: start + MediaTime(nanoseconds: Int64(draw)))
        }
    }

    /// Discards what removed preload hints loaded for events that have not started (App. F: "the
    /// client SHOULD discard" it), so that they load again when due.
    mutating func discardRemovedPreloads() {
        let current = Set(timeline?.preloads.map(\.id) ?? [])
        for hint in loads.preloaded.keys.sorted() where !current.contains(hint) {
            guard let id = loads.removeHint(hint) else { continue }
            guard run?.members.contains(id) != true, !program.played.keys.contains(id) else { continue }
            loads.discardWhenArriving(id)
            loads.forget(eventID: id)
            emit(
                .warning,
                [
                    (
                        "message",
                        .string("preload hint \"\(hint)\" was removed: what it loaded for \"\(id)\" is discarded")
                    )
                ])
        }
    }

    /// The next step of the sequence itself.
    func sequenceStep() -> BufferStep? {
        guard let timeline, mode == .primary || mode == .interstitial else { return nil }
        let forward = configuration.forwardBuffer
        switch mode {
        case .primary:
            let preroll = !started ? program.groups.first { $0.cue == .join && isPlayable($0) } : nil
            let next = preroll ?? nextGroup(after: position, inclusive: true)
            let horizon = min(next?.start ?? timeline.end, position + forward)
            if !(preroll != nil), let step = primarySegment(from: position, to: horizon) { return step }
            if let next {
                let distance = next.cue == .join ? .zero : next.start - position
                if distance > template.lookahead {
                    return .later(distance - template.lookahead)
                }
                for id in next.members where !program.exhausted.contains(id) {
                    if let step = eventStep(id, joinOffset: .zero) { return step }
                }
                let resume = next.cue == .join ? position : next.resume
                if let step = primarySegment(from: resume, to: resume + MediaTime(nanoseconds: 1)) { return step }
            }
            // The POST's asset list: the look-ahead before the end, like any other event's (R18).
            var postWait: MediaTime?
            if let post = program.groups.first(where: { $0.cue == .leave && isPlayable($0) }) {
                let distance = timeline.end - position
                if distance <= template.lookahead {
                    for id in post.members where !program.exhausted.contains(id) {
                        if let step = eventStep(id, joinOffset: .zero) { return step }
                    }
                } else {
                    postWait = distance - template.lookahead
                }
            }
            if next == nil, timeline.isLive || position + forward < timeline.end,
                let segment = timeline.playlist.segments.first(where: { $0.startTime >= position + forward }),
                configuration.loadsSegments
            {
                let wait = segment.startTime - forward - position
                return .later(postWait.map { min($0, wait) } ?? wait)
            }
            return next == nil ? postWait.map { .later($0) } : nil
        case .interstitial:
            guard let run else { return nil }
            for (offset, id) in run.members.enumerated().dropFirst(run.memberIndex) {
                let join = offset == run.memberIndex ? run.joinOffset : .zero
                if let step = eventStep(id, joinOffset: join) { return step }
            }
            let resume = run.resumeOverride ?? run.projectedResume
            if run.group.cue != .leave,
                let step = primarySegment(from: resume, to: resume + MediaTime(nanoseconds: 1))
            {
                return step
            }
            return nil
        default: return nil
        }
    }

    /// The earliest primary segment in [from, to) that is not loaded, across the variant's media
    /// playlist and the other renditions that play with it (their segments interleave by time, as
    /// a player buffers them), when segments are loaded.
    func primarySegment(from: MediaTime, to: MediaTime) -> BufferStep? {
        guard configuration.loadsSegments, let timeline, from < to else { return nil }
        var earliest: (start: MediaTime, step: BufferStep)?
        for (playlist, base) in timeline.renditionPlaylists {
            for (index, segment) in playlist.segments.enumerated()
            where segment.endTime > from && segment.startTime < to {
                if let earliest, earliest.start <= segment.startTime { break }
                let url = tagged(URIReference.resolve(segment.uri, against: base))
                guard isPending(url) else { continue }
                let map = segment.map.map { tagged(URIReference.resolve($0.uri, against: base)) }
                let origin = SegmentOrigin(
                    source: .primary, rendition: base, index: index, duration: segment.duration,
                    initializationSection: map)
                earliest = (segment.startTime, .now(.segment(url), url, origin))
                break
            }
        }
        return earliest?.step
    }

    /// The earliest segment of an asset that is not loaded, across its media playlist and the other
    /// renditions that play with it.
    func assetSegment(_ media: AssetMedia, eventID: String, assetIndex: Int) -> BufferStep? {
        var earliest: (start: MediaTime, step: BufferStep)?
        for rendition in [media] + media.otherRenditions {
            var start = MediaTime.zero
            for (index, segmentURL) in rendition.segmentURLs.enumerated() {
                if let earliest, earliest.start <= start { break }
                let duration = rendition.segmentDurations.at(index) ?? .zero
                defer { start = start + duration }
                let url = tagged(segmentURL)
                let identity = Self.segmentIdentity(url, eventID: eventID, assetIndex: assetIndex)
                guard isPending(identity) else { continue }
                let origin = SegmentOrigin(
                    source: .interstitial(eventID: eventID, assetIndex: assetIndex),
                    rendition: rendition.playlistURL ?? "", index: index, duration: duration,
                    initializationSection: rendition.segmentMaps.at(index).flatMap { $0.map(tagged) })
                earliest = (start, .now(.segment(identity), url, origin))
                break
            }
        }
        return earliest?.step
    }

    /// What identifies a segment load: a primary segment's URL; an asset's segment URL with the
    /// event and asset it plays in, since each interstitial event plays in an item of its own (an
    /// ad that plays again in another break is loaded again, as AVFoundation's interstitial player
    /// does, so its media reaches the renderer each time).
    package static func segmentIdentity(_ url: String, eventID: String? = nil, assetIndex: Int = 0) -> String {
        guard let eventID else { return url }
        return "\(url) \(eventID)#\(assetIndex)"
    }

    /// Whether the segment `identity` is neither loaded, failed nor loading.
    func isPending(_ identity: String) -> Bool { loads.isPending(identity) }

    /// The next load for an event: its asset list, then each asset's playlist, then its segments.
    func eventStep(_ id: String, joinOffset: MediaTime) -> BufferStep? {
        guard let event = activeEvent(id) ?? (run?.eventID == id ? run?.event : nil), let timeline else { return nil }
        if event.assetList == nil, event.assetURI == nil, let uri = event.assetListURI {
            switch loads.lists[id] {
            case nil:
                var url = tagged(URIReference.resolve(uri, against: timeline.url))
                if joinOffset > .zero { url = AssetList.addingStartOffset(joinOffset, to: url) }
                return .now(.assetList(id), url)
            case .requested?, .failed?: return nil
            case .loaded?: break
            }
        }
        guard let list = playList(for: event) else { return nil }
        let base = loads.listURLs[id] ?? timeline.url
        for (index, asset) in list.assets.enumerated() {
            switch loads.assets[id]?[index] {
            case nil:
                return .now(.asset(id, index), tagged(URIReference.resolve(asset.uri, against: base)))
            case .loaded(let media)? where configuration.loadsSegments:
                if let step = assetSegment(media, eventID: id, assetIndex: index) { return step }
            default: continue
            }
        }
        return nil
    }

    // MARK: Results

    mutating func assetListLoaded(_ id: String, _ list: AssetList) {
        guard loads.listLoaded(id, list) else { return }
        emit(
            .assetListLoaded,
            [("id", .string(id)), ("assets", .integer(list.assets.count)), ("duration", .time(list.totalDuration))])
        if let event = activeEvent(id) {
            notify(.assetListResponseStatusDidChange(event: event, status: .available, error: nil))
        }
        recompute()
    }

    /// Asset `index` of event `id` loaded: the schedule takes its duration, unless it is discarded
    /// (its preload hint was removed).
    mutating func assetLoaded(_ id: String, _ index: Int, _ media: AssetMedia) {
        if loads.assetLoaded(id, index, media) { recompute() }
    }

    mutating func loadFailed(_ key: LoadKey, _ message: String) {
        loads.failed(key, message)
        switch key {
        case .primary:
            emit(.error, [("message", .string(message))])
            if timeline == nil {
                transition(to: .ended, because: .loadFailed)
                playhead.pause()
                emit(.ended, [("reason", .string("the primary playlist could not be loaded"))])
            } else if let timeline, timeline.isLive {
                loads.scheduleReload(at: clock + Duration(timeline.targetDuration))
            }
        case .assetList(let id):
            emit(.error, [("id", .string(id)), ("message", .string(message))])
            if let event = activeEvent(id) {
                notify(.assetListResponseStatusDidChange(event: event, status: .unavailable, error: message))
            }
            recompute()
        case .asset(let id, let index):
            emit(.error, [("id", .string(id)), ("index", .integer(index)), ("message", .string(message))])
            recompute()
        case .segment(let url):
            emit(.error, [("segment", .string(url)), ("message", .string(message))])
        case .variant(let index):
            selection.failed(index)
            emit(.error, [("variant", .integer(index)), ("message", .string(message))])
        case .schedule(let identity):
            scheduleLoaded(identity, .failure(DateRangeScheduleError(code: .load, message)))
        }
    }
}
