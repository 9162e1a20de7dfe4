import HLSPlaylist

/// What stands between the viewers and one ad server (pure, a state machine as a value): a cap on
/// requests in flight, a cap on requests started in any second (a sliding window, not a bucket
/// that refills while it is spent: no second holds more than ``Limits/maximumPerSecond``), a
/// bounded FIFO of waiting requests each with its viewer's deadline, and a circuit breaker on
/// errors and timeouts.
///
/// Time is given with each input (``MediaTime`` on any monotonic origin); nothing here reads a
/// clock. ``request(_:deadline:now:)`` answers at once whether a request starts, waits, is shed or
/// gets the fallback; ``finished(_:outcome:now:)``, ``cancel(_:now:)`` and ``tick(now:)`` return the
/// waiting requests that start or are shed. ``nextWake`` says when ``tick(now:)`` has work to do.
///
/// The breaker opens when, within ``Limits/breakerWindow``, at least ``Limits/breakerFailures``
/// requests failed (a connection failure or a 5xx: ``Outcome/isFailure``) or timed out and they
/// are more than half of the requests finished; while open every request gets the fallback at
/// once. After ``Limits/coolDown`` it half-opens: the next request is the one probe, the others
/// get the fallback; the probe's success closes it, its failure opens it again.
///
/// With ``Limits/learning`` (the operator did not set `maxPerSecond`), the rate is learned
/// (``AdServerRateLearner``): the gate tells the learner each request's latency and outcome and
/// when the rate held a request back, and lets ``perSecond`` start in any second.
struct AdServerGate: Sendable {
    /// The limits of one ad server.
    struct Limits: Hashable, Sendable {
        /// The most requests in flight.
        var maximumConcurrent = 64
        /// The most requests started within any one second.
        var maximumPerSecond = 200
        /// The most requests waiting; more are shed.
        var maximumQueued = 1024
        /// The failures (errors, timeouts) within the window that open the breaker.
        var breakerFailures = 20
        /// The window over which failures are counted.
        var breakerWindow = MediaTime(seconds: 10)
        /// How long the breaker stays open before it half-opens.
        var coolDown = MediaTime(seconds: 5)
        /// The least time left to a viewer's deadline for its request to start; with less it is shed.
        var minimumRemaining = MediaTime(nanoseconds: 50_000_000)
        /// When set, the rate is learned within these bounds and ``maximumPerSecond`` is not used;
        /// nil: ``maximumPerSecond`` is the rate.
        var learning: AdServerRateLearner.Bounds?
    }

    /// How a request ended, for the breaker.
    enum Outcome: Sendable {
        /// The ad server answered (2xx, or an answer the server refused to read).
        case success
        /// The ad server refused this request (a status other than 2xx and 5xx: a 400 for a header
        /// it finds too large, a 429 for one viewer's address): no answer for its viewer, but no
        /// failure of the ad server's either, since any viewer can make such a request; counting it
        /// would let one client open the breaker for everyone.
        case refused
        /// An error of the ad server's: the connection failed, or a 5xx status.
        case failure
        /// The deadline passed first.
        case timeout

        /// How a request answered with a status other than 2xx ended: a 5xx is the ad server's
        /// failure, any other status the request's refusal.
        init(status: Int) {
            self = (500..<600).contains(status) ? .failure : .refused
        }

        /// Whether it counts against the ad server in the breaker: connection failures, 5xx and
        /// timeouts only.
        var isFailure: Bool {
            switch self {
            case .failure, .timeout: true
            case .success, .refused: false
            }
        }
    }

    /// Why a request was not made.
    enum ShedReason: String, Sendable, CaseIterable {
        /// Its viewer's deadline passed while it waited (or before it asked).
        case deadline
        /// The queue was full.
        case queue
    }

    /// The answer to a request.
    enum Admission: Equatable, Sendable {
        /// Make the request now.
        case start
        /// Wait: an action of a later input starts or sheds it.
        case queued
        /// Do not make it.
        case shed(ShedReason)
        /// Do not make it: the breaker is open.
        case breakerOpen
    }

    /// What a waiting request is told by a later input.
    enum Action: Equatable, Sendable {
        /// Make request `id` now.
        case start(Int)
        /// Do not make request `id`.
        case shed(Int, ShedReason)
        /// Do not make request `id`: the breaker opened while it waited.
        case breakerOpen(Int)
    }

    /// The breaker, with its data.
    enum Breaker: Equatable, Sendable {
        /// Requests go through; the finished ones of the window, by second.
        case closed([Second])
        /// Every request gets the fallback until then.
        case open(until: MediaTime)
        /// One probe may go; `probe` is its ID once it started.
        case halfOpen(probe: Int?)

        /// The metric value: 0 closed, 1 half-open, 2 open.
        var gauge: Int {
            switch self {
            case .closed: 0
            case .halfOpen: 1
            case .open: 2
            }
        }
    }

    /// The requests finished within one second of the breaker's window.
    struct Second: Equatable, Sendable {
        /// The second (whole seconds of the clock).
        var index: Int64
        /// The requests finished in it.
        var total = 0
        /// Those that failed or timed out.
        var failures = 0
    }

    /// A waiting request.
    struct Waiter: Equatable, Sendable {
        var id: Int
        var deadline: MediaTime
    }

    /// The limits (may change between inputs; a change of the learning bounds starts learning anew).
    var limits: Limits {
        didSet {
            if limits.learning != oldValue.learning { learner = limits.learning.map(AdServerRateLearner.init) }
        }
    }
    /// What the rate has learned, when it learns.
    private(set) var learner: AdServerRateLearner?
    /// The requests in flight.
    private(set) var inFlight: Set<Int> = []
    /// The waiting requests, oldest first.
    private(set) var queue: [Waiter] = []
    /// The breaker.
    private(set) var breaker: Breaker = .closed([])
    /// When the requests of the last second started, oldest first from ``startsHead``: at most
    /// ``Limits/maximumPerSecond`` of them.
    private var starts: [MediaTime] = []
    private var startsHead = 0
    /// When each request in flight started (its latency, for the learner).
    private var startedAt: [Int: MediaTime] = [:]
    /// While the rate is learned: when the next request is due, at the learned rate.
    private var paced: MediaTime?

    /// A gate with `limits`, nothing started yet.
    init(limits: Limits) {
        self.limits = limits
        learner = limits.learning.map(AdServerRateLearner.init)
    }

    /// The least time left to a viewer's deadline for its request to start: ``Limits/minimumRemaining``,
    /// or while the rate is learned at least the latency over which the ad server is taken to queue
    /// (``AdServerRateLearner/latencyBound``): a request started with less would time out, and
    /// spend the ad server's capacity for no viewer.
    var minimumRemaining: MediaTime {
        max(limits.minimumRemaining, learner?.latencyBound ?? .zero)
    }

    /// The requests that may start within any one second now: the learned rate, or
    /// ``Limits/maximumPerSecond``.
    var perSecond: Int { learner?.perSecond ?? max(1, limits.maximumPerSecond) }

    /// Request `id`, whose viewer waits until `deadline`.
    mutating func request(_ id: Int, deadline: MediaTime, now: MediaTime) -> Admission {
        forgetStarts(now)
        halfOpenIfDue(now)
        learner?.advance(now: now)
        guard deadline - now >= minimumRemaining, deadline > now else { return .shed(.deadline) }
        switch breaker {
        case .open: return .breakerOpen
        case .halfOpen(let probe):
            guard probe == nil, canStart(now) else { return .breakerOpen }
            breaker = .halfOpen(probe: id)
            begin(id, now: now)
            return .start
        case .closed:
            if queue.isEmpty, canStart(now) {
                begin(id, now: now)
                return .start
            }
            noteHeldBack(now)
            guard queue.count < limits.maximumQueued else { return .shed(.queue) }
            queue.append(Waiter(id: id, deadline: deadline))
            return .queued
        }
    }

    /// Request `id` ended with `outcome`: the breaker learns it, and waiting requests may start.
    /// While the rate is learned, the learner takes `latency` as the ad server's (the driver
    /// measures it on the wire, without this server's own delays: ``WireTiming``), or the time
    /// since the request started here when it is nil.
    mutating func finished(_ id: Int, outcome: Outcome, latency: MediaTime? = nil, now: MediaTime) -> [Action] {
        guard inFlight.remove(id) != nil else { return tick(now: now) }
        if let started = startedAt.removeValue(forKey: id) {
            learner?.finished(started: started, latency: latency, outcome: outcome, now: now)
        }
        switch breaker {
        case .halfOpen(let probe) where probe == id:
            breaker = outcome.isFailure ? .open(until: now + limits.coolDown) : .closed([])
        case .closed(var seconds):
            let index = now.nanoseconds / 1_000_000_000
            if seconds.last?.index != index { seconds.append(Second(index: index)) }
            seconds[seconds.count - 1].total += 1
            if outcome.isFailure { seconds[seconds.count - 1].failures += 1 }
            seconds = window(seconds, now: now)
            let total = seconds.reduce(0) { $0 + $1.total }
            let failures = seconds.reduce(0) { $0 + $1.failures }
            breaker =
                failures >= limits.breakerFailures && failures * 2 > total
                ? .open(until: now + limits.coolDown) : .closed(seconds)
        default: break
        }
        return tick(now: now)
    }

    /// Waiting request `id` gave up (its viewer's deadline passed): it leaves the queue.
    mutating func cancel(_ id: Int, now: MediaTime) -> [Action] {
        queue.removeAll { $0.id == id }
        return tick(now: now)
    }

    /// The time is `now`: waiters past their deadline (or with less than
    /// ``Limits/minimumRemaining`` left to it) are shed, the breaker half-opens after its
    /// cool-down, and waiting requests start as the limits allow (all get the fallback while the
    /// breaker is open).
    mutating func tick(now: MediaTime) -> [Action] {
        forgetStarts(now)
        halfOpenIfDue(now)
        learner?.advance(now: now)
        var actions: [Action] = []
        let minimumRemaining = minimumRemaining
        queue.removeAll { waiter in
            guard waiter.deadline - now < minimumRemaining || waiter.deadline <= now else { return false }
            actions.append(.shed(waiter.id, .deadline))
            return true
        }
        switch breaker {
        case .open, .halfOpen:
            actions += queue.map { .breakerOpen($0.id) }
            queue.removeAll()
        case .closed:
            while !queue.isEmpty, canStart(now) {
                let waiter = queue.removeFirst()
                begin(waiter.id, now: now)
                actions.append(.start(waiter.id))
            }
            if !queue.isEmpty { noteHeldBack(now) }
        }
        return actions
    }

    /// When ``tick(now:)`` next has something to do: the second after the oldest start of the
    /// last second, when the rate holds a waiting request back; the earliest waiter's deadline; the
    /// end of the cool-down. Nil when nothing waits on time.
    func nextWake(now: MediaTime) -> MediaTime? {
        var wakes: [MediaTime] = []
        if case .open(let until) = breaker { wakes.append(until) }
        if !queue.isEmpty {
            wakes += queue.map { $0.deadline - minimumRemaining }
            if !withinWindow, inFlight.count < limits.maximumConcurrent, startsHead < starts.count {
                wakes.append(starts[startsHead] + MediaTime(seconds: 1))
            }
            if learner != nil, inFlight.count < limits.maximumConcurrent, let paced,
                now < paced - Self.pacingTolerance
            {
                wakes.append(paced - Self.pacingTolerance)
            }
        }
        return wakes.min()
    }

    /// Whether nothing is in flight or waiting and the breaker is closed (the gate may be dropped).
    var isIdle: Bool {
        guard inFlight.isEmpty, queue.isEmpty, case .closed = breaker else { return false }
        return true
    }

    private func canStart(_ now: MediaTime) -> Bool {
        inFlight.count < limits.maximumConcurrent && withinRate(now)
    }

    /// Whether one more request may start now: within the second ending now and, while the rate is
    /// learned, paced.
    private func withinRate(_ now: MediaTime) -> Bool {
        guard withinWindow else { return false }
        guard learner != nil, let paced else { return true }
        return now >= paced - Self.pacingTolerance
    }

    /// Whether one more request may start in the second ending now.
    private var withinWindow: Bool { starts.count - startsHead < perSecond }

    /// How far ahead of its paced time a request may start while the rate is learned (the burst
    /// tolerance of its GCRA): a tenth of a second, so that the requests a tenth of a second holds at
    /// the learned rate start together (6 at the initial 50 a second: a few viewers asking at once
    /// are not held back one interval each, which an ad server does not notice), and the timers'
    /// slack never holds one back; past that they are paced evenly. Without it a learning gate let
    /// only two requests start at one instant, and a third waited for the clock to move.
    static let pacingTolerance = MediaTime(nanoseconds: 100_000_000)

    /// Tells the learner when the rate, not the requests in flight, holds a request back.
    private mutating func noteHeldBack(_ now: MediaTime) {
        if !withinRate(now), inFlight.count < limits.maximumConcurrent { learner?.heldBack(now: now) }
    }

    private mutating func begin(_ id: Int, now: MediaTime) {
        inFlight.insert(id)
        startedAt[id] = now
        starts.append(now)
        if let learner {
            // Paced at the learned rate (a GCRA: each start moves the paced time one interval on), so
            // that a rate learned a second at a time is not sent in bursts an ad server queues.
            paced = max(paced ?? now, now) + MediaTime(nanoseconds: 1_000_000_000 / Int64(learner.perSecond))
        }
    }

    /// Forgets the starts a second or more before `now` (they no longer count against the rate).
    private mutating func forgetStarts(_ now: MediaTime) {
        let since = now - MediaTime(seconds: 1)
        while startsHead < starts.count, starts[startsHead] <= since { startsHead += 1 }
        if startsHead == starts.count {
            starts.removeAll(keepingCapacity: true)
            startsHead = 0
        } else if startsHead >= 256, startsHead * 2 >= starts.count {
            starts.removeFirst(startsHead)
            startsHead = 0
        }
    }

    private mutating func halfOpenIfDue(_ now: MediaTime) {
        if case .open(let until) = breaker, now >= until { breaker = .halfOpen(probe: nil) }
    }

    /// The seconds still inside the window at `now`.
    private func window(_ seconds: [Second], now: MediaTime) -> [Second] {
        let first = (now - limits.breakerWindow).nanoseconds / 1_000_000_000
        return seconds.filter { $0.index > first }
    }
}

extension AdServerSettings {
    /// The limits each ad server these settings ask is held to: ``maximumPerSecond`` when it is
    /// set, else the rate learned within ``rateLearning``'s bounds.
    var gateLimits: AdServerGate.Limits {
        var limits = AdServerGate.Limits()
        limits.maximumConcurrent = maximumConcurrent
        limits.maximumPerSecond = maximumPerSecond ?? rateLearning.maximum
        limits.learning =
            learnsRate
            ? AdServerRateLearner.Bounds(
                initial: rateLearning.initial, minimum: rateLearning.minimum, maximum: rateLearning.maximum) : nil
        limits.maximumQueued = max(1024, 4 * maximumConcurrent)
        limits.breakerFailures = breaker.failures
        limits.breakerWindow = breaker.window
        limits.coolDown = breaker.coolDown
        return limits
    }
}
