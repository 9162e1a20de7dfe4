import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Makes the decisions of upcoming live breaks before the viewers ask: the driver of the
/// ``PrefetchPlanner``, one of the application's services.
///
/// Every ``interval`` (250 ms) and whenever a decision or claim ends, it gives the planner the
/// time; every second, the upcoming breaks (``PrefetchBreakFinder/upcoming(at:)``) and the sessions
/// playing on their channels (``ViewerSessions/playing(_:)``: seen reloading as a player does, not
/// only named once), less those already decided. It does what the
/// planner asks: a decision goes through ``VASTDecisionClient/decide(url:root:settings:headers:deadline:cacheBuster:)``
/// and its ad server's gate like a live one, with the viewer's session and its device fields as
/// last seen on its playlist and asset-list requests (``ViewerSessions/device(_:on:)``, recorded by
/// ``RequestEffects`` and the asset lists: `X-Device-*` fields, `[DEVICEUA]` and `[DEVICEIP]`;
/// none for a shared tag),
/// is prepared (``VASTFill/prepare(ads:conditioned:)``), kept in the
/// ``PrefetchCache`` until the break ends, and published to the ledger. A standing decision whose
/// ads give a VAST `<Expires>` is made again before it goes stale (``PrefetchCache/refreshDue(now:)``,
/// every second). With a shared ledger,
/// keys are claimed first, and every second the decisions other replicas published are read into
/// the cache; when the ledger fails, the replica decides for its own sessions anyway (logged once
/// per failure spell, counted as `hlsi_prefetch_ledger_failures_total`).
struct PrefetchService: Service {
    /// Where replicas claim and share decisions made ahead; nil: this replica alone.
    let ledger: (any DecisionLedger)?
    /// The server's configuration (its limits).
    let configuration: ServerConfiguration
    /// Finds the upcoming and standing breaks.
    let breaks: PrefetchBreakFinder
    /// The live decisions started, for the pacing.
    let liveDecisions: LiveDecisions
    /// The decisions made ahead, until their breaks end.
    let prefetched: PrefetchCache
    /// The viewers seen on each live channel.
    let sessions: ViewerSessions
    let vast: VASTDecisionClient
    let metrics: ServerMetrics
    let logger: Logger
    /// This replica's name in claims.
    var owner = UUID().uuidString
    /// How often the planner is ticked.
    var interval = MediaTime(nanoseconds: 250_000_000)
    /// How long one decision made ahead may take (queue included).
    var deadline = MediaTime(seconds: 5)
    /// How long a claim holds without a decision.
    var claimLifetime = MediaTime(seconds: 30)
    /// The server's clock: the wall clock of the planner, the deadlines of decisions, the ticks.
    var clock: any ServerClock = SystemServerClock()

    /// The prefetcher of `library`'s channels (its collaborators taken from the composition root),
    /// deciding with `vast`.
    init(
        library: ContentLibrary, vast: VASTDecisionClient, metrics: ServerMetrics, logger: Logger,
        owner: String = UUID().uuidString, clock: any ServerClock = SystemServerClock()
    ) {
        ledger = library.ledger
        configuration = library.configuration
        breaks = library.prefetchBreaks
        liveDecisions = library.liveDecisions
        prefetched = library.prefetched
        sessions = library.sessions
        self.vast = vast
        self.metrics = metrics
        self.logger = logger
        self.owner = owner
        self.clock = clock
    }

    /// Runs until cancelled or a graceful shutdown.
    func run() async {
        await cancelWhenGracefulShutdown { await loop() }
    }

    private final class Shared: Sendable {
        let planner: NIOLockedValueBox<PrefetchPlanner>
        /// The actions of inputs that came from decisions and claims, to perform.
        let pending = NIOLockedValueBox<[PrefetchPlanner.Action]>([])
        /// What deciding each followed break takes.
        let breaks = NIOLockedValueBox<[PrefetchCache.BreakKey: PrefetchBreak]>([:])
        /// Whether the ledger is failing (logged once per spell).
        let ledgerFailing = NIOLockedValueBox(false)
        /// Whether a read of the ledger runs.
        let reading = NIOLockedValueBox(false)
        /// The ledger's cursor per target.
        let cursors = NIOLockedValueBox<[Target: Int64]>([:])

        init(claims: Bool, maximumSessions: Int) {
            var planner = PrefetchPlanner(claims: claims)
            planner.maximumSessions = maximumSessions
            self.planner = NIOLockedValueBox(planner)
        }
    }

    /// The loop: ticks, and the decisions and claims it starts in child tasks.
    func loop() async {
        let shared = Shared(
            claims: ledger?.isShared ?? false, maximumSessions: configuration.limits.prefetchDecisions)
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    wake.yield()
                    do { try await clock.sleep(for: interval) } catch { break }
                }
                wake.finish()
            }
            var updated: DateTime?
            for await _ in wakes {
                let at = clock.wall
                var actions = shared.pending.withLockedValue { pending in
                    defer { pending.removeAll() }
                    return pending
                }
                if updated.map({ at - $0 >= MediaTime(seconds: 1) || at < $0 }) ?? true {
                    updated = at
                    actions += update(shared, at: at)
                    if let ledger = ledger, ledger.isShared,
                        shared.reading.withLockedValue({ reading in
                            defer { reading = true }
                            return !reading
                        })
                    {
                        group.addTask { await read(ledger, shared, at: at) }
                    }
                }
                actions += shared.planner.withLockedValue { $0.tick(now: at) }
                for action in actions {
                    perform(action, shared, group: &group, wake: wake)
                }
            }
            group.cancelAll()
        }
    }

    /// Gives the planner the upcoming breaks and their sessions; drops what expired.
    private func update(_ shared: Shared, at: DateTime) -> [PrefetchPlanner.Action] {
        let found = breaks.upcoming(at: at)
        shared.breaks.withLockedValue { breaks in
            for item in found { breaks[item.upcoming.key] = item }
        }
        let live = liveDecisions.take()
        // Standing decisions used up, or due to be made again before they go stale (VAST's expiry).
        let consumed = prefetched.takeConsumed() + prefetched.refreshDue(now: at)
        let (actions, followed) = shared.planner.withLockedValue { planner in
            for (server, started) in live { planner.live(server: server, started: started, now: at) }
            for key in consumed { planner.consumed(key) }
            let actions = planner.update(found.map(\.upcoming), now: at)
            return (actions, planner.breaks.mapValues(\.upcoming.start))
        }
        // Live decisions are kept for these breaks only.
        prefetched.follow(followed)
        let deciding = shared.planner.withLockedValue { planner in
            found.map(\.upcoming.key).filter { planner.wantsSessions($0) }
        }
        for key in deciding {
            // Only the sessions seen playing: a made-up ID named on one request spends no decision.
            var sessions = self.sessions.playing(key.target).filter { session in
                prefetched.wants(DecisionKey(target: key.target, breakID: key.breakID, session: session))
            }
            // A new period: whoever has no standing decision from the previous one first.
            if let previous = StandingBreak.previousID(of: key.breakID) {
                sessions = StandingBreak.order(sessions) { session in
                    prefetched.contains(DecisionKey(target: key.target, breakID: previous, session: session))
                }
            }
            shared.planner.withLockedValue { $0.sessions(sessions, for: key, now: at) }
        }
        prefetched.expire(now: at)
        let totals = prefetched.totals
        metrics.prefetchCache(entries: totals.count, bytes: totals.bytes)
        let viewers = sessions.totals
        metrics.viewerSessions(count: viewers.count, bytes: viewers.bytes, playing: viewers.playing)
        // Each channel with standing decisions on: how many are kept, for what break length.
        let standing = prefetched.standing
        let durations = shared.breaks.withLockedValue { breaks in
            breaks.values.filter { StandingBreak.isStanding($0.upcoming.key.breakID) }
                .map { ($0.upcoming.key.target, $0.duration) }
        }
        for (target, duration) in Dictionary(durations, uniquingKeysWith: { $1 }) {
            metrics.standing(target: target.description, decisions: standing[target] ?? 0, expectedBreak: duration)
        }
        return actions
    }

    /// Does one action of the planner.
    private func perform(
        _ action: PrefetchPlanner.Action, _ shared: Shared, group: inout DiscardingTaskGroup,
        wake: AsyncStream<Void>.Continuation
    ) {
        switch action {
        case .expire(let key):
            prefetched.drop(target: key.target, breakID: key.breakID)
            shared.breaks.withLockedValue { $0[key] = nil }
            shared.cursors.withLockedValue { cursors in
                if !shared.breaks.withLockedValue({ $0.keys.contains { $0.target == key.target } }) {
                    cursors[key.target] = nil
                }
            }
        case .claim(let keys):
            guard let ledger = ledger else { return }
            group.addTask {
                let at = clock.wall
                var won: Set<DecisionKey>?
                do {
                    won = try await ledger.claim(keys, owner: owner, until: at + claimLifetime, now: at)
                    ledgerRecovered(shared)
                } catch {
                    ledgerFailed(shared, error)
                }
                let next = shared.planner.withLockedValue { $0.claimed(keys, won: won, now: clock.wall) }
                shared.pending.withLockedValue { $0 += next }
                wake.yield()
            }
        case .decide(let key):
            guard
                let item = shared.breaks.withLockedValue({
                    $0[PrefetchCache.BreakKey(target: key.target, breakID: key.breakID)]
                })
            else {
                let next = shared.planner.withLockedValue { $0.decided(key, now: clock.wall) }
                shared.pending.withLockedValue { $0 += next }
                return
            }
            group.addTask {
                await decide(key, item)
                let next = shared.planner.withLockedValue { $0.decided(key, now: clock.wall) }
                shared.pending.withLockedValue { $0 += next }
                wake.yield()
            }
        }
    }

    /// Decides `key` of `item`'s break through its ad server, keeps and publishes the decision:
    /// the driver of a ``DecisionMachine`` in ``DecisionMachine/Mode/ahead(_:)``.
    private func decide(_ key: DecisionKey, _ item: PrefetchBreak) async {
        // Not when it was decided meanwhile, or is being decided (the viewer asked first).
        guard let tag = item.settings.vast, prefetched.begin(key) else { return }
        defer { prefetched.finished(key) }
        var request = AssetListService.adRequest(
            breakID: key.breakID, duration: item.duration, session: key.session.isEmpty ? nil : key.session,
            target: key.target, at: clock.wall)
        // The viewer's device fields as last seen (never for a shared tag's one decision).
        let device = key.session.isEmpty || tag.isShared ? nil : sessions.device(key.session, on: key.target)
        device?.fill(&request)
        var machine = DecisionMachine(.ahead(key), deadline: deadline)
        var rejected: [VASTErrorReport] = []
        // The ads' own expiry (VAST `<Expires>`), for a standing decision's freshness.
        var expires: Int?
        var actions = machine.start(now: clock.now)
        while !actions.isEmpty {
            var next: [DecisionMachine.Action] = []
            for action in actions {
                switch action {
                case .ask(_, let deadline):
                    let started = clock.now
                    let outcome = await vast.decide(
                        url: tag.url(for: request), settings: item.settings,
                        headers: device?.headers(shared: false) ?? [], deadline: deadline,
                        cacheBuster: request.cacheBuster)
                    // A progressive-only creative is conditioned for the viewer's renditions, which are
                    // known when the viewer asks: such a decision is left to then (as is one the ad
                    // server did not answer: the live path has the fallback).
                    let prepared = VASTFill.prepare(ads: outcome.ads) { _ in .pending }
                    rejected = prepared.rejected
                    expires = ResolvedAd.expiry(of: outcome.ads)
                    metrics.vastDecision(
                        target: key.target.description, seconds: (clock.now - started).seconds,
                        requests: outcome.requests,
                        errorCodes: (outcome.errors + prepared.rejected).map(\.code.rawValue),
                        timedOut: outcome.timedOut)
                    next += machine.decided(
                        .init(prepared: prepared, unanswered: outcome.unanswered, fitted: prepared.entries.count),
                        now: clock.now)
                case .keep(let key, let prepared):
                    for report in rejected { vast.send(report, cacheBuster: request.cacheBuster) }
                    let bytes = prepared.encoded()
                    // A standing decision with VAST's own expiry is made again before it goes stale;
                    // without one, the next period's decision takes over (the `refresh` setting).
                    let freshness =
                        StandingBreak.isStanding(key.breakID) && expires != nil
                        ? StandingBreak.freshness(decided: clock.wall, expires: expires, end: item.upcoming.end) : nil
                    // Kept decoded as the viewer's request will read it (what the bytes decode to), so
                    // that the request does not decode it.
                    guard
                        prefetched.store(
                            key, bytes, expires: item.upcoming.end, freshness: freshness,
                            decoded: PreparedDecision(encoded: bytes))
                    else {
                        metrics.prefetch(result: "full")
                        return
                    }
                    metrics.adDecision(target: key.target.description, path: DecisionMachine.Path.prefetched.rawValue)
                    guard let ledger = ledger else { return }
                    do {
                        try await ledger.publish([key: bytes], expires: item.upcoming.end)
                    } catch {
                        logger.debug("cannot publish the decision of \(key): \(error)")
                    }
                case .discard:
                    metrics.prefetch(result: "unused")
                case .countAttempt, .countAttemptHere, .lookUpKept, .lookUpStanding, .consume, .lookUpLedger, .claim,
                    .wait, .poll,
                    .answer,
                    .fallBack, .nothing:
                    // A viewer's request only.
                    break
                }
            }
            actions = next
        }
    }

    /// Reads into the cache the decisions other replicas published for the breaks followed.
    private func read(_ ledger: any DecisionLedger, _ shared: Shared, at: DateTime) async {
        defer { shared.reading.withLockedValue { $0 = false } }
        let followed = shared.breaks.withLockedValue { breaks in
            Dictionary(grouping: breaks.values, by: \.upcoming.key.target)
        }
        for (target, items) in followed {
            let ids = items.map(\.upcoming.key.breakID)
            let ends = Dictionary(items.map { ($0.upcoming.key.breakID, $0.upcoming.end) }, uniquingKeysWith: max)
            var cursor = shared.cursors.withLockedValue { $0[target] ?? 0 }
            do {
                for _ in 0..<16 {
                    let page = try await ledger.published(target: target, breaks: ids, after: cursor, limit: 1000)
                    for (key, bytes) in page.decisions {
                        // Decoded only when kept (this replica's own decisions come back too).
                        if let end = ends[key.breakID], prefetched.wants(key) {
                            prefetched.store(key, bytes, expires: end, decoded: PreparedDecision(encoded: bytes))
                        }
                    }
                    cursor = page.cursor
                    if page.decisions.count < 1000 { break }
                }
                ledgerRecovered(shared)
            } catch {
                ledgerFailed(shared, error)
            }
            shared.cursors.withLockedValue { $0[target] = cursor }
        }
        _ = try? await ledger.prune(now: at)
    }

    private func ledgerFailed(_ shared: Shared, _ error: any Error) {
        metrics.prefetch(result: "ledger-failure")
        let first = shared.ledgerFailing.withLockedValue { failing in
            defer { failing = true }
            return !failing
        }
        if first {
            logger.warning("the decision ledger failed; deciding ahead for this replica's own sessions: \(error)")
        }
    }

    private func ledgerRecovered(_ shared: Shared) {
        let was = shared.ledgerFailing.withLockedValue { failing in
            defer { failing = false }
            return failing
        }
        if was { logger.info("the decision ledger answers again") }
    }
}
