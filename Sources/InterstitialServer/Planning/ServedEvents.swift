import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The interstitial events of date ranges as served (``StoredState/served``), each read once: a
/// served date range is written again with its first values (§6.2.1), so every asset-list request
/// and every playlist of its break read the same attributes again, and reading them
/// (`InterstitialEvent(attributes:)`, the grammar checked) was 7.5 % of an asset list's answer.
///
/// What is kept is the event those attributes read as (nil: no interstitial, a preload hint's), by
/// the attributes themselves: an answer is always the one reading them gives. At most ``limit``
/// are kept; past that all are dropped and read again as asked.
final class ServedEvents: Sendable {
    /// The most attribute lists kept.
    let limit: Int
    private let events = NIOLockedValueBox<[AttributeList: InterstitialEvent?]>([:])

    /// An empty memo keeping at most `limit` events.
    init(limit: Int = 4096) {
        self.limit = max(1, limit)
    }

    /// The event `attributes` read as (`InterstitialEvent(attributes:)`): kept, or read now.
    func event(_ attributes: AttributeList) -> InterstitialEvent? {
        if let known = events.withLockedValue({ $0[attributes] }) { return known }
        let event = InterstitialEvent(attributes: attributes)
        events.withLockedValue { events in
            if events.count >= limit { events.removeAll(keepingCapacity: true) }
            events[attributes] = .some(event)
        }
        return event
    }

    /// How many attribute lists are kept.
    var count: Int { events.withLockedValue { $0.count } }
}
