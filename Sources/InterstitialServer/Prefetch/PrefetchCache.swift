import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The decisions made ahead of live breaks (``PreparedDecision``, encoded), by ``DecisionKey``,
/// until their break ends.
///
/// Bounded in count (``Limits/count``) and bytes (``Limits/bytes``): identical decisions (most of a
/// break's, from an ad server that gives many viewers the same ads) are kept once and counted once,
/// with a reference count; each key costs its strings and ``keyOverhead``.
///
/// A decision is kept decoded too (``prepared(_:)``), so that the viewer's request that takes it does
/// not decode it: decoded when stored by the prefetcher and the ledger's reader (in the background,
/// before the break), else on its first use. The decoded form is counted at its encoded size again. When full, the
/// decisions of the break that starts last make room for those of a break that starts earlier
/// (the latest-starting break's newest first); a decision for a break no earlier than every break
/// kept is not kept (its viewer is decided when asking). So the breaks about to play keep their
/// decisions whatever was asked before.
///
/// Only decisions the server made ahead, read from its replicas' ledger, or made live for a break
/// the ``PrefetchPlanner`` follows (``follow(_:)``, ``keepLive(_:_:expires:)``) go in: a request for
/// a break further ahead (a predictable cadence ID 100 years away) keeps nothing.
final class PrefetchCache: Sendable {
    /// The bounds.
    struct Limits: Hashable, Sendable {
        /// The most decisions kept.
        var count = 200_000
        /// The most bytes kept: distinct decisions once, plus each key's cost.
        var bytes = 64 * 1024 * 1024
        /// The most standing decisions kept (``StandingBreak``), all channels together, within ``count``
        /// and ``bytes``.
        var standing = 100_000
    }

    /// A break of a target.
    struct BreakKey: Hashable, Sendable {
        var target: Target
        var breakID: String
    }

    /// The bytes counted for each key besides its strings.
    static let keyOverhead = 96

    private struct Blob {
        var bytes: [UInt8]
        var references: Int
        /// The decision decoded from ``bytes`` (counted as ``bytes`` again), once decoded.
        var decoded: PreparedDecision?
    }

    private struct State {
        var decisions: [DecisionKey: Int] = [:]
        /// Distinct decisions, by their bytes' position in ``blobs``.
        var blobs: [Int: Blob] = [:]
        var blobIndex: [[UInt8]: Int] = [:]
        var nextBlob = 0
        /// Each break's sessions (in the order kept), when it starts and when it ends.
        var breaks: [BreakKey: (start: DateTime, expires: DateTime, sessions: [String])] = [:]
        /// The breaks the planner follows, with when each starts.
        var followed: [BreakKey: DateTime] = [:]
        var bytes = 0
        /// The keys being decided now (ahead, or live for a viewer who asked first).
        var deciding: Set<DecisionKey> = []
        /// The standing decisions kept, by channel.
        var standing: [Target: Int] = [:]
        /// The standing decisions kept, all channels together.
        var standingTotal = 0
        /// The keys taken since the planner last heard of them (``takeConsumed()``), at most
        /// ``maximumConsumed``.
        var consumed: [DecisionKey] = []
        /// The standing decisions with their own expiry (VAST `<Expires>`): when each is made
        /// again and goes stale (``StandingBreak/freshness(decided:expires:end:)``).
        var freshness: [DecisionKey: StandingBreak.Freshness] = [:]
        /// The keys being made again while their decision still answers: ``begin(_:)`` lets them
        /// be decided, and the new decision replaces the old.
        var refreshing: Set<DecisionKey> = []
    }

    /// The bytes counted for a decision's expiry besides its key (``store(_:_:expires:freshness:)``).
    static let freshnessOverhead = 48

    /// The most keys taken remembered between two updates of the planner; past it a viewer whose
    /// standing decision was used gets a new one in the next refresh period only.
    static let maximumConsumed = 10_000

    let limits: Limits
    private let state = NIOLockedValueBox(State())

    /// An empty cache within `limits`.
    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    private static func cost(_ key: DecisionKey) -> Int {
        keyOverhead + key.breakID.utf8.count + key.session.utf8.count
    }

    /// The breaks the ``PrefetchPlanner`` follows now, with when each starts (it ends their
    /// decisions itself, ``drop(target:breakID:)``): live decisions are kept for these only.
    func follow(_ breaks: [BreakKey: DateTime]) {
        state.withLockedValue { $0.followed = breaks }
    }

    /// Whether the planner follows `key`'s break (a live decision for it is kept).
    func follows(_ key: BreakKey) -> Bool {
        state.withLockedValue { $0.followed[key] != nil }
    }

    /// Keeps a decision made live (a viewer asked first) as ``store(_:_:expires:)`` does, when the
    /// planner follows its break; false otherwise.
    @discardableResult
    func keepLive(_ key: DecisionKey, _ bytes: [UInt8], expires: DateTime) -> Bool {
        state.withLockedValue { state in
            guard state.followed[BreakKey(target: key.target, breakID: key.breakID)] != nil else { return false }
            return Self.store(key, bytes, expires: expires, limits: limits, in: &state)
        }
    }

    /// Keeps `bytes` as `key`'s decision until `expires`, making room from the break that starts
    /// last when it starts later than `key`'s; false when the bounds leave no room (or the key has
    /// one already: the first decision stays, unless it is being made again, ``refreshDue(now:)``).
    /// A standing decision with its own expiry gives its `freshness`: it is made again and dropped
    /// by ``refreshDue(now:)``. `decoded`: the decision `bytes` decode to
    /// (``PreparedDecision/init(encoded:)``), kept with them when the bounds leave room.
    @discardableResult
    func store(
        _ key: DecisionKey, _ bytes: [UInt8], expires: DateTime, freshness: StandingBreak.Freshness? = nil,
        decoded: PreparedDecision? = nil
    ) -> Bool {
        state.withLockedValue { state in
            // A decision made again replaces the one it refreshes.
            let replacing = state.refreshing.remove(key) != nil && state.decisions[key] != nil
            if replacing { Self.remove(key, in: &state) }
            guard Self.store(key, bytes, expires: expires, limits: limits, in: &state, listed: replacing) else {
                return false
            }
            if let decoded, let index = state.decisions[key] {
                Self.memo(decoded, at: index, limits: limits, in: &state)
            }
            if let freshness, Self.cost(key) + Self.freshnessOverhead + state.bytes <= limits.bytes {
                state.freshness[key] = freshness
                state.bytes += Self.freshnessOverhead
            }
            return true
        }
    }

    /// The standing decisions due at `now`: those past their refresh time are marked to be made
    /// again (they still answer until the new one replaces them), those gone stale are dropped.
    /// Both are returned once, for the planner to decide them again (``PrefetchPlanner/consumed(_:)``).
    func refreshDue(now: DateTime) -> [DecisionKey] {
        state.withLockedValue { state in
            var due: [DecisionKey] = []
            for (key, freshness) in state.freshness {
                if freshness.stale <= now {
                    Self.remove(key, in: &state)
                    due.append(key)
                } else if let refresh = freshness.refresh, refresh <= now {
                    state.freshness[key]?.refresh = nil
                    state.refreshing.insert(key)
                    due.append(key)
                }
            }
            return due
        }
    }

    private static func store(
        _ key: DecisionKey, _ bytes: [UInt8], expires: DateTime, limits: Limits, in state: inout State,
        listed: Bool = false
    ) -> Bool {
        guard state.decisions[key] == nil, cost(key) + bytes.count <= limits.bytes else { return false }
        let standing = StandingBreak.isStanding(key.breakID)
        if standing, state.standingTotal >= limits.standing { return false }
        let breakKey = BreakKey(target: key.target, breakID: key.breakID)
        // When the break starts: as followed, else as kept, else its end stands for its start.
        let start = state.followed[breakKey] ?? state.breaks[breakKey]?.start ?? expires
        while state.decisions.count >= limits.count
            || state.bytes + cost(key) + (state.blobIndex[bytes] == nil ? bytes.count : 0) > limits.bytes
        {
            guard evictLatest(before: start, in: &state) else { return false }
        }
        let index: Int
        if let existing = state.blobIndex[bytes] {
            index = existing
            state.blobs[index]?.references += 1
            state.bytes += cost(key)
        } else {
            index = state.nextBlob
            state.nextBlob += 1
            state.blobs[index] = Blob(bytes: bytes, references: 1)
            state.blobIndex[bytes] = index
            state.bytes += cost(key) + bytes.count
        }
        state.decisions[key] = index
        if standing {
            state.standing[key.target, default: 0] += 1
            state.standingTotal += 1
        }
        var entry = state.breaks.removeValue(forKey: breakKey) ?? (start, expires, [])
        // A decision made again is listed already (a listed session's decision is removed only with it).
        if !listed { entry.sessions.append(key.session) }
        entry.expires = max(entry.expires, expires)
        state.breaks[breakKey] = entry
        return true
    }

    /// Keeps `decoded` as the decoded form of blob `index` when it has none and the bytes bound
    /// leaves room for it.
    private static func memo(_ decoded: PreparedDecision, at index: Int, limits: Limits, in state: inout State) {
        guard let blob = state.blobs[index], blob.decoded == nil, state.bytes + blob.bytes.count <= limits.bytes
        else { return }
        state.blobs[index]?.decoded = decoded
        state.bytes += blob.bytes.count
    }

    /// Drops the newest decision of the break that starts last, when it starts after `start`;
    /// false when no break kept starts after it.
    private static func evictLatest(before start: DateTime, in state: inout State) -> Bool {
        guard let latest = state.breaks.max(by: { $0.value.start < $1.value.start }), latest.value.start > start
        else { return false }
        var entry = state.breaks.removeValue(forKey: latest.key) ?? latest.value
        if let session = entry.sessions.popLast() {
            remove(DecisionKey(target: latest.key.target, breakID: latest.key.breakID, session: session), in: &state)
        }
        if !entry.sessions.isEmpty { state.breaks[latest.key] = entry }
        return true
    }

    /// Removes `key`'s decision (its break's list of sessions is the caller's).
    private static func remove(_ key: DecisionKey, in state: inout State) {
        if state.freshness.removeValue(forKey: key) != nil { state.bytes -= freshnessOverhead }
        state.refreshing.remove(key)
        guard let index = state.decisions.removeValue(forKey: key) else { return }
        state.bytes -= cost(key)
        if StandingBreak.isStanding(key.breakID) {
            state.standingTotal -= 1
            let left = (state.standing[key.target] ?? 1) - 1
            state.standing[key.target] = left > 0 ? left : nil
        }
        guard var blob = state.blobs[index] else { return }
        blob.references -= 1
        if blob.references == 0 {
            state.blobs[index] = nil
            state.blobIndex[blob.bytes] = nil
            state.bytes -= blob.bytes.count * (blob.decoded == nil ? 1 : 2)
        } else {
            state.blobs[index] = blob
        }
    }

    /// The decision kept for `key`.
    func decision(_ key: DecisionKey) -> [UInt8]? {
        state.withLockedValue { state in state.decisions[key].flatMap { state.blobs[$0]?.bytes } }
    }

    /// The decision kept for `key`, decoded: as stored, else decoded now (outside the lock) and kept
    /// decoded for the next use; nil when there is none or its bytes are not a decision.
    func prepared(_ key: DecisionKey) -> PreparedDecision? {
        let found = state.withLockedValue { state -> (index: Int, blob: Blob)? in
            guard let index = state.decisions[key], let blob = state.blobs[index] else { return nil }
            return (index, blob)
        }
        guard let found else { return nil }
        if let decoded = found.blob.decoded { return decoded }
        guard let decoded = PreparedDecision(encoded: found.blob.bytes) else { return nil }
        state.withLockedValue { state in
            // Still the same decision (a blob's position is never reused).
            guard state.blobs[found.index] != nil else { return }
            Self.memo(decoded, at: found.index, limits: limits, in: &state)
        }
        return decoded
    }

    /// Takes `key`'s decision out of the cache: a standing decision consumed by the break that uses it.
    func take(_ key: DecisionKey) -> [UInt8]? {
        state.withLockedValue { state in
            guard let bytes = state.decisions[key].flatMap({ state.blobs[$0]?.bytes }) else { return nil }
            Self.remove(key, in: &state)
            if state.consumed.count < Self.maximumConsumed { state.consumed.append(key) }
            return bytes
        }
    }

    /// The keys taken (``take(_:)``) since the last call, for the planner to decide them again.
    func takeConsumed() -> [DecisionKey] {
        state.withLockedValue { state in
            defer { state.consumed.removeAll() }
            return state.consumed
        }
    }

    /// The standing decisions kept (``StandingBreak``), by channel.
    var standing: [Target: Int] {
        state.withLockedValue { $0.standing }
    }

    /// Whether `key` has a decision.
    func contains(_ key: DecisionKey) -> Bool {
        state.withLockedValue { $0.decisions[key] != nil }
    }

    /// Whether `key` is to be decided: it has no decision, or its decision is being made again
    /// (``refreshDue(now:)``).
    func wants(_ key: DecisionKey) -> Bool {
        state.withLockedValue { $0.decisions[key] == nil || $0.refreshing.contains(key) }
    }

    /// Marks `key` as being decided, so that nothing else asks the ad server for it meanwhile; false
    /// when it has a decision (not being made again, ``refreshDue(now:)``) or is being decided
    /// already. Call ``finished(_:)`` after.
    func begin(_ key: DecisionKey) -> Bool {
        state.withLockedValue { state in
            guard state.decisions[key] == nil || state.refreshing.contains(key) else { return false }
            return state.deciding.insert(key).inserted
        }
    }

    /// Ends what ``begin(_:)`` started (whether a decision was stored or not).
    func finished(_ key: DecisionKey) {
        _ = state.withLockedValue { $0.deciding.remove(key) }
    }

    /// `key`'s decision (decoded, ``prepared(_:)``), once it is no longer being decided, waiting at
    /// most `limit` (checked every 10 ms: a viewer who asks while its decision is on the way takes it
    /// rather than asking the ad server a second time), on `clock`.
    func prepared(
        _ key: DecisionKey, waitingUpTo limit: MediaTime, clock: any ServerClock = SystemServerClock()
    ) async -> PreparedDecision? {
        let until = clock.now + limit
        while state.withLockedValue({ $0.deciding.contains(key) }), clock.now < until {
            do { try await clock.sleep(for: min(MediaTime(nanoseconds: 10_000_000), until - clock.now)) } catch {
                break
            }
        }
        return prepared(key)
    }

    /// Drops the decisions of `target`'s break `breakID` (it ended, was deleted or withdrawn).
    func drop(target: Target, breakID: String) {
        state.withLockedValue { state in Self.drop(BreakKey(target: target, breakID: breakID), in: &state) }
    }

    /// Drops the decisions of breaks ended at `now`; returns how many breaks.
    @discardableResult
    func expire(now: DateTime) -> Int {
        state.withLockedValue { state in
            let ended = state.breaks.filter { $0.value.expires <= now }.map(\.key)
            for key in ended { Self.drop(key, in: &state) }
            return ended.count
        }
    }

    /// How many decisions are kept, and their bytes.
    var totals: (count: Int, bytes: Int) {
        state.withLockedValue { ($0.decisions.count, $0.bytes) }
    }

    /// How many distinct decisions are kept.
    var distinct: Int {
        state.withLockedValue { $0.blobs.count }
    }

    private static func drop(_ key: BreakKey, in state: inout State) {
        guard let entry = state.breaks.removeValue(forKey: key) else { return }
        for session in entry.sessions {
            remove(DecisionKey(target: key.target, breakID: key.breakID, session: session), in: &state)
        }
    }
}
