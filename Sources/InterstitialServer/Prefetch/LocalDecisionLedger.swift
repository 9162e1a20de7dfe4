import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// A ``DecisionLedger`` in memory, for one replica (SQLite) and tests: claims and decisions live
/// as long as the process; ``isShared`` is false (no other replica reads it).
///
/// Bounded: at most ``maximumEntries`` claims and decisions together; past that, new claims are
/// not won and new decisions not kept.
final class LocalDecisionLedger: DecisionLedger {
    /// The most claims and decisions kept.
    let maximumEntries: Int

    private struct Claim {
        var owner: String
        var until: DateTime
    }

    private struct State {
        var claims: [DecisionKey: Claim] = [:]
        var decisions: [DecisionKey: (bytes: [UInt8], expires: DateTime, sequence: Int64)] = [:]
        var log: [(sequence: Int64, key: DecisionKey)] = []
        var sequence: Int64 = 0
    }

    private let state = NIOLockedValueBox(State())

    /// A ledger of at most `maximumEntries` claims and decisions; `isShared` is what it says of
    /// itself (true only to stand for a shared one in tests).
    init(maximumEntries: Int = 400_000, isShared: Bool = false) {
        self.maximumEntries = maximumEntries
        self.isShared = isShared
    }

    /// Whether it stands for a ledger other replicas read.
    let isShared: Bool

    /// Claims `keys` for `owner` until `until`; returns the keys won.
    func claim(_ keys: [DecisionKey], owner: String, until: DateTime, now: DateTime) async throws -> Set<DecisionKey> {
        state.withLockedValue { state in
            var won: Set<DecisionKey> = []
            for key in keys where state.decisions[key] == nil {
                if let claim = state.claims[key], claim.owner != owner, claim.until > now { continue }
                guard state.claims[key] != nil || state.claims.count + state.decisions.count < maximumEntries else {
                    continue
                }
                state.claims[key] = Claim(owner: owner, until: until)
                won.insert(key)
            }
            return won
        }
    }

    /// Stores decisions until `expires`; a key that has one keeps it.
    func publish(_ decisions: [DecisionKey: [UInt8]], expires: DateTime) async throws {
        state.withLockedValue { state in
            for (key, bytes) in decisions where state.decisions[key] == nil {
                guard state.claims.count + state.decisions.count < maximumEntries + (state.claims[key] == nil ? 0 : 1)
                else { continue }
                state.claims[key] = nil
                state.sequence += 1
                state.decisions[key] = (bytes, expires, state.sequence)
                state.log.append((state.sequence, key))
            }
        }
    }

    /// The stored decisions among `keys`.
    func decisions(_ keys: [DecisionKey]) async throws -> [DecisionKey: [UInt8]] {
        state.withLockedValue { state in
            var found: [DecisionKey: [UInt8]] = [:]
            for key in keys { found[key] = state.decisions[key]?.bytes }
            return found
        }
    }

    /// The decisions published for `breaks` of `target` after `cursor`, at most `limit`.
    func published(
        target: Target, breaks: [String], after cursor: Int64, limit: Int
    ) async throws -> (decisions: [(DecisionKey, [UInt8])], cursor: Int64) {
        state.withLockedValue { state in
            let wanted = Set(breaks)
            var found: [(DecisionKey, [UInt8])] = []
            var next = cursor
            // The log is in sequence order: start after the cursor.
            var low = 0
            var high = state.log.count
            while low < high {
                let middle = (low + high) / 2
                if state.log[middle].sequence <= cursor { low = middle + 1 } else { high = middle }
            }
            for entry in state.log[low...] {
                guard found.count < limit else { break }
                next = entry.sequence
                guard entry.key.target == target, wanted.contains(entry.key.breakID),
                    let decision = state.decisions[entry.key]
                else { continue }
                found.append((entry.key, decision.bytes))
            }
            return (found, next)
        }
    }

    /// Drops decisions expired at `now` and lapsed claims; returns how many.
    func prune(now: DateTime) async throws -> Int {
        state.withLockedValue { state in
            let before = state.claims.count + state.decisions.count
            state.claims = state.claims.filter { $0.value.until > now }
            state.decisions = state.decisions.filter { $0.value.expires > now }
            let decisions = state.decisions
            state.log.removeAll { decisions[$0.key]?.sequence != $0.sequence }
            return before - state.claims.count - state.decisions.count
        }
    }
}
