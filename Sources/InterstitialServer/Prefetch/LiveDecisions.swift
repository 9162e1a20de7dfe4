import NIOConcurrencyHelpers

/// The live decisions started per ad server since last read: the asset-list path counts them, the
/// ``PrefetchService`` takes them from its pacing so that decisions made ahead leave the ad server
/// room for live ones.
final class LiveDecisions: Sendable {
    private let started = NIOLockedValueBox<[String: Int]>([:])

    /// An empty count.
    init() {}

    /// A live decision asks the ad server of `url`.
    func started(_ url: String) {
        guard let key = AdServerGates.key(of: url) else { return }
        started.withLockedValue { counts in
            if counts[key] != nil || counts.count < AdServerGates.maximumGates { counts[key, default: 0] += 1 }
        }
    }

    /// The counts since the last call, by ad server; reset.
    func take() -> [String: Int] {
        started.withLockedValue { counts in
            defer { counts.removeAll() }
            return counts
        }
    }
}
