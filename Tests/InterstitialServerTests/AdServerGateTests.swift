import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The ad-server gate as a value, on a manual clock: the concurrency cap, the rate, the queue's
/// order and its shedding at the deadline, and the breaker's open, half-open, closed and re-open.
@Suite("Ad-server gate")
struct AdServerGateTests {
    static func seconds(_ value: Double) -> MediaTime { MediaTime(seconds: value) }

    static func limits(
        concurrent: Int = 2, perSecond: Int = 1000, queued: Int = 8, failures: Int = 3
    ) -> AdServerGate.Limits {
        var limits = AdServerGate.Limits()
        limits.maximumConcurrent = concurrent
        limits.maximumPerSecond = perSecond
        limits.maximumQueued = queued
        limits.breakerFailures = failures
        limits.breakerWindow = seconds(10)
        limits.coolDown = seconds(5)
        return limits
    }

    @Test("at most maxConcurrent in flight; the queue starts in FIFO order as requests finish")
    func concurrencyAndOrder() {
        var gate = AdServerGate(limits: Self.limits())
        let now = Self.seconds(100)
        let deadline = Self.seconds(101)
        #expect(gate.request(1, deadline: deadline, now: now) == .start)
        #expect(gate.request(2, deadline: deadline, now: now) == .start)
        #expect(gate.request(3, deadline: deadline, now: now) == .queued)
        #expect(gate.request(4, deadline: deadline, now: now) == .queued)
        #expect(gate.inFlight == [1, 2])
        #expect(gate.finished(2, outcome: .success, now: now) == [.start(3)])
        #expect(gate.finished(1, outcome: .success, now: now) == [.start(4)])
        #expect(gate.queue.isEmpty)
    }

    @Test("a full queue sheds; a request whose deadline passed is shed at once")
    func queueBound() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 1, queued: 1))
        let now = Self.seconds(1)
        #expect(gate.request(1, deadline: Self.seconds(2), now: now) == .start)
        #expect(gate.request(2, deadline: Self.seconds(2), now: now) == .queued)
        #expect(gate.request(3, deadline: Self.seconds(2), now: now) == .shed(.queue))
        #expect(gate.request(4, deadline: now, now: now) == .shed(.deadline))
        #expect(gate.request(5, deadline: now + MediaTime(nanoseconds: 10_000_000), now: now) == .shed(.deadline))
    }

    @Test("waiters are shed at their deadline, not started after it")
    func shedAtDeadline() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 1))
        #expect(gate.request(1, deadline: Self.seconds(5), now: Self.seconds(1)) == .start)
        #expect(gate.request(2, deadline: Self.seconds(2), now: Self.seconds(1)) == .queued)
        #expect(gate.request(3, deadline: Self.seconds(4), now: Self.seconds(1)) == .queued)
        // Woken, and shed, when less than `minimumRemaining` is left: too late to ask.
        #expect(gate.nextWake(now: Self.seconds(1)) == Self.seconds(2) - MediaTime(nanoseconds: 50_000_000))
        #expect(gate.tick(now: Self.seconds(1.5)) == [])
        #expect(gate.tick(now: Self.seconds(2)) == [.shed(2, .deadline)])
        #expect(gate.finished(1, outcome: .success, now: Self.seconds(3)) == [.start(3)])
    }

    @Test("a waiter that gives up leaves the queue")
    func cancel() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 1))
        #expect(gate.request(1, deadline: Self.seconds(5), now: Self.seconds(1)) == .start)
        #expect(gate.request(2, deadline: Self.seconds(5), now: Self.seconds(1)) == .queued)
        #expect(gate.cancel(2, now: Self.seconds(1)) == [])
        #expect(gate.finished(1, outcome: .success, now: Self.seconds(2)) == [])
        #expect(gate.isIdle)
    }

    @Test("at most maxPerSecond start in any second; the rest wait for the second after the oldest start")
    func rate() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 100, perSecond: 4))
        let now = Self.seconds(10)
        for id in 1...4 { #expect(gate.request(id, deadline: Self.seconds(20), now: now) == .start) }
        #expect(gate.request(5, deadline: Self.seconds(20), now: now) == .queued)
        #expect(gate.request(6, deadline: Self.seconds(20), now: now) == .queued)
        #expect(gate.nextWake(now: now) == Self.seconds(11))
        #expect(gate.tick(now: Self.seconds(10.5)) == [])
        #expect(gate.tick(now: Self.seconds(11)) == [.start(5), .start(6)])
        // Idle for long: one second's worth at once, no more.
        for id in 7...10 { #expect(gate.request(id, deadline: Self.seconds(200), now: Self.seconds(100)) == .start) }
        #expect(gate.request(11, deadline: Self.seconds(200), now: Self.seconds(100)) == .queued)
    }

    @Test(
        "issue 42: maxPerSecond holds over any second: a steady herd gets 200 starts in every second, not 384",
        arguments: [0.0, 0.25, 0.5, 0.999])
    func rateOverAnySecond(phase: Double) {
        var gate = AdServerGate(limits: Self.limits(concurrent: 10_000, perSecond: 200, queued: 100_000))
        var starts: [MediaTime] = []
        var id = 0
        // A request every millisecond for 3 s, each finishing at once.
        for step in 0..<3000 {
            let now = Self.seconds(10 + phase + Double(step) / 1000)
            id += 1
            var started: [Int] = []
            if gate.request(id, deadline: now + Self.seconds(60), now: now) == .start { started.append(id) }
            for action in gate.tick(now: now) { if case .start(let waiter) = action { started.append(waiter) } }
            for request in started {
                starts.append(now)
                _ = gate.finished(request, outcome: .success, now: now)
            }
        }
        #expect(starts.count > 500, "\(starts.count) started")
        // Any window of one second holds at most 200 starts.
        var busiest = 0
        var first = 0
        for last in starts.indices {
            while starts[last] - starts[first] >= Self.seconds(1) { first += 1 }
            busiest = max(busiest, last - first + 1)
        }
        #expect(busiest == 200, "\(busiest) in one second")
    }

    @Test("issue 42: a status the request is refused with (4xx) is no failure of the ad server's; a 5xx is")
    func refusalsDoNotOpenTheBreaker() {
        #expect(AdServerGate.Outcome(status: 400) == .refused && AdServerGate.Outcome(status: 429) == .refused)
        #expect(AdServerGate.Outcome(status: 500) == .failure && AdServerGate.Outcome(status: 503) == .failure)
        var gate = AdServerGate(limits: Self.limits(concurrent: 10, failures: 3))
        Self.fail(&gate, from: 1, count: 40, now: Self.seconds(1), outcome: .refused)
        #expect(gate.breaker.gauge == 0, "40 refused requests")
        Self.fail(&gate, from: 41, count: 41, now: Self.seconds(2), outcome: .failure)
        #expect(gate.breaker.gauge == 2)
    }

    /// Fails `count` requests starting at `id` at `now`.
    static func fail(
        _ gate: inout AdServerGate, from id: Int, count: Int, now: MediaTime, outcome: AdServerGate.Outcome
    ) {
        for next in id..<(id + count) {
            #expect(gate.request(next, deadline: now + seconds(1), now: now) == .start)
            _ = gate.finished(next, outcome: outcome, now: now)
        }
    }

    @Test("failures and timeouts open the breaker; it half-opens after the cool-down with one probe")
    func breakerOpensAndCloses() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 10, failures: 3))
        Self.fail(&gate, from: 1, count: 2, now: Self.seconds(1), outcome: .failure)
        #expect(gate.breaker.gauge == 0)
        Self.fail(&gate, from: 3, count: 1, now: Self.seconds(2), outcome: .timeout)
        #expect(gate.breaker == .open(until: Self.seconds(7)))
        #expect(gate.breaker.gauge == 2)
        #expect(gate.request(10, deadline: Self.seconds(8), now: Self.seconds(3)) == .breakerOpen)
        #expect(gate.nextWake(now: Self.seconds(3)) == Self.seconds(7))
        // Half-open at once at the end of the cool-down: one probe, the others refused.
        #expect(gate.request(11, deadline: Self.seconds(8), now: Self.seconds(7)) == .start)
        #expect(gate.breaker == .halfOpen(probe: 11))
        #expect(gate.request(12, deadline: Self.seconds(8), now: Self.seconds(7)) == .breakerOpen)
        _ = gate.finished(11, outcome: .success, now: Self.seconds(7.1))
        #expect(gate.breaker == .closed([]))
        #expect(gate.request(13, deadline: Self.seconds(9), now: Self.seconds(7.2)) == .start)
    }

    @Test("a failed probe opens the breaker again; tick half-opens it")
    func breakerReopens() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 10, failures: 2))
        Self.fail(&gate, from: 1, count: 2, now: Self.seconds(1), outcome: .failure)
        #expect(gate.breaker == .open(until: Self.seconds(6)))
        _ = gate.tick(now: Self.seconds(6))
        #expect(gate.breaker == .halfOpen(probe: nil))
        #expect(gate.request(3, deadline: Self.seconds(7), now: Self.seconds(6)) == .start)
        _ = gate.finished(3, outcome: .timeout, now: Self.seconds(6.5))
        #expect(gate.breaker == .open(until: Self.seconds(11.5)))
    }

    @Test("the breaker needs failures over half of the window's requests, within the window")
    func breakerRatioAndWindow() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 10, failures: 3))
        Self.fail(&gate, from: 1, count: 4, now: Self.seconds(1), outcome: .success)
        Self.fail(&gate, from: 5, count: 3, now: Self.seconds(1), outcome: .failure)
        #expect(gate.breaker.gauge == 0)  // 3 of 7
        // Failures older than the window are forgotten.
        var later = AdServerGate(limits: Self.limits(concurrent: 10, failures: 3))
        Self.fail(&later, from: 1, count: 2, now: Self.seconds(1), outcome: .failure)
        Self.fail(&later, from: 3, count: 1, now: Self.seconds(20), outcome: .failure)
        #expect(later.breaker.gauge == 0)
    }

    @Test("waiters get the fallback when the breaker opens")
    func waitersOnOpen() {
        var gate = AdServerGate(limits: Self.limits(concurrent: 1, failures: 1))
        #expect(gate.request(1, deadline: Self.seconds(5), now: Self.seconds(1)) == .start)
        #expect(gate.request(2, deadline: Self.seconds(5), now: Self.seconds(1)) == .queued)
        #expect(gate.finished(1, outcome: .failure, now: Self.seconds(2)) == [.breakerOpen(2)])
        #expect(gate.queue.isEmpty)
    }
}
