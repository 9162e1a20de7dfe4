import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The decisions made ahead of live breaks (``PreparedDecision``, encoded), by ``DecisionKey``,
/// until their break ends.
///
/// Bounded in count (``Limits/count``) and bytes (``Limits/bytes``): identical decisions (most of a
/// break's, from an ad server that gives many viewers the same ads) are kept once and counted once,
/// with a reference count; each key costs its strings and ``keyOverhead``. When full, a decision is
/// not kept (its viewer is decided when asking): a decision kept for a break to come is worth more
/// than a newer one. Only decisions the server made itself or read from its replicas' ledger go in,
/// for sessions seen on playlists (``ViewerSessions``), so requests cannot grow it past the bounds.
final class PrefetchCache: Sendable {
    /// The bounds.
    struct Limits: Hashable, Sendable {
        /// The most decisions kept.
        var count = 200_000
        /// The most bytes kept: distinct decisions once, plus each key's cost.
        var bytes = 64 * 1024 * 1024
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
    }

    private struct State {
        var decisions: [DecisionKey: Int] = [:]
        /// Distinct decisions, by their bytes' position in ``blobs``.
        var blobs: [Int: Blob] = [:]
        var blobIndex: [[UInt8]: Int] = [:]
        var nextBlob = 0
        /// Each break's sessions and when the break ends.
        var breaks: [BreakKey: (expires: DateTime, sessions: [String])] = [:]
        var bytes = 0
        /// The keys being decided now (ahead, or live for a viewer who asked first).
        var deciding: Set<DecisionKey> = []
    }

    let limits: Limits
    private let state = NIOLockedValueBox(State())

    /// An empty cache within `limits`.
    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    private static func cost(_ key: DecisionKey) -> Int {
        keyOverhead + key.breakID.utf8.count + key.session.utf8.count
    }

    /// Keeps `bytes` as `key`'s decision until `expires`; false when the bounds leave no room (or
    /// the key has one already: the first decision stays).
    @discardableResult
    func store(_ key: DecisionKey, _ bytes: [UInt8], expires: DateTime) -> Bool {
        state.withLockedValue { state in
            guard state.decisions[key] == nil, state.decisions.count < limits.count else { return false }
            let existing = state.blobIndex[bytes]
            let added = Self.cost(key) + (existing == nil ? bytes.count : 0)
            guard state.bytes + added <= limits.bytes else { return false }
            let index: Int
            if let existing {
                index = existing
                state.blobs[index]?.references += 1
            } else {
                index = state.nextBlob
                state.nextBlob += 1
                state.blobs[index] = Blob(bytes: bytes, references: 1)
                state.blobIndex[bytes] = index
            }
            state.decisions[key] = index
            state.bytes += added
            let breakKey = BreakKey(target: key.target, breakID: key.breakID)
            var entry = state.breaks.removeValue(forKey: breakKey) ?? (expires, [])
            entry.sessions.append(key.session)
            entry.expires = max(entry.expires, expires)
            state.breaks[breakKey] = entry
            return true
        }
    }

    /// The decision kept for `key`.
    func decision(_ key: DecisionKey) -> [UInt8]? {
        state.withLockedValue { state in state.decisions[key].flatMap { state.blobs[$0]?.bytes } }
    }

    /// Whether `key` has a decision.
    func contains(_ key: DecisionKey) -> Bool {
        state.withLockedValue { $0.decisions[key] != nil }
    }

    /// Marks `key` as being decided, so that nothing else asks the ad server for it meanwhile; false
    /// when it has a decision or is being decided already. Call ``finished(_:)`` after.
    func begin(_ key: DecisionKey) -> Bool {
        state.withLockedValue { state in
            guard state.decisions[key] == nil else { return false }
            return state.deciding.insert(key).inserted
        }
    }

    /// Ends what ``begin(_:)`` started (whether a decision was stored or not).
    func finished(_ key: DecisionKey) {
        _ = state.withLockedValue { $0.deciding.remove(key) }
    }

    /// `key`'s decision, once it is no longer being decided, waiting at most `limit` (checked every
    /// 10 ms: a viewer who asks while its decision is on the way takes it rather than asking the ad
    /// server a second time).
    func decision(_ key: DecisionKey, waitingUpTo limit: Duration) async -> [UInt8]? {
        let until = ContinuousClock.now + limit
        while state.withLockedValue({ $0.deciding.contains(key) }), ContinuousClock.now < until {
            do { try await Task.sleep(for: .milliseconds(10)) } catch { break }
        }
        return decision(key)
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
            let decisionKey = DecisionKey(target: key.target, breakID: key.breakID, session: session)
            guard let index = state.decisions.removeValue(forKey: decisionKey) else { continue }
            state.bytes -= cost(decisionKey)
            guard var blob = state.blobs[index] else { continue }
            blob.references -= 1
            if blob.references == 0 {
                state.blobs[index] = nil
                state.blobIndex[blob.bytes] = nil
                state.bytes -= blob.bytes.count
            } else {
                state.blobs[index] = blob
            }
        }
    }
}
