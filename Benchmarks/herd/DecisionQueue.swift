import Foundation

/// An overloaded ad decision server's capacity: at most `rate` decisions start per second, each takes
/// `latency`, and the rest wait in one FIFO queue (nothing is dropped, nothing is skipped when the
/// caller has gone: the decision is made all the same, as a real ad server's is).
final class DecisionQueue: Sendable {
    /// What `/stats` answers.
    struct Stats: Codable, Sendable {
        /// Requests received.
        var requests = 0
        /// Decisions made (started and answered).
        var decisions = 0
        /// The most decisions started in one wall-clock second.
        var peakPerSecond = 0
        /// Requests waiting for their turn now.
        var queue = 0
        /// The longest the queue was.
        var maxQueue = 0
        /// Decisions per break (the `brk` query parameter of the ad tag).
        var breaks: [String: Int] = [:]
        /// Requests per viewer (the `sid` query parameter of the ad tag; absent: not counted).
        var viewers: [String: Int] = [:]
        /// Requests per viewer and break (`brk` and `sid`).
        var viewerBreaks: [String: Int] = [:]
        /// Decisions per wall-clock second (Unix seconds), for the peak.
        var perSecond: [Int: Int] = [:]
        /// The configured rate, per second.
        var rate = 0.0
        /// The configured latency, in seconds.
        var latency = 0.0
    }

    private struct State {
        var next = 0.0
        var stats = Stats()
    }

    private let state: Locked<State>
    private let interval: Double
    /// The time each decision takes, in seconds.
    let latency: Double

    /// Creates a queue deciding at most `rate` per second, each in `latency` seconds.
    init(rate: Double, latency: Double) {
        interval = 1 / rate
        self.latency = latency
        var initial = State()
        initial.stats.rate = rate
        initial.stats.latency = latency
        state = Locked(initial)
    }

    /// Takes a request for `breakID` by viewer `session` (the ad tag's `sid`, if any): when its
    /// decision starts (wall-clock seconds).
    func enqueue(breakID: String, session: String? = nil) -> Double {
        let now = WallClock.now
        return state.withLock { state in
            let start = max(now, state.next)
            state.next = start + interval
            state.stats.requests += 1
            if let session, !session.isEmpty {
                state.stats.viewers[session, default: 0] += 1
                state.stats.viewerBreaks[breakID + " " + session, default: 0] += 1
            }
            if start > now {
                state.stats.queue += 1
                state.stats.maxQueue = max(state.stats.maxQueue, state.stats.queue)
            }
            return start
        }
    }

    /// Records the decision of a request enqueued at `start`, once started (`waited`: it was queued).
    func started(breakID: String, at start: Double, waited: Bool) {
        state.withLock { state in
            if waited { state.stats.queue -= 1 }
            state.stats.decisions += 1
            state.stats.breaks[breakID, default: 0] += 1
            let second = Int(start.rounded(.down))
            let count = (state.stats.perSecond[second] ?? 0) + 1
            state.stats.perSecond[second] = count
            state.stats.peakPerSecond = max(state.stats.peakPerSecond, count)
        }
    }

    /// The figures so far.
    var stats: Stats { state.withLock { $0.stats } }

    /// Forgets the figures (the queue's schedule stays).
    func reset() {
        state.withLock { state in
            let (rate, latency, queue) = (state.stats.rate, state.stats.latency, state.stats.queue)
            state.stats = Stats()
            (state.stats.rate, state.stats.latency, state.stats.queue) = (rate, latency, queue)
        }
    }
}
