import HLSInterstitials
import HLSPlaylist

/// When to decide ahead for which viewer of which live break (pure, a state machine as a value).
///
/// Each upcoming break of a live channel filled by a VAST ad server (``Upcoming``) waits until its
/// retrieval window (``BreakWindows/retrieval(hintStart:sessions:perSecond:)``) opens; then the
/// sessions seen on the channel are decided one by one, each once, until the break starts; the
/// break's decisions expire when it ends, or at once when it is gone from the schedule before it
/// starts. A shared ad tag (no session macro) is decided once for everyone, with session `""`.
///
/// Pacing keeps the ad server's capacity for live requests: per ad server, at most ``Pacing/inFlight``
/// decisions in flight (three quarters of its `maxConcurrent`) and a token bucket of ``Pacing/perSecond``
/// (its `maxPerSecond`, or the rate its gate learned) from which the live requests seen (``live(server:started:)``) are taken too.
/// With a shared ledger, keys are claimed before they are decided (``Action/claim(_:)``): a key
/// another replica won is not decided here; when the ledger fails, this replica decides for its
/// own sessions anyway.
///
/// Time is given with each input; nothing here reads a clock.
struct PrefetchPlanner: Sendable {
    /// The limits of one ad server for decisions made ahead.
    struct Pacing: Hashable, Sendable {
        /// The most decisions in flight (three quarters of `maxConcurrent`).
        var inFlight: Int
        /// The most requests started per second, live ones included (`maxPerSecond`, or the rate
        /// the ad server's gate learned: ``AdServerSettings/pacingRate(learned:)``).
        var perSecond: Int

        /// The pacing of an ad server with these settings, at `perSecond`
        /// (``AdServerSettings/pacingRate(learned:)``).
        init(_ settings: AdServerSettings, perSecond: Int) {
            inFlight = max(1, settings.maximumConcurrent * 3 / 4)
            self.perSecond = perSecond
        }

        /// Explicit limits.
        init(inFlight: Int, perSecond: Int) {
            self.inFlight = inFlight
            self.perSecond = perSecond
        }
    }

    /// An upcoming break, as the planner is told of it.
    struct Upcoming: Hashable, Sendable {
        /// The break.
        var key: PrefetchCache.BreakKey
        /// When it starts.
        var start: DateTime
        /// When it ends: its decisions expire then.
        var end: DateTime
        /// Its retrieval window.
        var window: Range<DateTime>
        /// Whether its ad tag is the same for every viewer (one decision, session `""`).
        var shared: Bool
        /// Its ad server (``AdServerGates/key(of:)``), whose capacity it shares.
        var server: String
        /// That ad server's pacing.
        var pacing: Pacing
    }

    /// What to do.
    enum Action: Hashable, Sendable {
        /// Claim these keys in the shared ledger; answer with ``claimed(_:won:now:)``.
        case claim([DecisionKey])
        /// Ask the ad server for this key's decision; answer with ``decided(_:now:)``.
        case decide(DecisionKey)
        /// Drop the decisions of this break.
        case expire(PrefetchCache.BreakKey)
    }

    /// The progress of a break in its window.
    ///
    /// The queues are read from a head index (``queueHead``, ``readyHead``) and compacted once
    /// half consumed, so taking a session is O(1) amortized; the planner mutates a break's progress
    /// in place (``withProgress(_:_:)``), never copying its sessions.
    struct Progress: Hashable, Sendable {
        /// Every session queued here (decided, being decided, claimed or to come).
        var known: Set<String> = []
        /// The sessions to claim (with a shared ledger) or decide, oldest first, from ``queueHead``.
        var queue: [String] = []
        /// Where ``queue`` starts.
        var queueHead = 0
        /// The sessions being claimed.
        var claiming: Set<String> = []
        /// The sessions claimed (or needing no claim), to decide, from ``readyHead``.
        var ready: [String] = []
        /// Where ``ready`` starts.
        var readyHead = 0
        /// The sessions being decided.
        var inFlight: Set<String> = []

        /// The sessions queued or ready, not yet claimed or decided.
        var waiting: Int { queue.count - queueHead + ready.count - readyHead }

        /// Takes at most `count` sessions from the front of ``queue``.
        mutating func takeQueued(_ count: Int) -> [String] {
            let end = min(queue.count, queueHead + count)
            let taken = Array(queue[queueHead..<end])
            queueHead = end
            Self.compact(&queue, &queueHead)
            return taken
        }

        /// Drops the first `count` sessions of ``ready``.
        mutating func dropReady(_ count: Int) {
            readyHead += count
            Self.compact(&ready, &readyHead)
        }

        /// Frees the consumed front of `array` once it is at least half of it.
        private static func compact(_ array: inout [String], _ head: inout Int) {
            guard head > 0 else { return }
            if head == array.count {
                array.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= array.count {
                array.removeFirst(head)
                head = 0
            }
        }
    }

    /// Where a break is.
    enum Phase: Hashable, Sendable {
        /// Before its window.
        case waiting
        /// In its window or after it, before the break starts.
        case deciding(Progress)
        /// Started: its decisions are served until it ends.
        case started
    }

    /// A break followed.
    struct Tracked: Hashable, Sendable {
        var upcoming: Upcoming
        var phase: Phase
    }

    /// The token bucket and in-flight count of an ad server.
    struct Bucket: Hashable, Sendable {
        var tokens: Double
        var counted: DateTime?
        var inFlight = 0
    }

    /// The most breaks followed at once.
    static let maximumBreaks = 256

    /// Whether keys are claimed before they are decided (a ledger other replicas share).
    var claims: Bool
    /// The most keys claimed at once for one break.
    var claimBatch = 256
    /// The most sessions queued for one break over its window (``ServerLimits/prefetchDecisions``;
    /// less when its ad server cannot decide that many in it: ``sessionBound(_:)``): a flood of new
    /// session IDs during a window cannot grow what the planner holds.
    var maximumSessions = 200_000
    /// The breaks followed.
    private(set) var breaks: [PrefetchCache.BreakKey: Tracked] = [:]
    /// The ad servers' buckets.
    private(set) var buckets: [String: Bucket] = [:]

    /// A planner; `claims` when a shared ledger is used.
    init(claims: Bool) {
        self.claims = claims
    }

    /// Runs `body` on the progress of `key`'s break, in place: the dictionary lets go of it first,
    /// so its sets and arrays are mutated, never copied (a copy per decision, of every session
    /// array, made the planner O(sessions × breaks) per decision). Nil when the break is not
    /// deciding.
    private mutating func withProgress<Result>(
        _ key: PrefetchCache.BreakKey, _ body: (inout Progress, Upcoming) -> Result
    ) -> Result? {
        guard let upcoming = breaks[key]?.upcoming, case .deciding(var progress)? = breaks[key]?.phase else {
            return nil
        }
        breaks[key]?.phase = .waiting
        let result = body(&progress, upcoming)
        breaks[key]?.phase = .deciding(progress)
        return result
    }

    /// The most sessions queued for `upcoming`'s break: what its ad server can decide between its
    /// window's start and the break's (``Pacing/perSecond`` a second), within ``maximumSessions``.
    /// Sessions beyond it could not be decided ahead anyway; a flood of new session IDs cannot
    /// queue more.
    func sessionBound(_ upcoming: Upcoming) -> Int {
        let seconds = max(0, (upcoming.start - upcoming.window.lowerBound).nanoseconds + 999_999_999) / 1_000_000_000
        let capacity = Int(clamping: seconds).multipliedReportingOverflow(by: max(1, upcoming.pacing.perSecond))
        return max(1, min(maximumSessions, capacity.overflow ? Int.max : capacity.partialValue))
    }

    /// The upcoming breaks now: new ones are followed, changed ones updated, those gone before they
    /// started are dropped (``Action/expire(_:)``).
    mutating func update(_ upcoming: [Upcoming], now: DateTime) -> [Action] {
        var actions: [Action] = []
        let given = Dictionary(upcoming.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for (key, tracked) in breaks where given[key] == nil && tracked.upcoming.start > now {
            if case .deciding(let progress) = tracked.phase {
                buckets[tracked.upcoming.server]?.inFlight -= progress.inFlight.count
            }
            breaks[key] = nil
            actions.append(.expire(key))
        }
        for item in upcoming.sorted(by: { $0.start < $1.start }) {
            if breaks[item.key] != nil {
                breaks[item.key]?.upcoming = item
            } else if breaks.count < Self.maximumBreaks, item.start > now {
                breaks[item.key] = Tracked(upcoming: item, phase: .waiting)
            }
        }
        return actions + tick(now: now)
    }

    /// The sessions seen on the channel of `key`'s break now: those not yet known are queued, when
    /// the break is in its window (a shared tag queues `""` alone).
    /// At most ``sessionBound(_:)`` sessions are ever queued for one break.
    mutating func sessions(_ sessions: [String], for key: PrefetchCache.BreakKey, now: DateTime) {
        let bound = breaks[key].map { sessionBound($0.upcoming) } ?? 0
        _ = withProgress(key) { progress, upcoming in
            for session in upcoming.shared ? [""] : sessions {
                guard progress.known.count < bound else { break }
                if progress.known.insert(session).inserted { progress.queue.append(session) }
            }
        }
    }

    /// `key`'s decision was used up (a standing decision taken by a break) or is due to be made
    /// again (VAST's expiry): while its break is in its window, the session may be queued again
    /// (the next break gets a new decision; a stale one is replaced).
    mutating func consumed(_ key: DecisionKey) {
        let breakKey = PrefetchCache.BreakKey(target: key.target, breakID: key.breakID)
        guard let tracked = breaks[breakKey], case .deciding = tracked.phase else { return }
        _ = withProgress(breakKey) { progress, _ in
            guard !progress.inFlight.contains(key.session), !progress.claiming.contains(key.session) else { return }
            progress.known.remove(key.session)
        }
    }

    /// Whether `key`'s break is in its window (its sessions are wanted).
    func isDeciding(_ key: PrefetchCache.BreakKey) -> Bool {
        if case .deciding = breaks[key]?.phase { return true }
        return false
    }

    /// Whether `key`'s break is in its window with room for more sessions (``sessionBound(_:)``;
    /// a shared tag's one session queued): the sessions seen need not be listed otherwise.
    func wantsSessions(_ key: PrefetchCache.BreakKey) -> Bool {
        guard let tracked = breaks[key], case .deciding(let progress) = tracked.phase else { return false }
        return progress.known.count < (tracked.upcoming.shared ? 1 : sessionBound(tracked.upcoming))
    }

    /// Live requests to ad server `server` started: they take from the bucket.
    mutating func live(server: String, started: Int, now: DateTime) {
        guard var bucket = buckets[server] else { return }
        bucket.tokens -= Double(started)
        buckets[server] = bucket
    }

    /// The claim of `keys` ended: `won` are decided here, the others by another replica; nil when
    /// the ledger failed (all are decided here).
    mutating func claimed(_ keys: [DecisionKey], won: Set<DecisionKey>?, now: DateTime) -> [Action] {
        var servers: Set<String> = []
        for key in keys {
            let breakKey = PrefetchCache.BreakKey(target: key.target, breakID: key.breakID)
            let server = withProgress(breakKey) { progress, upcoming in
                guard progress.claiming.remove(key.session) != nil else { return nil as String? }
                if won?.contains(key) ?? true { progress.ready.append(key.session) }
                return upcoming.server
            }
            if let server = server ?? nil { servers.insert(server) }
        }
        return tick(now: now, servers: servers)
    }

    /// The decision of `key` ended (made, failed or not kept): the breaks of its ad server may
    /// start more (the others wait for their own inputs or the next tick).
    mutating func decided(_ key: DecisionKey, now: DateTime) -> [Action] {
        let breakKey = PrefetchCache.BreakKey(target: key.target, breakID: key.breakID)
        guard let server = breaks[breakKey]?.upcoming.server else { return tick(now: now, servers: []) }
        let removed = withProgress(breakKey) { progress, _ in progress.inFlight.remove(key.session) != nil }
        if removed == true { buckets[server]?.inFlight -= 1 }
        return tick(now: now, servers: [server])
    }

    /// The time is `now`: windows open, breaks start and end, and sessions are claimed and
    /// decided as the pacing allows, the earliest break first.
    mutating func tick(now: DateTime) -> [Action] {
        tick(now: now, servers: nil)
    }

    /// What a break is at, without its sessions (so reading it holds no reference to them).
    private enum Stage {
        case waiting
        case deciding(inFlight: Int)
        case started
    }

    private func stage(_ key: PrefetchCache.BreakKey) -> Stage? {
        switch breaks[key]?.phase {
        case .waiting?: .waiting
        case .deciding(let progress)?: .deciding(inFlight: progress.inFlight.count)
        case .started?: .started
        case nil: nil
        }
    }

    /// ``tick(now:)``, scheduling only the breaks of `servers` (nil: all).
    private mutating func tick(now: DateTime, servers: Set<String>?) -> [Action] {
        var actions: [Action] = []
        let order = breaks.map { ($0.key, $0.value.upcoming.start) }.sorted { $0.1 < $1.1 }.map(\.0)
        for key in order {
            guard let upcoming = breaks[key]?.upcoming, let stage = stage(key) else { continue }
            if upcoming.end <= now {
                if case .deciding(let inFlight) = stage { buckets[upcoming.server]?.inFlight -= inFlight }
                breaks[key] = nil
                actions.append(.expire(key))
                continue
            }
            let scheduled = servers?.contains(upcoming.server) ?? true
            switch stage {
            case .waiting where upcoming.start <= now:
                breaks[key]?.phase = .started
            case .waiting where now >= upcoming.window.lowerBound:
                breaks[key]?.phase = .deciding(Progress())
                if scheduled { actions += schedule(key, now: now) }
            case .deciding(let inFlight) where upcoming.start <= now:
                // Decisions still in flight are kept when they end; nothing new starts.
                buckets[upcoming.server]?.inFlight -= inFlight
                breaks[key]?.phase = .started
            case .deciding where scheduled:
                actions += schedule(key, now: now)
            default: break
            }
        }
        return actions
    }

    /// Claims and decides what `key`'s break may now.
    private mutating func schedule(_ key: PrefetchCache.BreakKey, now: DateTime) -> [Action] {
        guard let upcoming = breaks[key]?.upcoming else { return [] }
        let claims = claims
        let claimBatch = claimBatch
        var bucket = refilled(upcoming.server, pacing: upcoming.pacing, now: now)
        let actions: [Action] =
            withProgress(key) { (progress: inout Progress, upcoming: Upcoming) -> [Action] in
                var actions: [Action] = []
                if claims {
                    // Claim ahead of what the pacing starts, one batch at a time.
                    if progress.claiming.isEmpty, progress.ready.count - progress.readyHead < upcoming.pacing.inFlight,
                        progress.queueHead < progress.queue.count
                    {
                        let batch = progress.takeQueued(claimBatch)
                        progress.claiming.formUnion(batch)
                        actions.append(
                            .claim(batch.map { DecisionKey(target: key.target, breakID: key.breakID, session: $0) }))
                    }
                } else if progress.queueHead < progress.queue.count {
                    progress.ready += progress.takeQueued(progress.queue.count)
                }
                var started = 0
                while progress.readyHead + started < progress.ready.count, bucket.inFlight < upcoming.pacing.inFlight,
                    bucket.tokens >= 1
                {
                    let session = progress.ready[progress.readyHead + started]
                    started += 1
                    bucket.tokens -= 1
                    bucket.inFlight += 1
                    progress.inFlight.insert(session)
                    actions.append(.decide(DecisionKey(target: key.target, breakID: key.breakID, session: session)))
                }
                progress.dropReady(started)
                return actions
            } ?? []
        buckets[upcoming.server] = bucket
        return actions
    }

    /// `server`'s bucket refilled at `now` (a quarter second of tokens at most: no burst).
    private func refilled(_ server: String, pacing: Pacing, now: DateTime) -> Bucket {
        let rate = Double(max(1, pacing.perSecond))
        let capacity = max(1, rate / 4)
        var bucket = buckets[server] ?? Bucket(tokens: capacity)
        if let counted = bucket.counted, now > counted {
            bucket.tokens += Double((now - counted).nanoseconds) / 1e9 * rate
        }
        bucket.tokens = min(bucket.tokens, capacity)
        if bucket.counted.map({ now > $0 }) ?? true { bucket.counted = now }
        return bucket
    }
}
