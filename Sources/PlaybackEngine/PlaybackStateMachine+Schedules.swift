import HLSInterstitials
import HLSPlaylist

extension PlaybackStateMachine {
    /// Requests the document of each Date Range Schedule of the playlist that has none yet and is
    /// not loading: once per identity across reloads (R27), with the asset lists' limits and
    /// deadline (the driver loads it as it loads an asset list, R20); at most
    /// ``Configuration/concurrentScheduleLoads`` at once.
    mutating func requestSchedules() {
        guard mode != .ended, let timeline else { return }
        var loading = loads.inFlight.count { key in
            if case .schedule = key { true } else { false }
        }
        for schedule in timeline.pendingSchedules where !loads.inFlight.contains(.schedule(schedule.identity)) {
            guard loading < configuration.concurrentScheduleLoads else { return }
            loading += 1
            let url = tagged(schedule.resolvedURI)
            request(.schedule(schedule.identity), url: url)
            emitScheduleRequested(schedule.identity, url: url)
        }
    }

    /// Whether a schedule's document is loading: playback does not start until it arrives or fails
    /// (within the loader's deadline), so that its PRE and early entries play as the playlist's own
    /// would (R27).
    var awaitsScheduleDocuments: Bool {
        loads.inFlight.contains { key in
            if case .schedule = key { true } else { false }
        }
    }

    /// What a Preload tag that targets a schedule loads (App. F, R27): the document of the identity
    /// (X-TARGET-ID, X-URI resolved), unless it is loaded or loading.
    func schedulePreloadTarget(_ hint: PrimaryTimeline.Preload) -> (LoadKey, String)? {
        guard let timeline else { return nil }
        let identity = timeline.scheduleIdentity(of: hint)
        guard timeline.schedules.needsLoading(identity), !loads.inFlight.contains(.schedule(identity)) else {
            return nil
        }
        return (.schedule(identity), tagged(identity.uri))
    }

    /// Traces a schedule request.
    mutating func emitScheduleRequested(_ identity: DateRangeSchedule.Identity, url: String) {
        emit(.scheduleRequested, [("schedule", .string(identity.identifier)), ("url", .string(url))])
    }

    /// A schedule's document arrived, or failed (R27): the first result for its identity holds; its
    /// entries become events scheduled and played like the playlist's own, and a failed or
    /// malformed document adds none. Posts `scheduleRequestCompleted` with the document or the error.
    mutating func scheduleLoaded(
        _ identity: DateRangeSchedule.Identity, _ result: Result<DateRangeScheduleDocument, DateRangeScheduleError>
    ) {
        loads.finished(.schedule(identity))
        var fields: [(name: String, value: PlaybackEvent.Value)] = [("schedule", .string(identity.identifier))]
        switch result {
        case .success(let document):
            fields.append(("entries", .integer(document.entries.count)))
            if !document.problems.isEmpty { fields.append(("leftOut", .integer(document.problems.count))) }
        case .failure(let error):
            fields += [("code", .string(error.code.rawValue)), ("error", .string(error.description))]
        }
        emit(.scheduleRequestCompleted, fields)
        switch result {
        case .success(let document):
            notify(.scheduleRequestCompleted(identifier: identity.identifier, response: document, error: nil))
        case .failure(let error):
            notify(.scheduleRequestCompleted(identifier: identity.identifier, response: nil, error: error))
        }
        guard var timeline else { return }
        let update = timeline.scheduleLoaded(identity, result)
        program.revise(timeline)
        for conflict in update.conflicts { emit(.warning, [("message", .string(conflict))]) }
        recompute()
        guard update.eventsChanged else { return }
        placePreloads()
        emitEventsChanged()
    }
}
