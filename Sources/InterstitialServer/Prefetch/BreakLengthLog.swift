import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The signalled breaks' durations of each live channel, for a learned `expectedBreak`
/// (``ExpectedBreakLearner``): fed by the signal conversion with the breaks each playlist signals,
/// read by the standing breaks. One learner per live channel that converts signals (bounded by the
/// configuration), each of at most ``ExpectedBreakLearner/maximumCount`` breaks.
final class BreakLengthLog: Sendable {
    private let learners = NIOLockedValueBox<[Target: ExpectedBreakLearner]>([:])

    /// An empty log.
    init() {}

    /// `breaks` were signalled on `target`: each one not cancelled, with a duration (its actual one
    /// after an early return, else its planned one), counts.
    func observe(_ target: Target, _ breaks: [SignalledBreak]) {
        let seen = breaks.compactMap { item in item.isCancelled ? nil : item.duration.map { (item.id, $0) } }
        guard !seen.isEmpty else { return }
        learners.withLockedValue { learners in
            for (id, duration) in seen {
                learners[target, default: ExpectedBreakLearner()].observe(id: id, duration: duration)
            }
        }
    }

    /// `target`'s expected break: learned from its last `count` breaks, else `configured`.
    func expected(_ target: Target, configured: MediaTime, count: Int) -> MediaTime {
        learners.withLockedValue { $0[target] }?.expected(configured: configured, count: count) ?? configured
    }
}
