import HLSPlaylist

/// How one viewer's VAST decision for one break is reached (pure, a state machine as a value): the
/// one decision path of the server, driven by the asset-list path (``AssetListService``) for a
/// viewer who asks, and by the ``PrefetchService`` for a decision made ahead.
///
/// Time is given with each input (``MediaTime`` of one ``ServerClock``); nothing here reads a
/// clock. Each input returns the actions its driver performs; each action's result comes back as
/// the next input. All the waiting of a viewer's request is bounded by one deadline (``due``): a
/// decision on its way, the ledger and the ad server share it.
///
/// A viewer's request (``Mode/live(_:)``): its attempt is counted; a `ONCE` break asked again, or a
/// break whose ad source has no URL, is answered with nothing. The first attempt of a break that
/// may have been decided ahead (``Live/key``) looks for the decision kept here (waiting up to half
/// the deadline for one on its way), then, for a break the prefetcher follows (``Live/follows``)
/// with a shared ledger, for one another replica published (a quarter): a break no replica follows
/// has nothing published, so its request never reads the ledger. Not found, for a followed break
/// the key is claimed in a shared ledger; a claim another replica holds is waited for by polling
/// the ledger every ``pollInterval`` up to half the deadline. Before the claim, with standing
/// decisions on (``StandingBreak``), the viewer's standing decision is taken when one has an ad
/// that fits the break (R30), and consumed. Then the ad server is asked with what is left of the
/// deadline; a decision it made for a followed break is kept (and published); an answer with no ads
/// because the ad server did not answer falls back to the inventory (or the slate).
///
/// A request that may take a standing decision (``Live/countsHere``: a break no replica follows,
/// not `ONCE`) has its attempt counted here, at once (``Action/countAttemptHere``), not in a shared
/// store: a viewer whose standing decision this replica holds is answered from memory, with no
/// round trip to the database on the request path (the shared store counts the request after).
///
/// A decision made ahead (``Mode/ahead(_:)``): the ad server is asked within the deadline; an
/// answer with every ad ready is kept and published, any other is discarded (the viewer's request
/// decides then, with the fallback).
struct DecisionMachine: Sendable {
    /// What the decision is for.
    enum Mode: Hashable, Sendable {
        /// A viewer's asset-list request.
        case live(Live)
        /// A decision made ahead of its break, under `key` (claimed already when the ledger is shared).
        case ahead(DecisionKey)
    }

    /// What is known of a viewer's request before anything is asked.
    struct Live: Hashable, Sendable {
        /// The key a decision made ahead would have: nil when none can have been (a VOD asset, a
        /// VMAP break with its own ad source, a per-viewer tag asked without a session).
        var key: DecisionKey?
        /// Whether the break plays once (`X-RESTRICT` … `ONCE`): a second attempt gets nothing.
        var once = false
        /// Whether the break's ad source has a URL to ask.
        var hasURL = true
        /// Whether the prefetcher follows the break: its live decision is claimed and kept.
        var follows = false
        /// Whether the ledger is shared between replicas (``DecisionLedger/isShared``).
        var sharedLedger = false
        /// The viewer's standing decisions this break may take (``StandingBreak/lookups(session:)``),
        /// newest first; looked up when no decision was made ahead for the break itself.
        var standing: [DecisionKey] = []

        /// Whether the attempt is counted by this replica at once (``Action/countAttemptHere``)
        /// rather than in a shared store: for the first request of a break that may take a
        /// standing decision (one with a key and standing decisions, that plays more than once, and
        /// that the prefetcher does not follow, so that no decision was made ahead for it). Its
        /// answer then needs no database round trip when the standing decision is in memory.
        var countsHere: Bool { key != nil && !once && !follows && !standing.isEmpty }
    }

    /// How a claim ended.
    enum Claim: Hashable, Sendable {
        /// This replica holds it.
        case won
        /// Another replica holds it: its decision is waited for.
        case lost
        /// The ledger failed or did not answer in time: decided here.
        case failed
    }

    /// The path a decision took, counted in `hlsi_ad_decisions_total`.
    enum Path: String, Hashable, Sendable, CaseIterable {
        /// A decision made ahead, found.
        case prefetch
        /// Asked live.
        case live
        /// Asked live together with other viewers (a shared tag).
        case coalesced
        /// The ad server answered no ads.
        case empty
        /// The inventory (or slate) filled for an ad server that did not answer.
        case fallback
        /// Made ahead and kept.
        case prefetched
        /// A standing decision, fitted to the break (R30).
        case standing
    }

    /// Why a request is answered with nothing decided.
    enum Nothing: Hashable, Sendable {
        /// A `ONCE` break asked again.
        case playedOnce
        /// The break's ad source has no URL.
        case noAdTag
    }

    /// What the ad server's answer came to.
    struct Outcome: Hashable, Sendable {
        /// The decision, prepared.
        var prepared: PreparedDecision
        /// Whether the ad server failed, timed out or was not asked.
        var unanswered = false
        /// Whether the answer was shared with other viewers asking together.
        var coalesced = false
        /// The ads the viewer's asset list holds once fitted (for a decision made ahead, its entries).
        var fitted = 0
    }

    /// What the driver does.
    enum Action: Hashable, Sendable {
        /// Count the viewer's attempt at the break; give ``counted(_:now:)``.
        case countAttempt
        /// Count the viewer's attempt at the break as this replica knows it, at once (never waiting
        /// for a shared store, which is told after, off the request path); give ``counted(_:now:)``.
        case countAttemptHere
        /// Look for the decision made ahead kept by this replica, waiting up to `waitingUpTo` for one
        /// on its way; give ``kept(_:now:)``.
        case lookUpKept(DecisionKey, waitingUpTo: MediaTime)
        /// Look for the first of the viewer's standing decisions that has an ad fitting the break;
        /// give ``standing(_:now:)``.
        case lookUpStanding([DecisionKey])
        /// Take the standing decision `key` out: the break that uses it consumes it.
        case consume(DecisionKey)
        /// Look for a decision published by another replica, within `within`; give ``published(_:now:)``.
        case lookUpLedger(DecisionKey, within: MediaTime)
        /// Claim `key` for `lifetime`, within `within`; give ``claimed(_:now:)``.
        case claim(DecisionKey, lifetime: MediaTime, within: MediaTime)
        /// Wait `duration`; give ``tick(now:)``.
        case wait(MediaTime)
        /// Read the ledger for `key`'s decision within `within`; give ``published(_:now:)``.
        case poll(DecisionKey, within: MediaTime)
        /// Ask the ad server with `deadline`, `deciding` marked as being decided here meanwhile (nil:
        /// nothing marked); give ``decided(_:now:)``.
        case ask(deciding: DecisionKey?, deadline: MediaTime)
        /// Keep (and publish) `prepared` under `key`.
        case keep(DecisionKey, PreparedDecision)
        /// Fit `prepared` to the viewer's break and answer it, counted under `path`.
        case answer(PreparedDecision, Path)
        /// Answer from the fallback (the inventory, or the slate); when it has no ads, give
        /// ``noFallback(now:)``.
        case fallBack
        /// Answer an empty list, no decision counted.
        case nothing(Nothing)
        /// A decision made ahead that is not kept (unanswered, or with creatives being conditioned).
        case discard
    }

    /// Where the decision stands, with its data.
    enum State: Hashable, Sendable {
        /// Not started.
        case idle
        /// The attempt is being counted.
        case counting
        /// The decision kept here is looked for.
        case lookingUpKept(DecisionKey)
        /// A decision published by another replica is looked for.
        case lookingUpLedger(DecisionKey)
        /// The viewer's standing decisions are looked up (for the break's key).
        case lookingUpStanding(DecisionKey)
        /// The key is being claimed.
        case claiming(DecisionKey)
        /// Another replica holds the claim: its decision is polled for until `until`.
        case polling(DecisionKey, until: MediaTime)
        /// The ad server is asked; `keeping`: the key its decision is kept under.
        case asking(keeping: DecisionKey?)
        /// The ad server did not answer; the fallback is answering, else this decision.
        case fallingBack(PreparedDecision)
        /// Answered.
        case done
    }

    /// What the decision is for.
    let mode: Mode
    /// The deadline of the whole decision, from its start.
    let deadline: MediaTime
    /// How often a claim held by another replica is polled.
    var pollInterval = MediaTime(nanoseconds: 50_000_000)
    /// Where it stands.
    private(set) var state = State.idle
    /// When everything is due (set by ``start(now:)``).
    private(set) var due = MediaTime.zero

    /// A decision for `mode`, due `deadline` after it starts.
    init(_ mode: Mode, deadline: MediaTime) {
        self.mode = mode
        self.deadline = deadline
    }

    /// Starts: a viewer's request counts its attempt; a decision made ahead asks the ad server.
    mutating func start(now: MediaTime) -> [Action] {
        guard state == .idle else { return [] }
        due = now + deadline
        switch mode {
        case .live(let live):
            state = .counting
            return [live.countsHere ? .countAttemptHere : .countAttempt]
        case .ahead(let key):
            state = .asking(keeping: key)
            return [.ask(deciding: nil, deadline: deadline)]
        }
    }

    /// The viewer's attempt at the break (0: the first), counted.
    mutating func counted(_ attempt: Int, now: MediaTime) -> [Action] {
        guard state == .counting, case .live(let live) = mode else { return [] }
        if live.once && attempt > 0 { return finish(.nothing(.playedOnce)) }
        guard live.hasURL else { return finish(.nothing(.noAdTag)) }
        guard attempt == 0, let key = live.key else { return ask(keeping: nil, now: now) }
        state = .lookingUpKept(key)
        return [.lookUpKept(key, waitingUpTo: min(half, left(now)))]
    }

    /// The decision made ahead kept by this replica, found or not.
    mutating func kept(_ found: PreparedDecision?, now: MediaTime) -> [Action] {
        guard case .lookingUpKept(let key) = state, case .live(let live) = mode else { return [] }
        if let found { return finish(.answer(found, .prefetch)) }
        // Only a followed break's decisions are published (made ahead, or kept live).
        guard live.sharedLedger, live.follows else { return standingOrOn(key, live, now: now) }
        state = .lookingUpLedger(key)
        return [.lookUpLedger(key, within: min(quarter, left(now)))]
    }

    /// A decision another replica published: looked up once, or polled while it holds the claim.
    mutating func published(_ found: PreparedDecision?, now: MediaTime) -> [Action] {
        switch state {
        case .lookingUpLedger(let key):
            guard case .live(let live) = mode else { return [] }
            if let found { return finish(.answer(found, .prefetch)) }
            return standingOrOn(key, live, now: now)
        case .polling(let key, let until):
            if let found { return finish(.answer(found, .prefetch)) }
            guard now < until else { return ask(keeping: key, now: now) }
            return [.wait(min(pollInterval, until - now))]
        default:
            return []
        }
    }

    /// The viewer's standing decision with an ad that fits the break, found (under its key) or not.
    mutating func standing(_ found: (key: DecisionKey, decision: PreparedDecision)?, now: MediaTime) -> [Action] {
        guard case .lookingUpStanding(let key) = state, case .live(let live) = mode else { return [] }
        guard let found else { return claimOrAsk(key, live, now: now) }
        // A shared tag's one standing decision serves every viewer; a viewer's own is consumed.
        let consume: [Action] = found.key.session.isEmpty ? [] : [.consume(found.key)]
        return consume + finish(.answer(found.decision, .standing))
    }

    /// How the claim ended.
    mutating func claimed(_ claim: Claim, now: MediaTime) -> [Action] {
        guard case .claiming(let key) = state else { return [] }
        switch claim {
        case .won, .failed:
            return ask(keeping: key, now: now)
        case .lost:
            let until = min(now + half, due)
            guard now < until else { return ask(keeping: key, now: now) }
            state = .polling(key, until: until)
            return [.wait(min(pollInterval, until - now))]
        }
    }

    /// Time passed: while polling, the ledger is read again, or once half the deadline has passed
    /// the ad server is asked.
    mutating func tick(now: MediaTime) -> [Action] {
        guard case .polling(let key, let until) = state else { return [] }
        guard now < until else { return ask(keeping: key, now: now) }
        return [.poll(key, within: until - now)]
    }

    /// The ad server's answer.
    mutating func decided(_ outcome: Outcome, now: MediaTime) -> [Action] {
        guard case .asking(let keeping) = state else { return [] }
        let ready = !outcome.unanswered && outcome.prepared.pending == 0
        switch mode {
        case .ahead(let key):
            return finish(ready ? .keep(key, outcome.prepared) : .discard)
        case .live:
            var actions: [Action] = []
            if let keeping, ready { actions.append(.keep(keeping, outcome.prepared)) }
            if outcome.fitted == 0, outcome.unanswered {
                state = .fallingBack(outcome.prepared)
                return actions + [.fallBack]
            }
            let path: Path = outcome.fitted == 0 ? .empty : outcome.coalesced ? .coalesced : .live
            return actions + finish(.answer(outcome.prepared, path))
        }
    }

    /// The fallback has no ads: the ad server's (empty) decision is answered.
    mutating func noFallback(now: MediaTime) -> [Action] {
        guard case .fallingBack(let prepared) = state else { return [] }
        return finish(.answer(prepared, .empty))
    }

    /// No decision made ahead for the break: the viewer's standing decisions, when it may have some;
    /// else on to the claim or the ad server.
    private mutating func standingOrOn(_ key: DecisionKey, _ live: Live, now: MediaTime) -> [Action] {
        guard !live.standing.isEmpty else { return claimOrAsk(key, live, now: now) }
        state = .lookingUpStanding(key)
        return [.lookUpStanding(live.standing)]
    }

    /// Claims `key` of a followed break in a shared ledger, else asks the ad server.
    private mutating func claimOrAsk(_ key: DecisionKey, _ live: Live, now: MediaTime) -> [Action] {
        guard live.follows else { return ask(keeping: nil, now: now) }
        guard live.sharedLedger else { return ask(keeping: key, now: now) }
        state = .claiming(key)
        return [.claim(key, lifetime: deadline + deadline, within: min(half, left(now)))]
    }

    private mutating func ask(keeping: DecisionKey?, now: MediaTime) -> [Action] {
        state = .asking(keeping: keeping)
        return [.ask(deciding: keeping, deadline: left(now))]
    }

    private mutating func finish(_ action: Action) -> [Action] {
        state = .done
        return [action]
    }

    /// What is left until ``due`` (zero once it passed).
    private func left(_ now: MediaTime) -> MediaTime { max(.zero, due - now) }

    private var half: MediaTime { MediaTime(nanoseconds: deadline.nanoseconds / 2) }

    private var quarter: MediaTime { MediaTime(nanoseconds: deadline.nanoseconds / 4) }
}
