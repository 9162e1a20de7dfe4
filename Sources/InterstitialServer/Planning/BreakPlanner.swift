import HLSInterstitials
import HLSPlaylist

/// Turns the stored schedule of a target into the interstitial date ranges of its media playlists
/// (pure: the same state, time and timeline always give the same date ranges).
///
/// A date range that was served once is written again with the values it was first served with,
/// whatever happened to its break since (§6.2.1: "the server MUST NOT change … attribute values"); an
/// early return adds X-PLAYOUT-LIMIT, and DURATION and END-DATE where absent, under the same ID.
public struct BreakPlanner: Sendable {
    /// The timeline the breaks are placed on.
    public enum Timeline: Sendable {
        /// A VOD asset: its duration and the date of a time in it.
        case vod(duration: MediaTime, dateAt: @Sendable (MediaTime) -> DateTime?)
        /// A live channel: its epoch, the dates its window spans, and how far past the live edge
        /// upcoming breaks are announced.
        case live(epoch: DateTime, window: Range<DateTime>, lookahead: MediaTime)
    }

    /// A date range to write, and the break it comes from (none for a served one whose break is gone).
    public struct Planned: Sendable {
        /// The event as written.
        public var event: InterstitialEvent
        /// The break.
        public var source: Break?
        /// The attributes to record as served, when it has not been served yet.
        public var firstServing: AttributeList?
        /// The X-PLAYOUT-LIMIT to record as an early return: a signalled break served with its
        /// planned duration whose IN came early (R12).
        public var earlyReturn: MediaTime? = nil
    }

    /// A preload hint to write (``PreloadHint``): its attributes as written, and as to record when
    /// it has not been served yet.
    public struct Hint: Sendable {
        /// The hint's date range ID (``PreloadHint/identifier(of:)``).
        public var identifier: String
        /// Its attributes as written.
        public var attributes: AttributeList
        /// The attributes to record as served, when it has not been served yet.
        public var firstServing: AttributeList?
    }

    /// What the preload hints of a live channel are sized from (``hints(_:occupied:)``).
    public struct Preload: Sendable {
        /// The hint's range (``BreakWindows/hint(start:sessions:perSecond:)``).
        public var windows: BreakWindows
        /// The active audience of the channel.
        public var sessions: Int
        /// The decisions the ad server makes a second (``AdServerSettings/pacingRate(learned:)``).
        public var perSecond: Int
        /// The playlist's target duration: a hint is written from the first playlist whose live
        /// edge is at most two target durations before its range starts.
        public var targetDuration: MediaTime

        /// Creates the inputs of preload hints.
        public init(windows: BreakWindows, sessions: Int, perSecond: Int, targetDuration: MediaTime) {
            self.windows = windows
            self.sessions = sessions
            self.perSecond = perSecond
            self.targetDuration = targetDuration
        }

        /// The length of a hint's range not served yet: what a rendered playlist depends on besides
        /// the state and the live edge.
        public var length: MediaTime {
            let range = windows.hint(start: InterstitialInserter.defaultEpoch, sessions: sessions, perSecond: perSecond)
            return range.upperBound - range.lowerBound
        }
    }

    /// The asset or channel.
    public var target: Target
    /// The stored state.
    public var state: StoredState
    /// The X-ASSET-LIST URI of breaks filled by the server (relative to the playlist, or absolute).
    public var assetListURI: String
    /// The absolute URI of an inventory ad.
    public var adURI: @Sendable (Ad) -> String
    /// Breaks signalled in the playlist being served (SCTE-35, `SignalRecognizer`), planned besides
    /// the stored ones.
    public var signalled: [SignalledBreak] = []
    /// How far a signalled break's start may be from an early notice's for the break to take the
    /// notice's ID (``NoticeMatcher``; `limits.noticeTolerance`).
    public var noticeTolerance = NoticeMatcher.defaultTolerance
    /// Whether the interstitials of signalled breaks carry `X-SNAP="OUT,IN"`.
    public var snapSignals = false
    /// Breaks a VMAP places on a VOD asset, planned besides the stored ones (`VMAPPlans`).
    public var vmapBreaks: [Break] = []
    /// The inputs of the preload hints of a live channel whose breaks a VAST ad server fills
    /// (``hints(_:occupied:)``); nil writes none.
    public var preload: Preload?

    /// Where the events of served date ranges are kept once read (the server's planners share one);
    /// nil: each is read when used.
    var servedEvents: ServedEvents?
    /// Creates a planner.
    public init(target: Target, state: StoredState, assetListURI: String, adURI: @escaping @Sendable (Ad) -> String) {
        self.target = target
        self.state = state
        self.assetListURI = assetListURI
        self.adURI = adURI
    }

    /// The date ranges of the target on `timeline`, in start order.
    public func plan(_ timeline: Timeline) -> [Planned] {
        let withdrawing = Set(withdrawals(timeline))
        var planned: [String: Planned] = [:]
        for item in candidates(timeline) {
            if planned[item.id] == nil, let entry = self.planned(item, timeline) { planned[item.id] = entry }
        }
        for item in matchedSignals
        where planned[item.id] == nil && !withdrawing.contains(item.id)
            && !state.withdrawn.contains(ServedKey(target, item.id))
        {
            if let entry = self.planned(signalled: item, timeline) { planned[item.id] = entry }
        }
        // Served date ranges whose break is gone stay while their range is in a live window. Preload
        // hints are served too, but are no interstitials (`InterstitialEvent(attributes:)` is nil).
        if case .live(_, let window, _) = timeline {
            for (key, attributes) in state.served
            where key.target == target && planned[key.id] == nil && !state.withdrawn.contains(key)
                && !withdrawing.contains(key.id)
            {
                guard var event = servedEvent(attributes) else { continue }
                applyEarlyReturn(to: &event)
                if overlaps(event, window) { planned[key.id] = Planned(event: event, source: nil) }
            }
        }
        return planned.values.sorted {
            let left = $0.event.date?.nanosecondsSinceEpoch ?? .min
            let right = $1.event.date?.nanosecondsSinceEpoch ?? .min
            return left == right ? $0.event.identifier < $1.event.identifier : left < right
        }
    }

    /// The breaks of a live `timeline` that start after its window, up to `horizon` past its end
    /// (further than the timeline's own lookahead, for what is prepared before its date range is
    /// written: preload hints, decisions made ahead). Their ``Planned/firstServing`` is not a
    /// serving: it must not be recorded. Empty for a VOD timeline.
    public func upcoming(_ timeline: Timeline, horizon: MediaTime) -> [Planned] {
        guard case .live(let epoch, let window, let lookahead) = timeline else { return [] }
        let extended = Timeline.live(epoch: epoch, window: window, lookahead: max(lookahead, horizon))
        return plan(extended).filter { item in
            guard let start = item.event.date else { return false }
            return start >= window.upperBound
        }
    }

    /// The early notices of a live `timeline`'s channel (``BreakNotice``) that start after its
    /// window, up to `horizon` past its end, as breaks to decide ahead for: no date range is written
    /// for them (``plan(_:)`` has none); the signalled break that takes a notice is served under its
    /// ID (``NoticeMatcher``). None withdrawn or whose ID is a stored break's; empty for a VOD timeline.
    ///
    /// A notice a break has taken (its ID served) is that break as served, while the notice has not
    /// started: a cue that came early keeps the decisions made ahead, and they last until the cue's
    /// break ends. One that starts after the window is left to ``upcoming(_:horizon:)``, which has it.
    public func noticed(_ timeline: Timeline, horizon: MediaTime) -> [Planned] {
        guard case .live(_, let window, let lookahead) = timeline else { return [] }
        let edge = window.upperBound
        let reach = edge + max(lookahead, horizon)
        return notices.filter { $0.start >= edge && $0.start < reach }
            .sorted { ($0.start.nanosecondsSinceEpoch, $0.id) < ($1.start.nanosecondsSinceEpoch, $1.id) }
            .compactMap { notice in
                let key = ServedKey(target, notice.id)
                guard !state.withdrawn.contains(key), state.breaks[notice.id] == nil else { return nil }
                if let attributes = state.served[key] {
                    guard var served = servedEvent(attributes), let start = served.date, start < edge
                    else { return nil }
                    applyEarlyReturn(to: &served)
                    return Planned(event: served, source: nil)
                }
                var request = InsertionRequest(id: notice.id)
                request.date = notice.start
                request.plannedDuration = notice.duration
                request.assetListURI = assetListURI
                guard var event = try? request.event(mapping: { _ in nil }) else { return nil }
                event.sourceAttributes = nil
                return Planned(event: event, source: nil)
            }
    }

    /// The early notices of the target.
    private var notices: [BreakNotice] {
        state.notices.values.filter { $0.target == target }
    }

    /// ``signalled`` with the breaks that take an early notice under its ID (``NoticeMatcher``).
    private var matchedSignals: [SignalledBreak] {
        let notices = notices
        guard !notices.isEmpty else { return signalled }
        return NoticeMatcher.match(signalled, notices: notices, tolerance: noticeTolerance) { id in
            state.served[ServedKey(target, id)] != nil
        }
    }

    /// The preload hints of a live `timeline` (App. F, ``PreloadHint``), in their breaks' start order.
    ///
    /// One for each break filled by the server's asset list (its X-ASSET-LIST is ``assetListURI``):
    /// from the first playlist in which its range (``BreakWindows/hint(start:sessions:perSecond:)``)
    /// starts at most two target durations after the live edge, also before the break's own date
    /// range is written (as ``upcoming(_:horizon:)`` sees it), while the break has not started at
    /// the edge; once written, it stays with its recorded values while the break is in the window
    /// (players behind the edge discard what a removed hint loaded, App. F, and would ask again),
    /// and goes when the break is gone (deleted, withdrawn).
    /// None without ``preload`` or on a VOD timeline; none whose ID is in `occupied` (the playlist's
    /// own date ranges), a stored break's, or recorded for another date range.
    public func hints(_ timeline: Timeline, occupied: Set<String> = []) -> [Hint] {
        guard let preload, case .live(let epoch, let window, let lookahead) = timeline else { return [] }
        let edge = window.upperBound
        let twoTargets = preload.targetDuration + preload.targetDuration
        let longest = max(preload.windows.minimum, preload.windows.maximum)
        var hints: [Hint] = []
        // As `upcoming`, with the breaks in the window too; their first servings are not recorded.
        let horizon = preload.windows.endsBefore + longest + twoTargets
        for item in plan(.live(epoch: epoch, window: window, lookahead: max(lookahead, horizon))) {
            let event = item.event
            guard let start = event.date, event.cue == .none, event.assetURI == nil,
                let uri = event.assetListURI, uri.split(separator: "?", maxSplits: 1).first == Substring(assetListURI)
            else { continue }
            let id = PreloadHint.identifier(of: event.identifier)
            guard !occupied.contains(id), state.breaks[id] == nil else { continue }
            if let served = state.served[ServedKey(target, id)] {
                // As first served, while it still names this break and ends before it.
                guard let hint = PreloadHint(attributes: served), hint.breakID == event.identifier, hint.uri == uri,
                    hint.range.upperBound <= start
                else { continue }
                hints.append(Hint(identifier: id, attributes: served))
                continue
            }
            let range = preload.windows.hint(start: start, sessions: preload.sessions, perSecond: preload.perSecond)
            guard start > edge, range.lowerBound <= edge + twoTargets,
                let attributes = try? PreloadHint(breakID: event.identifier, uri: uri, range: range).attributes
            else { continue }
            hints.append(Hint(identifier: id, attributes: attributes, firstServing: attributes))
        }
        return hints
    }

    /// The served signalled breaks to withdraw on `timeline`: cancelled (splice_event_cancel_indicator
    /// or segmentation_event_cancel_indicator) after their first serving but before they start, that
    /// is after the live edge. R12: "A removed event that has not started is unscheduled; one that is
    /// playing runs to completion", so a cancel that comes once the break has started changes nothing.
    /// The server records the withdrawal (``StoreChange/withdraw(_:)``) so that the break stays gone
    /// when its markers leave the window and after a restart.
    public func withdrawals(_ timeline: Timeline) -> [String] {
        guard case .live(_, let window, _) = timeline else { return [] }
        return matchedSignals.compactMap { item in
            let key = ServedKey(target, item.id)
            guard item.isCancelled, !state.withdrawn.contains(key), let attributes = state.served[key],
                let start = servedEvent(attributes)?.date, start > window.upperBound
            else { return nil }
            return item.id
        }
    }

    /// The planned date range with this ID, on `timeline`, even if outside a live window.
    ///
    /// A cadence break is found by its canonical ID only (``BreakSchedule/prefix``, `-` and the
    /// start's seconds as written, without sign or leading zeros: `break-0<t>` and `break-+<t>` are
    /// not other names of `break-<t>`), and on a live timeline only when it starts less than
    /// `reach` after the live edge (nil: any time): cadence IDs are predictable, and a break further
    /// ahead than anything is prepared for (the look-ahead and ``BreakWindows/horizon``) is no
    /// request a player makes.
    public func lookup(id: String, _ timeline: Timeline, reach: MediaTime? = nil) -> Planned? {
        guard !state.withdrawn.contains(ServedKey(target, id)) else { return nil }
        if let item = state.breaks[id], item.target == target { return planned(item, timeline, filter: false) }
        if let schedule = state.schedules[target], let start = cadenceStart(id: id, schedule: schedule, timeline),
            Self.within(reach, start: start, timeline),
            let item = schedule.cadenceBreak(at: start, epoch: epoch(timeline))
        {
            return planned(item, timeline, filter: false)
        }
        if let attributes = state.served[ServedKey(target, id)], var event = servedEvent(attributes) {
            applyEarlyReturn(to: &event)
            return Planned(event: event, source: nil)
        }
        return nil
    }

    /// The event of a served date range's `attributes` (nil: not an interstitial), from
    /// ``servedEvents`` when there is one.
    private func servedEvent(_ attributes: AttributeList) -> InterstitialEvent? {
        if let servedEvents { return servedEvents.event(attributes) }
        return InterstitialEvent(attributes: attributes)
    }

    /// Whether a break starting at `start` (from the timeline's epoch) starts less than `reach`
    /// after a live timeline's edge; always on a VOD timeline or without `reach`.
    private static func within(_ reach: MediaTime?, start: MediaTime, _ timeline: Timeline) -> Bool {
        guard let reach, case .live(let epoch, let window, _) = timeline else { return true }
        return epoch + start < window.upperBound + reach
    }

    private func epoch(_ timeline: Timeline) -> DateTime? {
        if case .live(let epoch, _, _) = timeline { return epoch }
        return nil
    }

    private func candidates(_ timeline: Timeline) -> [Break] {
        var items = state.breaks.values.filter { $0.target == target }.sorted { $0.id < $1.id }
        if case .vod = timeline { items += vmapBreaks.filter { $0.target == target } }
        guard let schedule = state.schedules[target], let cadence = schedule.cadence else { return items }
        switch timeline {
        case .vod(let duration, _):
            for start in schedule.cadenceStarts(in: .zero..<max(.zero, duration)) {
                if let item = schedule.cadenceBreak(at: start, epoch: nil) { items.append(item) }
            }
        case .live(let epoch, let window, let lookahead):
            let lower = window.lowerBound - epoch - cadence.duration - MediaTime(seconds: 1)
            let upper = window.upperBound + lookahead - epoch
            let end = max(.zero, upper)
            for start in schedule.cadenceStarts(in: min(max(.zero, lower), end)..<end) {
                if let item = schedule.cadenceBreak(at: start, epoch: epoch) { items.append(item) }
            }
        }
        return items
    }

    private func cadenceStart(id: String, schedule: BreakSchedule, _ timeline: Timeline) -> MediaTime? {
        let digits = id.dropFirst(schedule.prefix.count + 1)
        // The canonical form only: `Int64` also reads `+5` and `05`, which would be other keys for
        // the same break (other decisions, other ad-server requests).
        guard id.hasPrefix(schedule.prefix + "-"), let cadence = schedule.cadence, cadence.every > .zero,
            let seconds = Int64(digits), seconds >= 0, seconds < 1 << 33, String(seconds) == digits
        else { return nil }
        let start: MediaTime
        if let epoch = epoch(timeline) {
            start = DateTime(nanosecondsSinceEpoch: seconds * 1_000_000_000) - epoch
        } else {
            start = MediaTime(nanoseconds: seconds * 1_000_000_000)
        }
        let since = start - cadence.offset
        guard since >= .zero, since.nanoseconds % cadence.every.nanoseconds == 0 else { return nil }
        if case .vod(let duration, _) = timeline, start >= duration { return nil }
        return start
    }

    private func planned(_ item: Break, _ timeline: Timeline, filter: Bool = true) -> Planned? {
        let key = ServedKey(target, item.id)
        var event: InterstitialEvent
        var firstServing: AttributeList?
        if let attributes = state.served[key], let served = servedEvent(attributes) {
            event = served
        } else {
            guard let built = build(item, timeline), let attributes = try? built.dateRangeAttributes else { return nil }
            // Written as every later serving writes it: from the attributes recorded.
            event = servedEvent(attributes) ?? built
            firstServing = attributes
        }
        applyEarlyReturn(to: &event)
        if filter, case .live(_, let window, let lookahead) = timeline, event.cue == .none {
            guard let start = event.date, start < window.upperBound + lookahead, overlaps(event, window) else {
                return nil
            }
        }
        return Planned(event: event, source: item, firstServing: firstServing)
    }

    private func build(_ item: Break, _ timeline: Timeline) -> InterstitialEvent? {
        var request = item.interstitial
        let cue = request.cue ?? []
        if request.at == nil, request.date == nil {
            switch timeline {
            case .vod(let duration, _): request.at = cue.contains("POST") ? duration : .zero
            case .live(let epoch, _, _): request.date = epoch
            }
        }
        if let id = item.ad {
            guard let ad = state.ads[id] else { return nil }
            request.assetURI = adURI(ad)
        } else if item.usesServerAssetList {
            request.assetListURI = assetListURI
        }
        let mapping: (MediaTime) -> DateTime?
        switch timeline {
        case .vod(_, let dateAt): mapping = dateAt
        case .live(let epoch, _, _): mapping = { epoch + $0 }
        }
        guard var event = try? request.event(mapping: mapping) else { return nil }
        event.sourceAttributes = nil
        return event
    }

    /// The date range of a signalled break: as first served (with an early return the signal shows
    /// after it), or new: START-DATE the signal's, DURATION once an IN ended it (else
    /// PLANNED-DURATION), X-ASSET-LIST for late binding, no X-RESUME-OFFSET (live, R10). A cancelled
    /// break that was never served is not planned; one served is withdrawn (``withdrawals(_:)``) or,
    /// once started, stays as served.
    private func planned(signalled item: SignalledBreak, _ timeline: Timeline) -> Planned? {
        let key = ServedKey(target, item.id)
        var event: InterstitialEvent
        var firstServing: AttributeList?
        var earlyReturn: MediaTime?
        if let attributes = state.served[key], let served = servedEvent(attributes) {
            event = served
            if let actual = item.actualDuration, state.earlyReturns[key] == nil, served.duration == nil,
                served.endDate == nil, served.playoutLimit == nil
            {
                earlyReturn = InterstitialEvent.earlyReturnPlayoutLimit(elapsed: actual)
            }
        } else {
            guard !item.isCancelled, let start = item.startDate, !servedSignal(near: start, other: item.id) else {
                return nil
            }
            var request = InsertionRequest(id: item.id)
            request.date = start
            if item.hasReturned, let duration = item.duration ?? item.returnedAfter {
                request.duration = duration
            } else {
                request.plannedDuration = item.plannedDuration
            }
            request.assetListURI = assetListURI
            if snapSignals { request.snap = ["OUT", "IN"] }
            guard var built = try? request.event(mapping: { _ in nil }), let attributes = try? built.dateRangeAttributes
            else { return nil }
            built.sourceAttributes = nil
            event = servedEvent(attributes) ?? built
            firstServing = attributes
        }
        applyEarlyReturn(to: &event)
        if let earlyReturn {
            event.playoutLimit = earlyReturn
            if let start = event.date {
                event.duration = earlyReturn
                event.endDate = start + earlyReturn
            }
        }
        if case .live(_, let window, let lookahead) = timeline {
            guard let start = event.date, start < window.upperBound + lookahead, overlaps(event, window) else {
                return nil
            }
        }
        return Planned(event: event, source: nil, firstServing: firstServing, earlyReturn: earlyReturn)
    }

    /// Whether another signalled break of the target was served starting within
    /// ``SignalRecognizer/tolerance`` of `start`: the same break found under another ID (its OUT with
    /// a section left the window and only an EXT-X-CUE-OUT-CONT without one remains, or a rendition
    /// lacks the section), which is not served twice. A break served under an early notice's ID
    /// (``BreakNotice/idPrefix``) is a signalled one too, also once its notice has expired.
    private func servedSignal(near start: DateTime, other id: String) -> Bool {
        state.served.contains { key, attributes in
            guard key.target == target, key.id != id,
                key.id.hasPrefix("scte35-") || key.id.hasPrefix(BreakNotice.idPrefix), !state.withdrawn.contains(key),
                let date = servedEvent(attributes)?.date
            else { return false }
            return abs((date - start).nanoseconds) <= SignalRecognizer.tolerance.nanoseconds
        }
    }

    private func applyEarlyReturn(to event: inout InterstitialEvent) {
        guard let limit = state.earlyReturns[ServedKey(target, event.identifier)] else { return }
        if event.playoutLimit == nil { event.playoutLimit = limit }
        if event.duration == nil, event.endDate == nil, let start = event.date {
            event.duration = limit
            event.endDate = start + limit
        }
    }

    private func overlaps(_ event: InterstitialEvent, _ window: Range<DateTime>) -> Bool {
        guard let end = event.effectiveEnd() else { return true }
        return end >= window.lowerBound
    }
}
