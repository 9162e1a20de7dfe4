import Foundation

/// The viewers' tallies, shared by all viewer tasks: outcomes per break, asset-list latencies, and
/// counts of polls and preloads.
final class HerdResults: Sendable {
    /// The counters.
    struct Counts: Sendable {
        /// Outcomes per break ID.
        var outcomes: [String: [Outcome: Int]] = [:]
        /// Breaks a viewer joined after its asset-list time (not counted), per break ID.
        var late: [String: Int] = [:]
        /// Breaks whose asset-list time came after the run's end (not counted), per break ID.
        var unreached: [String: Int] = [:]
        /// Milliseconds of each asset-list request (preloads and normal loads).
        var latencies: [Double] = []
        /// Asset-list requests made at a preload hint's point.
        var preloads = 0
        /// Breaks answered from a preloaded asset list.
        var preloadsUsed = 0
        /// Preloads discarded because their hint left the playlist before the break was resolved.
        var preloadsDiscarded = 0
        /// Hints not followed because X-URI is not the URL the target loads.
        var hintsMismatched = 0
        /// Playlist polls, and those that failed.
        var polls = 0
        var pollFailures = 0
    }

    private let counts = Locked(Counts())

    /// Updates the counters.
    func update(_ body: (inout Counts) -> Void) { counts.withLock(body) }

    /// The counters now.
    var snapshot: Counts { counts.withLock { $0 } }

    /// The `fraction` quantile of `values` (nearest rank), 0 when empty.
    static func quantile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
