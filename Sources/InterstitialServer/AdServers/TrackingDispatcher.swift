import AdDecisioning
import AsyncHTTPClient
import Foundation
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Sends the tracking requests the server makes itself — VAST `<Error>` URLs, and impressions with
/// `tracking: server` — in the background, never on a viewer's request path.
///
/// Requests queue in bounded buffers (the newest kept; a dropped one is counted, and shown on
/// `/metrics` as `hlsi_tracking_dropped_total`) and go out a few at a time, each with a timeout and
/// its response body discarded, so an ad server that is slow or down costs the origin a bounded
/// amount of memory and connections. Beacons the relay passes on (`relayed`) have a queue and
/// connections of their own: however many a client fires, they never push out or hold up the
/// server's own impressions and error reports.
final class TrackingDispatcher: Service, Sendable {
    /// What was sent.
    struct Counts: Hashable, Sendable {
        var sent = 0
        var failed = 0
        var dropped = 0
    }

    /// The server's own requests (impressions, errors) that may wait.
    static let capacity = 1024
    /// The server's own requests in flight at once.
    static let concurrency = 8
    /// Relayed beacons that may wait.
    static let relayedCapacity = 1024
    /// Relayed beacons in flight at once.
    static let relayedConcurrency = 4

    private typealias Queue = (
        stream: AsyncStream<(url: String, kind: String)>,
        continuation: AsyncStream<(url: String, kind: String)>.Continuation
    )
    /// Each request's timeout.
    static let timeout = MediaTime(seconds: 5)

    private let logger: Logger
    /// The server's own requests.
    private let own: Queue
    /// The beacons the relay passes on.
    private let relayed: Queue
    private let counts = NIOLockedValueBox(Counts())
    private let metrics: ServerMetrics
    /// The same requests through the ad-server fetch policy, redirects and retry.
    private let fetcher: AdServerFetcher
    /// The server's clock, the fetcher's: the requests' `[TIMESTAMP]` and timeouts.
    private var clock: any ServerClock { fetcher.clock }

    /// A dispatcher whose queues hold `capacity` of the server's own requests and
    /// `relayedCapacity` relayed beacons.
    init(
        fetcher: AdServerFetcher, logger: Logger, metrics: ServerMetrics = ServerMetrics(),
        capacity: Int = TrackingDispatcher.capacity, relayedCapacity: Int = TrackingDispatcher.relayedCapacity
    ) {
        self.fetcher = fetcher
        self.logger = logger
        self.metrics = metrics
        own = AsyncStream.makeStream(
            of: (url: String, kind: String).self, bufferingPolicy: .bufferingNewest(max(1, capacity)))
        relayed = AsyncStream.makeStream(
            of: (url: String, kind: String).self, bufferingPolicy: .bufferingNewest(max(1, relayedCapacity)))
    }

    /// What was sent, failed and dropped so far.
    var snapshot: Counts { counts.withLockedValue { $0 } }

    /// Queues GET requests to `urls` (http and https only; others are dropped), counted as `kind`
    /// (`error`, `impression` or `relayed`). `[CACHEBUSTING]` and `[TIMESTAMP]` are filled here, as
    /// the player that would otherwise request them does (VAST 4.3 §6.1); other macros stay as the
    /// caller left them. `relayed` ones go to their own queue.
    func send(_ urls: [String], kind: String) {
        var generator = SystemRandomNumberGenerator()
        let values = VASTMacroValues(cacheBusting: VASTMacroValues.cacheBuster(&generator), timestamp: clock.wall)
        for template in urls {
            let url = VASTMacros.fill(template, with: values)
            let lowered = url.prefix(8).lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                dropped(kind: kind)
                continue
            }
            let queue = kind == "relayed" ? relayed : own
            // The oldest waiting request makes room for the newest.
            if case .dropped(let old) = queue.continuation.yield((url, kind)) { dropped(kind: old.kind) }
        }
    }

    private func dropped(kind: String) {
        counts.withLockedValue { $0.dropped += 1 }
        metrics.trackingDropped(kind: kind)
    }

    /// Sends what is queued until the service is shut down.
    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.drain(self.own.stream, concurrency: Self.concurrency) }
                group.addTask { await self.drain(self.relayed.stream, concurrency: Self.relayedConcurrency) }
            }
        } onGracefulShutdown: {
            self.own.continuation.finish()
            self.relayed.continuation.finish()
        }
    }

    /// Sends what `stream` holds, `concurrency` at a time, until it finishes.
    private func drain(_ stream: AsyncStream<(url: String, kind: String)>, concurrency: Int) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await (url, kind) in stream {
                if running >= concurrency {
                    await group.next()
                    running -= 1
                }
                running += 1
                group.addTask { await self.request(url, kind: kind) }
            }
        }
    }

    private func request(_ url: String, kind: String) async {
        do {
            let response = try await fetcher.get(
                url, headers: [("User-Agent", "hlsi")], deadline: clock.deadline(after: Self.timeout))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let ok = (200..<400).contains(response.status.code)
            counts.withLockedValue { ok ? ($0.sent += 1) : ($0.failed += 1) }
            metrics.trackingSent(kind: kind, ok: ok)
            if !ok { logger.debug("tracking request answered \(response.status.code): \(url)") }
        } catch {
            counts.withLockedValue { $0.failed += 1 }
            metrics.trackingSent(kind: kind, ok: false)
            logger.debug("tracking request failed: \(url): \(error)")
        }
    }
}
