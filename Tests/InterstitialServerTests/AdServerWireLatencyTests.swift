import AsyncHTTPClient
import Dispatch
import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import InterstitialServer

/// Issue 43, item 9: the latency the rate learner reads is the ad server's, measured on the wire
/// (``WireTiming``), not the server's own delays before the request is sent or after its head
/// comes back, which under load made the learned rate back off from an ad server that was not
/// overloaded (docs/scale.md: learned ÷ fixed, filled 0.77). All on a manual clock: the ad server's
/// latency is the time the scripted server moves it by while it answers.
@Suite("Ad-server gate: the latency learned is the ad server's")
struct AdServerWireLatencyTests {
    static let answer = #"<VAST version="4.2"></VAST>"#

    @Test(
        "the learner takes the latency the driver measured, not the time since the gate started the request",
        arguments: [(MediaTime?.some(MediaTime(nanoseconds: 150_000_000)), 0.15), (nil, 2.0)] as [(MediaTime?, Double)]
    )
    func learnerTakesMeasuredLatency(measured: MediaTime?, base: Double) {
        var limits = AdServerGate.Limits()
        limits.learning = AdServerRateLearner.Bounds()
        var gate = AdServerGate(limits: limits)
        let start = MediaTime(seconds: 10)
        #expect(gate.request(1, deadline: start + MediaTime(seconds: 30), now: start) == .start)
        _ = gate.finished(1, outcome: .success, latency: measured, now: start + MediaTime(seconds: 2))
        _ = gate.tick(now: start + MediaTime(seconds: 4))
        #expect(gate.learner?.baseLatency == MediaTime(seconds: base))
    }

    @Test(
        "WireTiming: each hop from its hand-over to the HTTP client to its head; the time after (body, parse) and before (never sent) is not counted"
    )
    func fetcherTimesTheWire() async throws {
        let clock = ManualServerClock.starting()
        try await ScriptedServer.with { path in
            switch path {
            case "/r":
                clock.advance(0.1)
                return .init(status: .found, headers: [("Location", "/v")])
            default:
                clock.advance(0.15)
                return .init(body: Self.answer)
            }
        } _: { server in
            try await AdServerFetchTests.withFetcher(
                AdServerFetchTests.policy(["127.0.0.1:\(server.port)"]), clock: clock
            ) { fetcher in
                var timing = WireTiming()
                let response = try await fetcher.get(
                    "http://127.0.0.1:\(server.port)/r", deadline: .now() + .seconds(60), timing: &timing)
                #expect(response.status == .ok)
                // This server reads the body and parses it: its own time, not the ad server's.
                clock.advance(2)
                _ = try await response.body.collect(upTo: 1 << 16)
                #expect(timing.latency(now: clock.now) == MediaTime(nanoseconds: 250_000_000))
                #expect(server.requests == ["/r", "/v"])
            }
        }
        #expect(WireTiming().latency(now: clock.now) == .zero)
    }

    @Test(
        "a decision whose request waits 2 s in this server (its host lookup queued behind busy blocking threads) before an ad server answering in 150 ms: the gate learns 150 ms"
    )
    func decisionLearnsTheWire() async throws {
        let clock = ManualServerClock.starting()
        try await ScriptedServer.with { _ in
            clock.advance(0.15)
            return .init(body: Self.answer)
        } _: { server in
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            // One blocking thread for host lookups, held busy until the test lets it go.
            let lookups = BlockingWorkPool(label: "test-lookups", threads: 1, capacity: 8)
            let release = DispatchSemaphore(value: 0)
            let busy = DispatchSemaphore(value: 0)
            let holding = Task {
                await lookups.run {
                    busy.signal()
                    release.wait()
                    return 0
                }
            }
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    busy.wait()
                    continuation.resume()
                }
            }
            let fetcher = AdServerFetcher(
                client: client, policy: AdServerFetchTests.policy(["127.0.0.1:\(server.port)"]), clock: clock,
                pool: lookups)
            let gates = AdServerGates(clock: clock)
            let decisions = VASTDecisionClient(
                fetcher: fetcher, dispatcher: TrackingDispatcher(fetcher: fetcher, logger: Harness.logger),
                logger: Harness.logger, gates: gates)
            let url = "http://127.0.0.1:\(server.port)/vast"
            // The defaults: the rate is learned (no maxPerSecond).
            let settings = try AdServerSettings.decode(.object(["vast": .string(url)]))
            let deciding = Task {
                await decisions.decide(
                    url: url, settings: settings, headers: [], deadline: MediaTime(seconds: 30), cacheBuster: "1")
            }
            // The gate started the request (its gate exists once it did, on the clock standing still);
            // then this server's own delay: 2 s before its host is looked up and it is sent.
            #expect(try await eventually { gates.perSecond(of: url) != nil })
            #expect(server.requests.isEmpty)
            clock.advance(2)
            release.signal()
            let outcome = await deciding.value
            #expect(outcome.requests == 1 && !outcome.unanswered)
            #expect(server.requests == ["/vast"])
            _ = await holding.value
            // The interval closes at the next input a second on.
            clock.advance(1)
            if case .start(let ticket) = await gates.admit(
                url, limits: settings.gateLimits, deadline: clock.now + MediaTime(seconds: 30))
            {
                gates.finished(ticket, outcome: .refused)
            }
            #expect(gates.baseLatency(of: url) == MediaTime(nanoseconds: 150_000_000))
            try await client.shutdown()
        }
    }
}
