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
/// Requests queue in a bounded buffer (the newest kept; a dropped one is counted) and go out a few
/// at a time, each with a timeout and its response body discarded, so an ad server that is slow or
/// down costs the origin a bounded amount of memory and connections.
final class TrackingDispatcher: Service, Sendable {
    /// What was sent.
    struct Counts: Hashable, Sendable {
        var sent = 0
        var failed = 0
        var dropped = 0
    }

    /// Requests that may wait.
    static let capacity = 1024
    /// Requests in flight at once.
    static let concurrency = 8
    /// Each request's timeout.
    static let timeout: TimeAmount = .seconds(5)

    private let logger: Logger
    private let stream: AsyncStream<(url: String, kind: String)>
    private let continuation: AsyncStream<(url: String, kind: String)>.Continuation
    private let counts = NIOLockedValueBox(Counts())
    private let metrics: ServerMetrics
    /// The same requests through the ad-server fetch policy, redirects and retry.
    private let fetcher: AdServerFetcher

    init(fetcher: AdServerFetcher, logger: Logger, metrics: ServerMetrics = ServerMetrics()) {
        self.fetcher = fetcher
        self.logger = logger
        self.metrics = metrics
        (stream, continuation) = AsyncStream.makeStream(
            of: (url: String, kind: String).self, bufferingPolicy: .bufferingNewest(Self.capacity))
    }

    /// What was sent, failed and dropped so far.
    var snapshot: Counts { counts.withLockedValue { $0 } }

    /// Queues GET requests to `urls` (http and https only; others are dropped), counted as `kind`
    /// (`error`, `impression` or `relayed`). `[CACHEBUSTING]` and `[TIMESTAMP]` are filled here, as
    /// the player that would otherwise request them does (VAST 4.3 §6.1); other macros stay as the
    /// caller left them.
    func send(_ urls: [String], kind: String) {
        var generator = SystemRandomNumberGenerator()
        let values = VASTMacroValues(cacheBusting: VASTMacroValues.cacheBuster(&generator), timestamp: DateTime(Date()))
        for template in urls {
            let url = VASTMacros.fill(template, with: values)
            let lowered = url.prefix(8).lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                counts.withLockedValue { $0.dropped += 1 }
                continue
            }
            if case .dropped = continuation.yield((url, kind)) { counts.withLockedValue { $0.dropped += 1 } }
        }
    }

    /// Sends what is queued until the service is shut down.
    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await (url, kind) in stream {
                    if running >= Self.concurrency {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask { await self.request(url, kind: kind) }
                }
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
    }

    private func request(_ url: String, kind: String) async {
        do {
            let response = try await fetcher.get(
                url, headers: [("User-Agent", "hlsi")], deadline: .now() + Self.timeout)
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
