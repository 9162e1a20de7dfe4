import HLSPlaylist

/// Learns how many requests a second an ad server takes, when the operator did not say
/// (`maxPerSecond` not set): a delay-based controller (Vegas-like) with multiplicative steps, pure,
/// time given with each input.
///
/// A request's latency is the ad server's time on the wire as the driver measured it (from its
/// hand-over to the HTTP client to its response head, ``WireTiming``): the server's own delays
/// (its queues, its event loops late under load, the document's parse) are not the ad server's
/// queue, and backing off for them would starve an ad server that is not overloaded.
///
/// It closes an interval of ``interval`` (1 s) at the first input after it ends and, from the
/// requests finished in it, takes one step:
/// - **Errors back off.** More than 5 % of the requests finished failed (a connection failure, a
///   5xx): the rate is halved (the ceiling below stays the most the ad server
///   delivered before).
/// - **Latency backs off.** The mean latency of the answers (and of the timeouts, each the time it
///   waited, when longer than ``latencyBound``) is over 1.5 × the base latency
///   (the least mean of an interval within ``baseWindow``, 10 s) plus 10 ms, so the ad server's
///   own queue grows: the rate falls to what the ad server delivered in the interval × base ÷
///   latency (what drains that queue), at most to 0.9 × and at least to 0.7 × the rate.
/// - **All well, it probes up.** Requests were held back by the rate (``heldBack(now:)``) and the
///   mean latency is within 1.2 × the base plus 5 ms: the rate doubles until the first back-off
///   (slow start), then rises 1.5 × a second up to 0.9 × the ad server's delivered rate at that
///   back-off (``Phase/avoidance(ceiling:)``), 1.05 × (plus 1) a second up to 1.2 × it, and
///   1.15 × (plus 1) past that (the ad server now takes more than it did).
/// - Otherwise it holds.
///
/// Only the requests started after the last back-off count towards the next one, and while the
/// latency, still over the bound, falls from one interval to the next (the ad server's queue
/// drains) the rate holds, so that one queue is not punished twice (as TCP backs off once a round
/// trip). The rate stays within
/// ``Bounds/minimum`` and ``Bounds/maximum``. Its memory is bounded: one interval's sums and at
/// most ``baseWindow`` ÷ ``interval`` interval means.
struct AdServerRateLearner: Equatable, Sendable {
    /// Where the learned rate starts and the bounds it stays within, per second.
    struct Bounds: Hashable, Sendable {
        /// The rate before anything is learned.
        var initial = 50
        /// The least rate.
        var minimum = 5
        /// The most rate.
        var maximum = 1000
    }

    /// How it probes.
    enum Phase: Equatable, Sendable {
        /// Doubling each interval until the first back-off.
        case slowStart
        /// After a back-off: quickly back to 0.9 × `ceiling` (what the ad server delivered a second
        /// when it backed off), slowly past it.
        case avoidance(ceiling: Double)
    }

    /// The step an interval took (for the tests and the logs).
    enum Step: Hashable, Sendable {
        /// Nothing changed.
        case hold
        /// Probed up.
        case increase
        /// Backed off: the latency grew.
        case latency
        /// Backed off: errors (connection failures, 5xx).
        case errors
    }

    /// The finished requests of the interval being measured.
    private struct Interval: Equatable, Sendable {
        /// When it began (nil before the first input).
        var start: MediaTime?
        /// Answers, and timeouts long enough to have been the ad server's (it decided them all the
        /// same), finished in it (any start).
        var delivered = 0
        /// Requests finished in it that started after the last back-off.
        var counted = 0
        /// Of those, the failures (connection, 5xx).
        var failures = 0
        /// Of those, the latencies of the answers and timeouts summed, and how many.
        var latency = MediaTime.zero
        var samples = 0
        /// Whether a request waited because of the rate.
        var heldBack = false
    }

    /// One interval's mean latency, for the base.
    private struct Mean: Equatable, Sendable {
        var at: MediaTime
        var latency: MediaTime
    }

    /// How long an interval is.
    static let interval = MediaTime(seconds: 1)
    /// How far back the base latency looks: a latency kept longer becomes the new base.
    static let baseWindow = MediaTime(seconds: 10)

    /// The bounds.
    let bounds: Bounds
    /// The learned rate, per second.
    private(set) var rate: Double
    /// How it probes.
    private(set) var phase: Phase = .slowStart
    /// The step the last closed interval took.
    private(set) var lastStep: Step = .hold
    private var current = Interval()
    private var means: [Mean] = []
    private var lastBackOff = MediaTime.min
    /// After a back-off on latency, the last mean latency over the bound: while the means fall
    /// below it the ad server's queue is draining, and the rate holds.
    private var draining: MediaTime?

    /// A learner within `bounds`, at their initial rate.
    init(bounds: Bounds) {
        self.bounds = bounds
        rate = Double(min(max(bounds.initial, bounds.minimum), bounds.maximum))
    }

    /// The requests a second the gate lets start now (at least 1).
    var perSecond: Int { max(1, Int(rate)) }

    /// The base latency: the least interval mean within ``baseWindow``; nil before any.
    var baseLatency: MediaTime? { means.map(\.latency).min() }

    /// The latency over which the ad server is taken to queue: 1.5 × the base + 10 ms; nil before
    /// any base. A request with less time than this left to its deadline is not started (the
    /// gate's ``AdServerGate/Limits/minimumRemaining`` rises to it), and one that timed out sooner
    /// says nothing of the ad server.
    var latencyBound: MediaTime? {
        baseLatency.map { MediaTime(nanoseconds: $0.nanoseconds * 3 / 2 + 10_000_000) }
    }

    /// A request wanted to start at `now` and the rate held it back.
    mutating func heldBack(now: MediaTime) {
        advance(now: now)
        current.heldBack = true
    }

    /// A request started at `started` ended at `now` with `outcome`, the ad server having taken
    /// `measured` (its time on the wire, ``WireTiming``, without this server's own delays before
    /// and after; nil: `now - started`).
    mutating func finished(
        started: MediaTime, latency measured: MediaTime? = nil, outcome: AdServerGate.Outcome, now: MediaTime
    ) {
        advance(now: now)
        if case .success = outcome { current.delivered += 1 }
        guard started >= lastBackOff else { return }
        let latency = max(.zero, measured ?? now - started)
        // A timeout says the ad server took at least its latency, unless that was too short to say
        // anything: started close to its viewer's deadline, or never sent (zero).
        let telling = latency > (latencyBound ?? .zero)
        if case .timeout = outcome, telling { current.delivered += 1 }
        switch outcome {
        case .success:
            current.latency += latency
            current.samples += 1
        case .timeout:
            if !telling { return }
            current.latency += latency
            current.samples += 1
        case .failure: current.failures += 1
        case .refused: break
        }
        current.counted += 1
    }

    /// The time is `now`: the interval closes if it is over.
    mutating func advance(now: MediaTime) {
        guard let start = current.start else {
            current.start = now
            return
        }
        guard now - start >= Self.interval else { return }
        close(current, elapsed: now - start, now: now)
        current = Interval(start: now)
    }

    private mutating func close(_ closed: Interval, elapsed: MediaTime, now: MediaTime) {
        let mean = closed.samples > 0 ? MediaTime(nanoseconds: closed.latency.nanoseconds / Int64(closed.samples)) : nil
        means.removeAll { now - $0.at > Self.baseWindow }
        if let mean { means.append(Mean(at: now, latency: mean)) }
        let delivered = Double(closed.delivered) / max(Self.interval.seconds, elapsed.seconds)
        let step: Step
        if closed.failures > 0, closed.failures * 20 > closed.counted {
            // The ceiling stays what the ad server delivered before it failed, so that it is
            // probed back to quickly once the errors stop.
            var ceiling = delivered
            if case .avoidance(let before) = phase { ceiling = max(ceiling, before) }
            rate /= 2
            phase = .avoidance(ceiling: ceiling)
            lastBackOff = now
            step = .errors
        } else if let mean, let bound = latencyBound, mean > bound, let draining, mean < draining {
            // Still over, but falling since the last back-off: the ad server's queue drains.
            self.draining = mean
            step = .hold
        } else if let mean, let base = baseLatency, let bound = latencyBound, mean > bound {
            let drains = delivered * base.seconds / mean.seconds
            draining = mean
            rate = min(rate * 0.9, max(rate * 0.7, drains))
            phase = .avoidance(ceiling: delivered)
            lastBackOff = now
            step = .latency
        } else if closed.heldBack, let mean, let base = baseLatency,
            mean.seconds <= base.seconds * 1.2 + 0.005
        {
            draining = nil
            switch phase {
            case .slowStart: rate *= 2
            case .avoidance(let ceiling):
                if rate < ceiling * 0.9 {
                    rate = min(ceiling * 0.9, rate * 1.5)
                } else {
                    // Gently near what the ad server took when it backed off, faster past it.
                    rate = rate < ceiling * 1.2 ? rate * 1.05 + 1 : rate * 1.15 + 1
                }
            }
            step = .increase
        } else {
            if let mean, let bound = latencyBound, mean <= bound { draining = nil }
            step = .hold
        }
        rate = min(max(rate, Double(bounds.minimum)), Double(bounds.maximum))
        lastStep = step
    }
}
