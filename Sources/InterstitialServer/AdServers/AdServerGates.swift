import HLSPlaylist
import NIOConcurrencyHelpers

/// Applies an ``AdServerGate`` to each ad server (`scheme://host:port`): a request waits for the
/// gate's start until its viewer's deadline, is shed or gets the breaker's refusal, and reports how
/// it ended. Lock-protected; the gates' time is the server's clock (``ServerClock/now``), and a
/// gate's timer sleeps on it.
///
/// At most ``maximumGates`` ad servers are gated at once; when full, an idle gate (nothing in
/// flight or waiting, breaker closed) makes room, else the request goes ungated.
final class AdServerGates: Sendable {
    /// What a request may do.
    enum Admission: Sendable {
        /// Make it, then call ``finished(_:outcome:)`` with the ticket (nil: not gated).
        case start(Ticket?)
        /// Do not make it.
        case shed(AdServerGate.ShedReason)
        /// Do not make it: the ad server's breaker is open.
        case breakerOpen
    }

    /// A started request.
    struct Ticket: Sendable {
        /// Its ad server.
        var key: String
        /// Its ID in that server's gate.
        var id: Int
    }

    /// The most ad servers gated at once.
    static let maximumGates = 1024

    private struct State {
        var gates: [String: AdServerGate] = [:]
        var waiters: [Int: CheckedContinuation<Admission, Never>] = [:]
        /// Answers given before their waiter was stored.
        var early: [Int: Admission] = [:]
        /// The time each gate's timer is set for.
        var timers: [String: MediaTime] = [:]
        var nextID = 0
    }

    private let state = NIOLockedValueBox(State())
    private let metrics: ServerMetrics?
    /// The server's clock: the gates' time, and what their timers sleep on.
    let clock: any ServerClock

    /// Gates on `clock`, counting on `metrics` (in flight, breaker state, rate, shed requests).
    init(clock: any ServerClock, metrics: ServerMetrics? = nil) {
        self.clock = clock
        self.metrics = metrics
    }

    /// The ad server of `url` (`scheme://host:port`), nil for a URL that is not http(s).
    static func key(of url: String) -> String? {
        guard let target = AdServerFetcher.parse(url) else { return nil }
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        return (target.secure ? "https://" : "http://") + host + ":\(target.port)"
    }

    /// The requests a second the gate of `url`'s ad server lets start now: the rate it learned
    /// (when `maxPerSecond` is not set), else its `maxPerSecond`; nil when no request to that ad
    /// server was gated yet (or its gate made room for another). The pacing of decisions made ahead
    /// reads it, so that they do not outrun what the ad server was found to take.
    func perSecond(of url: String) -> Int? {
        guard let key = Self.key(of: url) else { return nil }
        return state.withLockedValue { $0.gates[key]?.perSecond }
    }

    /// The requests a second to pace the decisions for an ad server asked with `settings` at
    /// (its VAST tag's server): ``AdServerSettings/pacingRate(learned:)`` with the rate its gate
    /// learned so far (read only while the rate is learned; nil `gates`: none learned).
    static func pacingRate(_ settings: AdServerSettings, gates: AdServerGates?) -> Int {
        guard settings.learnsRate, let gates, let url = settings.vast?.template else {
            return settings.pacingRate(learned: nil)
        }
        return settings.pacingRate(learned: gates.perSecond(of: url))
    }

    /// The base latency the gate of `url`'s ad server learned (``AdServerRateLearner/baseLatency``:
    /// the least mean of an interval within the last 10 s, of the latencies on the wire); nil when
    /// its rate is not learned, before its first interval with an answer closed, or when no request
    /// to it was gated.
    func baseLatency(of url: String) -> MediaTime? {
        guard let key = Self.key(of: url) else { return nil }
        return state.withLockedValue { $0.gates[key]?.learner?.baseLatency }
    }

    /// Waits until a request to `url`, under `limits`, may be made, at most until `due` (on
    /// ``clock``).
    func admit(_ url: String, limits: AdServerGate.Limits, deadline due: MediaTime) async -> Admission {
        guard let key = Self.key(of: url) else { return .start(nil) }
        let clock = clock
        let (id, first): (Int, AdServerGate.Admission?) = state.withLockedValue { state in
            if state.gates[key] == nil {
                if state.gates.count >= Self.maximumGates,
                    let idle = state.gates.first(where: { $0.value.isIdle })?.key
                {
                    state.gates[idle] = nil
                }
                guard state.gates.count < Self.maximumGates else { return (0, nil) }
                state.gates[key] = AdServerGate(limits: limits)
            }
            state.nextID += 1
            let id = state.nextID
            state.gates[key]?.limits = limits
            return (id, state.gates[key]?.request(id, deadline: due, now: clock.now))
        }
        guard let first else { return .start(nil) }
        let answer: Admission
        switch first {
        case .start: answer = .start(Ticket(key: key, id: id))
        case .shed(let reason): answer = .shed(reason)
        case .breakerOpen: answer = .breakerOpen
        case .queued:
            schedule(key)
            answer = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let early: Admission? = state.withLockedValue { state in
                        if let early = state.early.removeValue(forKey: id) { return early }
                        state.waiters[id] = continuation
                        return nil
                    }
                    if let early { continuation.resume(returning: early) }
                }
            } onCancel: {
                apply(key) { gate, now in
                    let waiting = gate.queue.contains { $0.id == id }
                    let actions = gate.cancel(id, now: now)
                    return waiting ? actions + [.shed(id, .deadline)] : actions
                }
            }
        }
        report(key, answer)
        return answer
    }

    /// A started request ended with `outcome`, the ad server having taken `latency` (measured by
    /// the caller as near the wire as it can, ``WireTiming``; nil: the time since the gate started
    /// it, on ``clock``).
    func finished(_ ticket: Ticket?, outcome: AdServerGate.Outcome, latency: MediaTime? = nil) {
        guard let ticket else { return }
        apply(ticket.key) { gate, now in gate.finished(ticket.id, outcome: outcome, latency: latency, now: now) }
    }

    /// Ticks `key`'s gate at its next wake (a sleep on ``clock``).
    private func schedule(_ key: String) {
        let clock = clock
        let wake: MediaTime? = state.withLockedValue { state in
            guard let gate = state.gates[key], let wake = gate.nextWake(now: clock.now) else { return nil }
            if let set = state.timers[key], set <= wake { return nil }
            state.timers[key] = wake
            return wake
        }
        guard let wake else { return }
        Task {
            // A millisecond past the wake: a gate ticked at its wake exactly may find nothing due yet.
            try? await clock.sleep(for: wake - clock.now + MediaTime(nanoseconds: 1_000_000))
            state.withLockedValue { state in
                if state.timers[key] == wake { state.timers[key] = nil }
            }
            apply(key) { gate, now in gate.tick(now: now) }
        }
    }

    /// Runs `input` on `key`'s gate and answers the waiters its actions name.
    private func apply(
        _ key: String, _ input: (inout AdServerGate, MediaTime) -> [AdServerGate.Action]
    ) {
        typealias Resumed = (waiter: CheckedContinuation<Admission, Never>, admission: Admission)
        let clock = clock
        let (resumed, gauges): ([Resumed], Gauges?) = state.withLockedValue { state in
            guard var gate = state.gates[key] else { return ([], nil) }
            // Read under the lock: the gate sees its inputs' times in order.
            let actions = input(&gate, clock.now)
            state.gates[key] = gate
            var resumed: [Resumed] = []
            for action in actions {
                let (id, admission): (Int, Admission)
                switch action {
                case .start(let started): (id, admission) = (started, .start(Ticket(key: key, id: started)))
                case .shed(let shed, let reason): (id, admission) = (shed, .shed(reason))
                case .breakerOpen(let refused): (id, admission) = (refused, .breakerOpen)
                }
                if let waiter = state.waiters.removeValue(forKey: id) {
                    resumed.append((waiter, admission))
                } else if state.early[id] == nil, state.early.count < 65536 {
                    state.early[id] = admission
                }
            }
            return (resumed, Gauges(gate))
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
        if let gauges { record(key, gauges) }
        schedule(key)
    }

    /// A gate's gauges, read under the lock.
    private struct Gauges {
        var inFlight: Int
        var breaker: Int
        var perSecond: Int

        init(_ gate: AdServerGate) {
            inFlight = gate.inFlight.count
            breaker = gate.breaker.gauge
            perSecond = gate.perSecond
        }
    }

    /// Sets `key`'s gauges on `/metrics`.
    private func record(_ key: String, _ gauges: Gauges) {
        metrics?.adServerGate(key, inFlight: gauges.inFlight, breaker: gauges.breaker, perSecond: gauges.perSecond)
    }

    /// Counts a request's admission on `/metrics`.
    private func report(_ key: String, _ answer: Admission) {
        let gauges = state.withLockedValue { state in state.gates[key].map(Gauges.init) }
        if let gauges { record(key, gauges) }
        switch answer {
        case .start: break
        case .shed(let reason): metrics?.adServerShed(key, reason: reason.rawValue)
        case .breakerOpen: metrics?.adServerShed(key, reason: "breaker")
        }
    }
}
