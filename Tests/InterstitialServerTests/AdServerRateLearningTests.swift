import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The gate learning an ad server's rate (`maxPerSecond` not set), on manual time over scripted
/// ad servers: one of rate R and latency L, one that degrades, one that errs, one that recovers.
@Suite("Ad-server gate: learned rate")
struct AdServerRateLearningTests {
    /// An ad server that starts at most `rate` decisions a second, one after another (a FIFO queue
    /// for the rest, as the herd's ad server), each taking `latency`; while `failing`, every fourth
    /// answer is a 5xx.
    struct ScriptedAdServer {
        var rate: Double
        var latency: Double
        var failing = false
        private var next = 0.0
        private var count = 0
        /// The decisions it made (answered in time or not).
        var decided: Int { count }

        init(rate: Double, latency: Double) {
            self.rate = rate
            self.latency = latency
        }

        /// Takes a request at `now`: when it answers, and how.
        mutating func take(at now: Double) -> (at: Double, outcome: AdServerGate.Outcome) {
            let start = max(now, next)
            next = start + 1 / rate
            count += 1
            return (start + latency, failing && count % 4 == 0 ? .failure : .success)
        }

        /// How long a request taken at `now` would wait in the ad server's queue.
        func wait(at now: Double) -> Double { max(0, next - now) }
    }

    /// Viewers asking `demand` requests a second through a learning gate, each with a deadline (2 s)
    /// (a request the ad server has not answered by then times out, as the driver's does), stepped
    /// every 5 ms of manual time.
    struct Herd {
        var gate: AdServerGate
        var server: ScriptedAdServer
        var demand: Double
        /// Each viewer's deadline, from its request.
        var deadline = 2.0
        var now = 0.0
        private var nextID = 0
        private var nextArrival = 0.0
        private var pending: [(id: Int, at: Double, outcome: AdServerGate.Outcome)] = []
        private var deadlines: [Int: Double] = [:]
        /// The longest the ad server's queue held a request since the last ``resetFigures()``.
        private(set) var longestWait = 0.0
        /// Successful answers since the last ``resetFigures()``.
        private(set) var answered = 0
        /// Timeouts and failures since the last ``resetFigures()``.
        private(set) var failed = 0
        /// The gate's rate, sampled each second since the last ``resetFigures()``.
        private(set) var rates: [Int] = []
        /// The learner's steps seen.
        private(set) var steps: Set<AdServerRateLearner.Step> = []

        init(server: ScriptedAdServer, demand: Double, bounds: AdServerRateLearner.Bounds = .init()) {
            // The rate alone holds the ad server back: the in-flight cap is out of the way.
            var limits = AdServerGate.Limits()
            limits.maximumConcurrent = 10_000
            limits.maximumQueued = 10_000
            limits.learning = bounds
            self.init(server: server, demand: demand, limits: limits)
        }

        /// A herd through a gate with `limits` (an ad server's settings' ``AdServerSettings/gateLimits``).
        init(server: ScriptedAdServer, demand: Double, limits: AdServerGate.Limits) {
            gate = AdServerGate(limits: limits)
            self.server = server
            self.demand = demand
        }

        static func time(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

        mutating func resetFigures() {
            decidedBefore = server.decided
            longestWait = 0
            answered = 0
            failed = 0
            rates = []
        }

        var meanRate: Double { rates.isEmpty ? 0 : Double(rates.reduce(0, +)) / Double(rates.count) }
        /// The ad server's decisions since the last ``resetFigures()``.
        var decided: Int { server.decided - decidedBefore }
        private var decidedBefore = 0

        /// Runs until `end` seconds.
        mutating func run(until end: Double) {
            let step = 0.005
            while now + step <= end + 1e-9 {
                now += step
                let at = Self.time(now)
                while nextArrival <= now {
                    nextID += 1
                    deadlines[nextID] = nextArrival + deadline
                    if gate.request(nextID, deadline: Self.time(nextArrival + deadline), now: at) == .start {
                        launch(nextID)
                    }
                    nextArrival += 1 / demand
                }
                pending.sort { $0.at < $1.at }
                while let first = pending.first, first.at <= now {
                    pending.removeFirst()
                    if first.outcome == .success { answered += 1 } else { failed += 1 }
                    apply(gate.finished(first.id, outcome: first.outcome, now: at))
                }
                apply(gate.tick(now: at))
                if let learner = gate.learner { steps.insert(learner.lastStep) }
                if Int((now * 1000).rounded()) % 1000 == 0 { rates.append(gate.perSecond) }
            }
        }

        private mutating func apply(_ actions: [AdServerGate.Action]) {
            for case .start(let id) in actions { launch(id) }
        }

        private mutating func launch(_ id: Int) {
            longestWait = max(longestWait, server.wait(at: now))
            let answer = server.take(at: now)
            let due = deadlines.removeValue(forKey: id) ?? now + deadline
            pending.append(answer.at > due ? (id, due, .timeout) : (id, answer.at, answer.outcome))
        }
    }

    @Test(
        "the learned rate converges near the ad server's rate, without a long queue at it",
        arguments: [(100.0, 0.15), (50.0, 0.15), (400.0, 0.05), (150.0, 0.3)])
    func converges(rate: Double, latency: Double) {
        var herd = Herd(server: ScriptedAdServer(rate: rate, latency: latency), demand: rate * 3)
        herd.run(until: 40)
        herd.resetFigures()
        herd.run(until: 70)
        // Near R: within 25 % on average over the last 30 s, and the ad server kept busy.
        #expect(herd.meanRate >= rate * 0.75 && herd.meanRate <= rate * 1.25, "mean rate \(herd.meanRate)")
        #expect(Double(herd.decided) >= rate * 30 * 0.6, "decided \(herd.decided)")
        // No long queue at the ad server: no request waited there 0.75 s (or twice its latency).
        #expect(herd.longestWait < max(0.75, 2 * latency), "longest wait \(herd.longestWait)")
    }

    @Test("a server that degrades (its rate falls to 40 %, its latency grows 4×): the gate backs off")
    func degrades() {
        var herd = Herd(server: ScriptedAdServer(rate: 100, latency: 0.15), demand: 300)
        herd.deadline = 5
        herd.run(until: 30)
        let before = herd.gate.perSecond
        herd.server.rate = 40
        herd.server.latency = 0.6
        herd.run(until: 45)
        herd.resetFigures()
        herd.run(until: 70)
        #expect(before >= 75, "rate \(before) before")
        #expect(herd.meanRate >= 10 && herd.meanRate <= 52, "mean rate \(herd.meanRate)")
        #expect((herd.rates.max() ?? 0) <= 75, "rates \(herd.rates)")
        #expect(herd.steps.contains(.latency))
    }

    @Test("errors back off; once they stop, it probes back up")
    func errorsThenRecovery() {
        var herd = Herd(server: ScriptedAdServer(rate: 10_000, latency: 0.05), demand: 200)
        herd.run(until: 20)
        #expect(herd.gate.perSecond >= 200)
        herd.server.failing = true
        herd.run(until: 30)
        #expect(herd.gate.perSecond <= 20, "rate \(herd.gate.perSecond) while failing")
        #expect(herd.steps.contains(.errors))
        herd.server.failing = false
        herd.run(until: 50)
        #expect(herd.gate.perSecond >= 150, "rate \(herd.gate.perSecond) 20 s after the errors stopped")
    }

    @Test("recovery: an ad server that takes more again is probed up to it")
    func probesUp() {
        var herd = Herd(server: ScriptedAdServer(rate: 50, latency: 0.15), demand: 400)
        herd.run(until: 40)
        #expect(herd.gate.perSecond <= 70)
        herd.server.rate = 300
        herd.run(until: 55)
        herd.resetFigures()
        herd.run(until: 70)
        #expect(herd.meanRate >= 200, "mean rate \(herd.meanRate) 15 to 30 s after the ad server recovered")
    }

    @Test("the learned rate stays within its bounds")
    func bounded() {
        var bounds = AdServerRateLearner.Bounds()
        bounds.maximum = 300
        var herd = Herd(server: ScriptedAdServer(rate: 10_000, latency: 0.01), demand: 2000, bounds: bounds)
        herd.run(until: 20)
        herd.resetFigures()
        herd.run(until: 30)
        #expect(herd.rates.allSatisfy { $0 <= 300 })
        #expect(herd.rates.last == 300)
        #expect(herd.decided <= 300 * 10 + 10)
    }

    @Test(
        "a learning gate lets a tenth of a second's requests start at one instant (6 at 50 a second), then paces the rest one interval apart"
    )
    func pacingBurst() {
        var limits = AdServerGate.Limits()
        limits.learning = AdServerRateLearner.Bounds()
        var gate = AdServerGate(limits: limits)
        let now = MediaTime(seconds: 10)
        let deadline = now + MediaTime(seconds: 30)
        // Before, only two started at one instant and the third waited for the clock to move: on a
        // clock standing still (the suites that test the fill, not the time), for ever.
        let answers = (1...8).map { gate.request($0, deadline: deadline, now: now) }
        #expect(answers == Array(repeating: .start, count: 6) + [.queued, .queued])
        let interval = MediaTime(nanoseconds: 20_000_000)
        #expect(gate.nextWake(now: now) == now + interval)
        #expect(gate.tick(now: now + interval) == [.start(7)])
        #expect(gate.tick(now: now + MediaTime(nanoseconds: 39_000_000)).isEmpty)
        #expect(gate.tick(now: now + MediaTime(nanoseconds: 40_000_000)) == [.start(8)])
    }

    @Test("with maxPerSecond set the rate is not learned: it is a hard cap")
    func configuredCap() throws {
        let settings = try AdServerSettings.decode(
            .object(["vast": .string("https://ads.example/v"), "maxPerSecond": .integer(50)]))
        #expect(!settings.learnsRate && settings.maximumPerSecond == 50)
        #expect(settings.gateLimits.learning == nil)
        var gate = AdServerGate(limits: settings.gateLimits)
        #expect(gate.learner == nil)
        let now = MediaTime(seconds: 1)
        let started = (1...80).filter { gate.request($0, deadline: now + MediaTime(seconds: 5), now: now) == .start }
        #expect(started.count == 50)
        #expect(gate.perSecond == 50)
    }

    @Test(
        "learning is the default (issue 43, item 9): without maxPerSecond the rate is learned from 50 within 5 and 1,000; rateLearning {} is the same"
    )
    func learnsByDefault() throws {
        let defaults = try AdServerSettings.decode(.object(["vast": .string("https://ads.example/v")]))
        #expect(defaults.learnsRate && defaults.maximumPerSecond == nil)
        #expect(defaults.gateLimits.learning == AdServerRateLearner.Bounds(initial: 50, minimum: 5, maximum: 1000))
        #expect(AdServerGate(limits: defaults.gateLimits).perSecond == 50)
        // Written back without either key, and read back the same.
        guard case .object(let fields) = defaults.jsonValue else {
            Issue.record("not an object: \(defaults.jsonValue)")
            return
        }
        #expect(fields["maxPerSecond"] == nil && fields["rateLearning"] == nil)
        #expect(try AdServerSettings.decode(defaults.jsonValue) == defaults)
        let settings = try AdServerSettings.decode(
            .object(["vast": .string("https://ads.example/v"), "rateLearning": .object([:])]))
        #expect(settings == defaults)
        let bounded = try AdServerSettings.decode(
            .object(["vast": .string("https://ads.example/v"), "rateLearning": .object(["maximum": .integer(80)])]))
        #expect(bounded.rateLearning.maximum == 80 && bounded.learnsRate)
        #expect(try AdServerSettings.decode(bounded.jsonValue) == bounded)
    }

    @Test(
        "issue 43, item 9: at the default settings the gate learns, down from 50 a second for a slow ad server (20 a second, 300 ms) and up for a fast one (400, 50 ms); with maxPerSecond the same herds keep it, a hard cap",
        arguments: [(20.0, 0.3), (400.0, 0.05)])
    func defaultsLearn(rate: Double, latency: Double) throws {
        let url = JSONValue.string("https://ads.example/v?sid=[SESSIONID]")
        let defaults = try AdServerSettings.decode(.object(["vast": url]))
        var learned = Herd(
            server: ScriptedAdServer(rate: rate, latency: latency), demand: rate * 3, limits: defaults.gateLimits)
        learned.run(until: 30)
        learned.resetFigures()
        learned.run(until: 45)
        #expect(learned.gate.learner != nil)
        // Near the ad server's rate, far from the initial 50 a second.
        #expect(
            learned.meanRate >= rate * 0.6 && learned.meanRate <= rate * 1.5,
            "mean rate \(learned.meanRate) for an ad server of \(rate) a second")
        #expect(learned.steps.contains(.latency) || learned.steps.contains(.increase), "\(learned.steps)")
        let fixed = try AdServerSettings.decode(.object(["vast": url, "maxPerSecond": .integer(50)]))
        var capped = Herd(
            server: ScriptedAdServer(rate: rate, latency: latency), demand: rate * 3, limits: fixed.gateLimits)
        capped.run(until: 30)
        capped.resetFigures()
        capped.run(until: 45)
        #expect(capped.gate.learner == nil)
        #expect(capped.rates.allSatisfy { $0 == 50 }, "\(capped.rates)")
        #expect(capped.decided <= 50 * 15 + 1)
    }

    @Test(
        "the rate to pace at: maxPerSecond when set; else the gate's learned rate (its initial one before any request), following it down"
    )
    func pacingRate() async throws {
        let clock = ManualServerClock(wall: DateTime(nanosecondsSinceEpoch: 0))
        let gates = AdServerGates(clock: clock)
        let url = "http://ads.example/v"
        let learned = try AdServerSettings.decode(.object(["vast": .string(url)]))
        var fixed = learned
        fixed.maximumPerSecond = 300
        #expect(AdServerGates.pacingRate(learned, gates: nil) == 50)
        #expect(AdServerGates.pacingRate(learned, gates: gates) == 50)
        #expect(AdServerGates.pacingRate(fixed, gates: gates) == 300)
        // Ten requests a second apart by the learned pacing, all failing: the gate halves its rate
        // once the second is over, and the pacing follows it.
        for _ in 0..<10 {
            let admission = await gates.admit(
                url, limits: learned.gateLimits, deadline: clock.now + MediaTime(seconds: 2))
            guard case .start(let ticket) = admission else {
                Issue.record("not started: \(admission)")
                return
            }
            gates.finished(ticket, outcome: .failure)
            clock.advance(by: MediaTime(nanoseconds: 25_000_000))
        }
        #expect(AdServerGates.pacingRate(learned, gates: gates) == 50)
        clock.advance(by: MediaTime(seconds: 1))
        let admission = await gates.admit(url, limits: learned.gateLimits, deadline: clock.now + MediaTime(seconds: 2))
        if case .start(let ticket) = admission { gates.finished(ticket, outcome: .success) }
        #expect(gates.perSecond(of: url) == 25)
        #expect(AdServerGates.pacingRate(learned, gates: gates) == 25)
        // A fixed rate is never the gate's learned one.
        #expect(AdServerGates.pacingRate(fixed, gates: gates) == 300)
    }

    @Test(
        "rateLearning is read, written back, and refused with a clear error",
        arguments: [
            (#"{"initial": 20, "maximum": 400}"#, nil),
            (#"{"minimum": 10, "maximum": 5}"#, "adServer.rateLearning.maximum"),
            (#"{"initial": 2000}"#, "adServer.rateLearning.initial"),
            (#"{"initial": 0}"#, "adServer.rateLearning.initial"),
            (#"{"ceiling": 10}"#, "adServer.rateLearning.ceiling"),
        ] as [(String, String?)])
    func rateLearningSettings(json: String, errorPath: String?) throws {
        let learning = try JSONValue.parse(Array(json.utf8), code: .json)
        let value = JSONValue.object(["vast": .string("https://ads.example/v"), "rateLearning": learning])
        if let errorPath {
            #expect(throws: APIError.self) { try AdServerSettings.decode(value, path: "adServer") }
            do throws(APIError) {
                _ = try AdServerSettings.decode(value, path: "adServer")
            } catch {
                #expect(error.path == errorPath)
            }
        } else {
            let settings = try AdServerSettings.decode(value, path: "adServer")
            #expect(settings.rateLearning.initial == 20)
            #expect(settings.rateLearning.maximum == 400)
            #expect(try AdServerSettings.decode(settings.jsonValue) == settings)
        }
    }

    @Test("maxPerSecond and rateLearning together are refused")
    func bothRefused() {
        let value = JSONValue.object([
            "vast": .string("https://ads.example/v"), "maxPerSecond": .integer(50), "rateLearning": .object([:]),
        ])
        do throws(APIError) {
            _ = try AdServerSettings.decode(value, path: "adServer")
            Issue.record("accepted")
        } catch {
            #expect(error.path == "adServer.rateLearning")
        }
    }
}
