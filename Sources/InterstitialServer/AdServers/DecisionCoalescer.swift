import NIOConcurrencyHelpers

/// Shares one VAST decision between identical requests in flight: the first request for a URL
/// decides, the others wait for it and take its outcome (marked ``VASTDecisionClient/Outcome/coalesced``).
///
/// Only URLs that are the same for every viewer are given (``AdTagTemplate/isShared``). At most
/// ``maximumKeys`` URLs are shared at once; past that a request decides on its own.
final class DecisionCoalescer: Sendable {
    /// The most URLs in flight shared at once.
    static let maximumKeys = 4096

    private let waiting = NIOLockedValueBox<[String: [CheckedContinuation<VASTDecisionClient.Outcome?, Never>]]>(
        [:])

    /// Creates an empty coalescer.
    init() {}

    /// How many requests wait for the decision of `key` in flight.
    func followers(of key: String) -> Int {
        waiting.withLockedValue { $0[key]?.count ?? 0 }
    }

    /// The outcome of `decide` for `key`, or that of the identical decision already in flight.
    func share(
        _ key: String, _ decide: @Sendable () async -> VASTDecisionClient.Outcome
    ) async -> VASTDecisionClient.Outcome {
        // nil: this request leads (registered: whether followers may join it).
        let registered = NIOLockedValueBox(false)
        let shared = await withCheckedContinuation { continuation in
            let lead: Bool = waiting.withLockedValue { waiting in
                if waiting[key] != nil {
                    waiting[key]?.append(continuation)
                    return false
                }
                if waiting.count < Self.maximumKeys {
                    waiting[key] = []
                    registered.withLockedValue { $0 = true }
                }
                return true
            }
            if lead { continuation.resume(returning: nil) }
        }
        if var shared {
            shared.coalesced = true
            shared.requests = 0
            shared.errors = []
            return shared
        }
        let outcome = await decide()
        if registered.withLockedValue({ $0 }) {
            let followers = waiting.withLockedValue { $0.removeValue(forKey: key) ?? [] }
            for follower in followers { follower.resume(returning: outcome) }
        }
        return outcome
    }
}
