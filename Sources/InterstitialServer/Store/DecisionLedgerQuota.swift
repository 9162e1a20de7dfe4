import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The rows one replica may write to a shared decision ledger for each break of a target
/// (``PostgresDecisionLedger``): claims and decisions together, at most ``perBreak`` per break,
/// counted in memory so that the cap costs the database nothing.
///
/// Without it, every asset-list request with a new session ID for a break would add a row (one
/// claim, then its decision) for as long as the break lasts. The count of a break is forgotten
/// when its last row is due to go (``prune(now:)``); at most ``maximumBreaks`` breaks are counted
/// at once, and a break beyond them writes nothing until one is forgotten.
final class DecisionLedgerQuota: Sendable {
    /// The rows one replica writes for one break by default: a claim and a decision for each of
    /// the most sessions decided ahead of a break (``ServerLimits/prefetchDecisions``).
    static let defaultPerBreak = 2 * 200_000
    /// The most breaks counted at once.
    static let maximumBreaks = 4096

    /// The most rows written per break.
    let perBreak: Int
    private let counts = NIOLockedValueBox<[PrefetchCache.BreakKey: (count: Int, until: DateTime)]>([:])

    /// A quota of `perBreak` rows per break.
    init(perBreak: Int = defaultPerBreak) {
        self.perBreak = perBreak
    }

    /// `keys`, less those of breaks whose quota is spent; the others are counted against their
    /// break's, whose rows last until `until` at least.
    func take(_ keys: [DecisionKey], until: DateTime) -> [DecisionKey] {
        counts.withLockedValue { counts in
            keys.filter { key in
                let breakKey = PrefetchCache.BreakKey(target: key.target, breakID: key.breakID)
                guard counts[breakKey] != nil || counts.count < Self.maximumBreaks else { return false }
                var entry = counts[breakKey] ?? (0, until)
                guard entry.count < perBreak else { return false }
                entry.count += 1
                entry.until = max(entry.until, until)
                counts[breakKey] = entry
                return true
            }
        }
    }

    /// The rows counted for `target`'s break `breakID`.
    func count(target: Target, breakID: String) -> Int {
        counts.withLockedValue { $0[PrefetchCache.BreakKey(target: target, breakID: breakID)]?.count ?? 0 }
    }

    /// Forgets the breaks whose rows are all gone at `now`.
    func prune(now: DateTime) {
        counts.withLockedValue { counts in counts = counts.filter { $0.value.until > now } }
    }
}
