import HLSInterstitials
import HLSPlaylist

/// The admin rules over what the server stores: schedules, breaks, the ad inventory, a break now
/// and an early return on a live channel.
///
/// Every method decides inside one ``ServerState/change(_:)`` transaction: its checks read the
/// state the write is applied to, so another request cannot change that state between a check and
/// its write. The rules:
/// - targets must be configured and ads must be in the inventory;
/// - a date range once served keeps its values and its ID (§6.2.1): its break cannot be replaced
///   with other values, and a live one cannot be deleted while it may be in the live window (its
///   start plus its effective duration plus ``servedWindowMargin``);
/// - an ad that fills a break or a schedule cannot be deleted;
/// - a break now starts at the channel's live edge; an early return adds X-PLAYOUT-LIMIT (the time
///   since the break started) once, and only while that is less than the break's duration.
struct Catalog: Sendable {
    /// What an early return did.
    struct EarlyReturn: Equatable, Sendable {
        /// The break's date range ID.
        var id: String
        /// The X-PLAYOUT-LIMIT added.
        var playoutLimit: MediaTime
        /// The break's start.
        var start: DateTime
    }

    /// What a break-now request asks for; unset values come from the channel's schedule.
    struct BreakNowRequest: Sendable {
        /// The break's duration (default: the schedule's cadence duration, else 30 s).
        var duration: MediaTime?
        /// A fixed ad of the inventory.
        var ad: String?
        /// The date range ID (default: `now-` and the milliseconds since 1970).
        var id: String?
    }

    /// The longest break now.
    static let longestBreakNow = MediaTime(seconds: 3600)

    /// How long past its end a served live break is taken to be in a live window.
    static let servedWindowMargin = MediaTime(seconds: 120)

    let configuration: ServerConfiguration
    let state: ServerState
    /// The planner of a content's breaks on a state.
    let planner: @Sendable (ServerConfiguration.Content, Target, StoredState) -> BreakPlanner
    /// The date of a live channel's live edge at a time.
    let liveEdge: @Sendable (ServerConfiguration.Content, DateTime) async -> DateTime

    init(
        configuration: ServerConfiguration, state: ServerState,
        planner: @escaping @Sendable (ServerConfiguration.Content, Target, StoredState) -> BreakPlanner,
        liveEdge: @escaping @Sendable (ServerConfiguration.Content, DateTime) async -> DateTime
    ) {
        self.configuration = configuration
        self.state = state
        self.planner = planner
        self.liveEdge = liveEdge
    }

    /// The catalog of a content library's state, with its planner and live edges.
    init(library: ContentLibrary) {
        self.init(
            configuration: library.configuration, state: library.state,
            planner: { content, target, state in library.planners.planner(for: content, target: target, state: state) },
            liveEdge: { channel, now in await library.content.liveEdge(of: channel, at: now) })
    }

    // MARK: Schedules

    /// Creates a schedule; 409 when the target has one.
    func createSchedule(_ schedule: BreakSchedule) async throws(APIError) {
        try await state.change { transaction in
            try check(schedule, transaction.state)
            guard transaction.state.schedules[schedule.target] == nil else {
                throw APIError.conflict(
                    code: .exists, "\(schedule.target) already has a schedule; PUT it to replace it")
            }
            transaction.apply(.saveSchedule(schedule))
        }
    }

    /// Creates or replaces a schedule.
    func replaceSchedule(_ schedule: BreakSchedule) async throws(APIError) {
        try await state.change { transaction in
            try check(schedule, transaction.state)
            transaction.apply(.saveSchedule(schedule))
        }
    }

    /// Deletes a schedule; 404 when there is none.
    func deleteSchedule(_ target: Target) async throws(APIError) {
        try await state.change { transaction in
            guard transaction.state.schedules[target] != nil else {
                throw APIError.notFound("the schedule of \(target)")
            }
            transaction.apply(.deleteSchedule(target))
        }
    }

    // MARK: Breaks

    /// Creates a break; 409 when the ID exists or was served.
    func createBreak(_ item: Break) async throws(APIError) {
        try await state.change { transaction in
            try check(item, transaction.state)
            guard transaction.state.breaks[item.id] == nil else {
                throw APIError.conflict(code: .exists, "break \"\(item.id)\" exists; PUT it to replace it")
            }
            try Self.refuseServedID(item, transaction.state)
            try checkRoom(for: item, transaction.state)
            transaction.apply(.saveBreak(item))
        }
    }

    /// Creates or replaces a break: it cannot move to another target, and a served one cannot change.
    func replaceBreak(_ item: Break) async throws(APIError) {
        try await state.change { transaction in
            try check(item, transaction.state)
            if let old = transaction.state.breaks[item.id], old.target != item.target {
                throw APIError.badRequest(code: .jsonSchema, path: "target", "a break cannot move to another target")
            }
            try Self.refuseServedID(item, transaction.state)
            try checkRoom(for: item, transaction.state)
            transaction.apply(.saveBreak(item))
        }
    }

    /// Deletes a break, unless it was served on a live channel and may still be in the live window
    /// at `now` (409).
    func deleteBreak(id: String, now: DateTime) async throws(APIError) {
        try await state.change { transaction in
            guard let item = transaction.state.breaks[id] else { throw APIError.notFound("break \"\(id)\"") }
            if Self.mayBeInLiveWindow(item, transaction.state, now: now) {
                throw APIError.conflict(
                    code: .servedBreak,
                    "break \"\(id)\" has been served and may still be in the live window, where §6.2.1 forbids removing it; end it early with POST /admin/v1/channels/\(item.target.id)/return"
                )
            }
            transaction.apply(.deleteBreak(id: id))
        }
    }

    // MARK: Inventory

    /// Creates an ad; 409 when it exists.
    func createAd(_ ad: Ad) async throws(APIError) {
        try await state.change { transaction in
            guard transaction.state.ads[ad.id] == nil else {
                throw APIError.conflict(code: .exists, "ad \"\(ad.id)\" exists; PUT it to replace it")
            }
            try checkRoom(for: ad, transaction.state)
            transaction.apply(.saveAd(ad))
        }
    }

    /// Creates or replaces an ad.
    func replaceAd(_ ad: Ad) async throws(APIError) {
        try await state.change { transaction in
            try checkRoom(for: ad, transaction.state)
            transaction.apply(.saveAd(ad))
        }
    }

    /// Deletes an ad, unless a break or a schedule uses it (409).
    func deleteAd(id: String) async throws(APIError) {
        try await state.change { transaction in
            guard transaction.state.ads[id] != nil else { throw APIError.notFound("ad \"\(id)\"") }
            if let user = transaction.state.breaks.values.first(where: { $0.ad == id })?.id
                ?? transaction.state.schedules.values.first(where: { $0.ad == id })?.target.description
            {
                throw APIError.conflict(code: .adInUse, "ad \"\(id)\" fills \(user); change that first")
            }
            transaction.apply(.deleteAd(id: id))
        }
    }

    // MARK: Live controls

    /// Schedules a break on a live channel starting at its live edge at `now`.
    func breakNow(
        _ channel: ServerConfiguration.Content, _ request: BreakNowRequest, now: DateTime
    ) async throws(APIError) -> Break {
        var start = await liveEdge(channel, now)
        start.utcOffsetSeconds = 0
        let target = Target(.live, channel.id)
        let id = request.id ?? "now-\(now.nanosecondsSinceEpoch / 1_000_000)"
        return try await state.change { transaction in
            let schedule = transaction.state.schedules[target]
            let duration = request.duration ?? schedule?.cadence?.duration ?? MediaTime(seconds: 30)
            guard duration > .zero, duration <= Self.longestBreakNow else {
                throw APIError.badRequest(
                    code: .jsonSchema, path: "duration", "must be more than 0 and at most 3600 seconds")
            }
            var interstitial = schedule?.interstitial ?? InsertionRequest(id: id)
            interstitial.id = id
            interstitial.date = start
            interstitial.at = nil
            interstitial.plannedDuration = duration
            interstitial.duration = nil
            let item = Break(target: target, interstitial: interstitial, ad: request.ad)
            try item.check(path: "")
            try check(item, transaction.state)
            guard transaction.state.breaks[id] == nil, transaction.state.served[ServedKey(target, id)] == nil else {
                throw APIError.conflict(code: .exists, "break \"\(id)\" exists")
            }
            // Breaks do not stack: concurrent or repeated requests make one break, the others get 409.
            if let other = overlapping(channel, target, from: start, duration: duration, transaction.state) {
                throw APIError.conflict(
                    code: .breakInProgress,
                    "break \"\(other)\" of \(target) overlaps [\(start.iso8601), +\(duration) s); end it first with POST /admin/v1/channels/\(channel.id)/return"
                )
            }
            try checkRoom(for: item, transaction.state)
            transaction.apply(.saveBreak(item))
            return item
        }
    }

    /// Ends a break of a live channel at `now` (the latest one started, or `breakID`): adds
    /// X-PLAYOUT-LIMIT, the time since it started in whole milliseconds. Refused (409) when it has
    /// not started, has returned early already, or has already ended: the limit is not less than
    /// its duration D (its effective duration without a playout limit, profile R3, R12).
    func earlyReturn(
        _ channel: ServerConfiguration.Content, breakID: String?, now: DateTime
    ) async throws(APIError) -> EarlyReturn {
        let target = Target(.live, channel.id)
        return try await state.change { transaction in
            let planner = planner(channel, target, transaction.state)
            let timeline = BreakPlanner.Timeline.live(
                epoch: channel.epoch, window: (now - MediaTime(seconds: 3600))..<now, lookahead: .zero)
            let event: InterstitialEvent
            if let breakID {
                guard let found = planner.lookup(id: breakID, timeline) else {
                    throw APIError.notFound("break \"\(breakID)\" of \(target)")
                }
                event = found.event
            } else {
                guard let latest = planner.plan(timeline).last(where: { ($0.event.date ?? now) <= now }) else {
                    throw APIError.conflict(code: .noBreak, "no break of \(target) has started")
                }
                event = latest.event
            }
            guard let start = event.date, start <= now else {
                throw APIError.conflict(code: .noBreak, "break \"\(event.identifier)\" has not started")
            }
            let key = ServedKey(target, event.identifier)
            guard transaction.state.earlyReturns[key] == nil else {
                throw APIError.conflict(
                    code: .alreadyReturned, "break \"\(event.identifier)\" has already returned early")
            }
            let limit = InterstitialEvent.earlyReturnPlayoutLimit(elapsed: now - start)
            if let duration = Self.duration(of: event), limit >= duration {
                throw APIError.conflict(code: .breakOver, "break \"\(event.identifier)\" has already ended")
            }
            transaction.apply(.earlyReturn(key, playoutLimit: limit))
            return EarlyReturn(id: event.identifier, playoutLimit: limit, start: start)
        }
    }

    // MARK: Rules

    /// The ID of a stored break of `channel` (a break now, or one created through the API) whose
    /// time overlaps `[start, start + duration)`, counting an early return's playout limit; nil when
    /// none does. The standing schedule's cadence breaks do not count: a break now may replace one.
    private func overlapping(
        _ channel: ServerConfiguration.Content, _ target: Target, from start: DateTime, duration: MediaTime,
        _ state: StoredState
    ) -> String? {
        let end = start + duration
        let timeline = BreakPlanner.Timeline.live(
            epoch: channel.epoch, window: (start - Self.longestBreakNow)..<end, lookahead: .zero)
        return planner(channel, target, state).plan(timeline).first { planned in
            guard state.breaks[planned.event.identifier] != nil, let date = planned.event.date else { return false }
            return date < end && (planned.event.effectiveEnd() ?? date) > start
        }?.event.identifier
    }

    /// Refuses a new break for a target that has ``ServerLimits/breaksPerTarget`` already (409).
    private func checkRoom(for item: Break, _ state: StoredState) throws(APIError) {
        guard state.breaks[item.id] == nil else { return }
        let limit = configuration.limits.breaksPerTarget
        guard state.breaks.values.count(where: { $0.target == item.target }) >= limit else { return }
        throw APIError.conflict(
            code: .limitReached, "\(item.target) has \(limit) breaks, the most it may have (limits.breaksPerTarget)")
    }

    /// Refuses a new ad when the inventory has ``ServerLimits/inventoryAds`` already (409).
    private func checkRoom(for ad: Ad, _ state: StoredState) throws(APIError) {
        guard state.ads[ad.id] == nil else { return }
        let limit = configuration.limits.inventoryAds
        guard state.ads.count >= limit else { return }
        throw APIError.conflict(
            code: .limitReached, "the inventory has \(limit) ads, the most it may have (limits.inventoryAds)")
    }

    /// A break's duration D: its effective duration without X-PLAYOUT-LIMIT (profile R3).
    static func duration(of event: InterstitialEvent) -> MediaTime? {
        var unlimited = event
        unlimited.playoutLimit = nil
        return unlimited.effectiveDuration()
    }

    /// Whether `item` is a live break that was served and may still be in a live window at `now`:
    /// its served start plus its effective duration plus ``servedWindowMargin`` is after `now`.
    static func mayBeInLiveWindow(_ item: Break, _ state: StoredState, now: DateTime) -> Bool {
        guard item.target.kind == .live, let served = state.served[ServedKey(item.target, item.id)],
            let event = InterstitialEvent(attributes: served), let start = event.date
        else { return false }
        return (event.effectiveEnd() ?? start) + servedWindowMargin > now
    }

    /// Values once served never change, and an ID once served is never reused for new values.
    static func refuseServedID(_ item: Break, _ state: StoredState) throws(APIError) {
        guard state.served[ServedKey(item.target, item.id)] != nil else { return }
        if state.breaks[item.id] == item { return }
        throw APIError.conflict(
            code: .servedBreak,
            "break \"\(item.id)\" has been served; §6.2.1: the server MUST NOT change its attribute values or reuse its ID. Create a new break (early returns: POST /admin/v1/channels/ID/return)"
        )
    }

    /// The target is configured on this server (404 naming `path` otherwise).
    func checkTarget(_ target: Target, path: String) throws(APIError) {
        let list = target.kind == .vod ? configuration.vod : configuration.live
        guard list.contains(where: { $0.id == target.id }) else {
            throw APIError(status: 404, code: .notFound, path: path, "\(target) is not configured on this server")
        }
    }

    private func checkAd(_ ad: String?, path: String, _ state: StoredState) throws(APIError) {
        if let ad, state.ads[ad] == nil {
            throw APIError.badRequest(code: .unknownAd, path: path, "ad \"\(ad)\" is not in the inventory")
        }
    }

    private func check(_ schedule: BreakSchedule, _ state: StoredState) throws(APIError) {
        try checkTarget(schedule.target, path: "target")
        try checkAd(schedule.ad, path: "ad", state)
    }

    /// The ID prefixes of the breaks the server names itself: SCTE-35 signalled breaks (`scte35-`)
    /// and early notices (``BreakNotice/idPrefix``).
    static let reservedBreakPrefixes = ["scte35-", BreakNotice.idPrefix]

    private func check(_ item: Break, _ state: StoredState) throws(APIError) {
        // The server's own IDs: a break served under one is taken for a signalled break (and not
        // served twice under another ID), so an admin break may not use them.
        for prefix in Self.reservedBreakPrefixes where item.id.hasPrefix(prefix) {
            throw APIError.badRequest(
                code: .invalidBreak, path: "id",
                "\"\(prefix)\" IDs are the server's own (signalled breaks, early notices); choose another ID")
        }
        try checkTarget(item.target, path: "target")
        try checkAd(item.ad, path: "ad", state)
    }
}
