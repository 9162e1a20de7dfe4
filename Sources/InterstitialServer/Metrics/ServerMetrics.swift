import HLSPlaylist
import NIOConcurrencyHelpers
import Prometheus

/// The server's metrics in Prometheus form: asset-list answers and fill, VAST decisions (latency,
/// documents fetched, errors by VAST error code, timeouts), tracking requests the server fires,
/// beacons seen and requests answered by the fast lane, served on `GET /metrics` in the Prometheus
/// text exposition format 0.0.4.
///
/// Each instance owns its own `PrometheusCollectorRegistry`; the global `MetricsSystem` is never
/// bootstrapped, so several servers (and tests) in one process keep separate counts. Every label
/// value goes through ``MetricLabels``: targets from the configuration, everything else from a
/// closed set, so request input cannot grow the set of series.
final class ServerMetrics: Sendable {
    /// The `Content-Type` of ``renderText()``.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// The upper bounds of the VAST latency histogram in seconds, dense below the 1 s deadline.
    static let vastBuckets: [Double] = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9, 1, 1.5, 2.5, 5]
    /// The longest VAST decision recorded, in seconds; longer or non-finite ones count as this.
    static let longestDecision = 3600.0

    /// The metrics, all named `hlsi_…`, with their help text.
    enum Name {
        static var assetListRequests: MetricNameDescriptor {
            name("asset_list_requests", "total", "Asset-list requests answered.")
        }
        static var assetListFilled: MetricNameDescriptor {
            name("asset_list_filled", "total", "Asset-list answers with at least one ad.")
        }
        static var assetListAds: MetricNameDescriptor { name("asset_list_ads", "total", "Ads in asset-list answers.") }
        static var vastDuration: MetricNameDescriptor {
            name("vast_request_duration", "seconds", "Time to decide a break's ads through VAST, wrappers included.")
        }
        static var vastRequests: MetricNameDescriptor {
            name("vast_requests", "total", "VAST and VMAP documents fetched.")
        }
        static var vastErrors: MetricNameDescriptor {
            name("vast_errors", "total", "VAST errors by VAST error code (other: outside 100-999).")
        }
        static var vastTimeouts: MetricNameDescriptor {
            name("vast_timeouts", "total", "VAST decisions that hit the deadline.")
        }
        static var trackingRequests: MetricNameDescriptor {
            name("tracking_requests", "total", "Tracking requests fired by the server, by kind and result.")
        }
        static var beaconsSeen: MetricNameDescriptor {
            name("beacons_seen", "total", "Tracking beacons seen, by VAST event type.")
        }
        static var trackingDropped: MetricNameDescriptor {
            name("tracking_dropped", "total", "Tracking requests dropped before they were sent, by kind.")
        }
        static var beaconsDropped: MetricNameDescriptor {
            name("beacons_dropped", "total", "Relayed beacons not passed on, by reason.")
        }
        static var adDecisions: MetricNameDescriptor {
            name(
                "ad_decisions", "total",
                "Ad-server decisions by path: live, coalesced, fallback, empty, prefetch (answered from a decision made ahead); prefetched (decided ahead)."
            )
        }
        static var adServerInFlight: MetricNameDescriptor {
            name("ad_server_in_flight", "", "Requests in flight to each ad server.")
        }
        static var adServerBreaker: MetricNameDescriptor {
            name("ad_server_breaker_state", "", "Each ad server's circuit breaker: 0 closed, 1 half-open, 2 open.")
        }
        static var adServerRate: MetricNameDescriptor {
            name(
                "ad_server_rate", "per_second",
                "The requests a second each ad server's gate lets start: the rate it learned when maxPerSecond is not set, else maxPerSecond."
            )
        }
        static var adServerShed: MetricNameDescriptor {
            name("ad_server_shed", "total", "Requests to each ad server not made, by reason: deadline, queue, breaker.")
        }
        static var viewerSessions: MetricNameDescriptor {
            name(
                "viewer_sessions", "", "Live viewer sessions kept: the audience of preload hints and retrieval windows."
            )
        }
        static var viewerSessionsPlaying: MetricNameDescriptor {
            name(
                "viewer_sessions_playing", "",
                "Live viewer sessions kept that are playing (requests spanning prefetchPlayingSpan): the ones decided ahead."
            )
        }
        static var heapBytes: MetricNameDescriptor {
            name("heap", "bytes", "Bytes the allocator holds in use (glibc mallinfo2), read at each scrape.")
        }
        static var viewerSessionBytes: MetricNameDescriptor {
            name("viewer_session", "bytes", "Bytes of the live viewer sessions kept.")
        }
        static var prefetchEntries: MetricNameDescriptor {
            name("prefetch_decisions", "", "Decisions made ahead of live breaks, kept.")
        }
        static var prefetchBytes: MetricNameDescriptor {
            name(
                "prefetch_decision", "bytes",
                "Bytes of the decisions made ahead kept (identical ones once; a decision also kept decoded twice).")
        }
        static var standingDecisions: MetricNameDescriptor {
            name("standing_decisions", "", "Standing decisions kept for each channel's next break, before any cue.")
        }
        static var expectedBreak: MetricNameDescriptor {
            name("expected_break", "seconds", "The break length each channel's standing decisions are asked for.")
        }
        static var prefetchOther: MetricNameDescriptor {
            name(
                "prefetch_events", "total",
                "Decisions made ahead not kept (unused: not answered or not ready; full: over the bounds), and ledger failures."
            )
        }
        static var scheduleLoads: MetricNameDescriptor {
            name(
                "schedule_loads", "total",
                "Upstream Date Range Schedule documents loaded to flatten (loaded), or that failed and added nothing (failed)."
            )
        }
        static var signalsRefused: MetricNameDescriptor {
            name(
                "signals_refused", "total",
                "SCTE-35 markers not converted as written, each counted once, by the rule hlsi validate gives (profile R29)."
            )
        }
        static var notices: MetricNameDescriptor {
            name(
                "break_notices", "total",
                "Early notices of live breaks: announced, withdrawn, and expired matched (a signalled break took the notice's ID) or unmatched."
            )
        }
        static var stitchFallbacks: MetricNameDescriptor {
            name(
                "stitch_fallbacks", "total",
                "Ads the stitched form left out (the slate, when configured, plays instead), by reason: fetch, playlist, media, format, conditioning, asset-list, segment-cap, subtitles, measuring."
            )
        }
        static var fastAnswers: MetricNameDescriptor {
            name("fast_answers", "total", "Requests answered from memory on the connection's event loop.")
        }

        private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "hlsi", metricName: metric, unitName: unit, helpText: help)
        }
    }

    private let registry = PrometheusCollectorRegistry()
    private let labels = MetricLabels()
    private let fastAnswers: Counter
    /// The asset-list counters of each target and source, made once (asset lists are answered
    /// often; the registry's lookup by labels is not free).
    private struct AssetListCounters {
        var requests: Counter
        var filled: Counter
        var ads: Counter
    }
    private let assetListCounters = NIOLockedValueBox<[String: AssetListCounters]>([:])

    /// Creates empty metrics: a series appears once something is counted for its labels (the
    /// fast answers' one series is there from the start).
    init() {
        fastAnswers = registry.makeCounter(descriptor: Name.fastAnswers)
    }

    /// Counts a request answered by the ``FastLane``.
    func fastAnswered() {
        fastAnswers.increment()
    }

    /// Counts an asset-list answer for `target` whose ads came from `source` (`inventory` or
    /// `vast`): one request, `ads` ads, and one fill when `filled` (fill rate = filled / requests).
    func assetListAnswered(target: String, source: String, ads: Int, filled: Bool) {
        let key = target + "\n" + source
        let counters =
            assetListCounters.withLockedValue { $0[key] }
            ?? {
                let series = [
                    ("target", labels.target(target)),
                    ("source", MetricLabels.member(source, of: MetricLabels.sources)),
                ]
                let made = AssetListCounters(
                    requests: counter(Name.assetListRequests, series), filled: counter(Name.assetListFilled, series),
                    ads: counter(Name.assetListAds, series))
                // Callers name configured targets and a closed set of sources; bounded anyway.
                assetListCounters.withLockedValue { if $0.count < 1024 { $0[key] = made } }
                return made
            }()
        counters.requests.increment()
        if filled { counters.filled.increment() }
        counters.ads.increment(by: Int64(max(0, ads)))
    }

    /// Records one VAST decision for `target`: how long it took, the VAST documents fetched
    /// (wrappers included), each VAST error code met, and whether it hit the deadline.
    func vastDecision(target: String, seconds: Double, requests: Int, errorCodes: [Int], timedOut: Bool) {
        let series = [("target", labels.target(target))]
        let duration = seconds.isNaN ? 0 : min(max(seconds, 0), Self.longestDecision)
        registry.makeValueHistogram(descriptor: Name.vastDuration, labels: series, buckets: Self.vastBuckets)
            .record(duration)
        counter(Name.vastRequests, series).increment(by: Int64(max(0, requests)))
        for code in errorCodes {
            counter(Name.vastErrors, series + [("code", MetricLabels.code(code))]).increment()
        }
        let timeouts = counter(Name.vastTimeouts, series)
        if timedOut { timeouts.increment() }
    }

    /// Counts an ad-server decision of `target` by `path`: for an asset list, `live` (the ad server's
    /// ads), `coalesced` (another viewer's identical request's ads), `prefetch` (a decision made
    /// ahead), `fallback` (the inventory or the slate, the ad server having failed, timed out or
    /// refused) or `empty`; `prefetched` for a decision made ahead of a live break and kept.
    func adDecision(target: String, path: String) {
        counter(
            Name.adDecisions,
            [("target", labels.target(target)), ("path", MetricLabels.member(path, of: MetricLabels.decisionPaths))]
        ).increment()
    }

    /// Sets the gauge of the bytes the allocator holds in use (``HeapUsage``), where it is known:
    /// read when `/metrics` is scraped.
    func recordHeap() {
        guard let heap = HeapUsage.bytesInUse() else { return }
        registry.makeGauge(descriptor: Name.heapBytes, labels: []).set(Int64(heap))
    }

    /// Sets the gauges of the live viewer sessions kept: how many, their bytes, and how many of them
    /// are playing (``ViewerActivity``).
    func viewerSessions(count: Int, bytes: Int, playing: Int) {
        registry.makeGauge(descriptor: Name.viewerSessions, labels: []).set(Int64(count))
        registry.makeGauge(descriptor: Name.viewerSessionsPlaying, labels: []).set(Int64(playing))
        registry.makeGauge(descriptor: Name.viewerSessionBytes, labels: []).set(Int64(bytes))
    }

    /// Sets the gauges of the decisions made ahead kept: how many, and their bytes.
    func prefetchCache(entries: Int, bytes: Int) {
        registry.makeGauge(descriptor: Name.prefetchEntries, labels: []).set(Int64(entries))
        registry.makeGauge(descriptor: Name.prefetchBytes, labels: []).set(Int64(bytes))
    }

    /// Sets channel `target`'s standing decisions kept and the break length they are asked for
    /// (`prefetch.expectedBreak`).
    func standing(target: String, decisions: Int, expectedBreak: MediaTime) {
        let series = [("target", labels.target(target))]
        registry.makeGauge(descriptor: Name.standingDecisions, labels: series).set(Int64(decisions))
        registry.makeGauge(descriptor: Name.expectedBreak, labels: series).set(expectedBreak.seconds)
    }

    /// Counts a decision made ahead not kept (`unused`, `full`) or a ledger failure (`ledger-failure`).
    func prefetch(result: String) {
        counter(Name.prefetchOther, [("result", MetricLabels.member(result, of: MetricLabels.prefetchResults))])
            .increment()
    }

    /// Sets ad server `key`'s gauges: requests in flight, its breaker (0 closed, 1 half-open, 2 open),
    /// and the requests a second its gate lets start (learned, or its `maxPerSecond`).
    func adServerGate(_ key: String, inFlight: Int, breaker: Int, perSecond: Int) {
        let series = [("ad_server", labels.adServer(key))]
        registry.makeGauge(descriptor: Name.adServerInFlight, labels: series).set(Int64(inFlight))
        registry.makeGauge(descriptor: Name.adServerBreaker, labels: series).set(Int64(breaker))
        registry.makeGauge(descriptor: Name.adServerRate, labels: series).set(Int64(perSecond))
    }

    /// Counts a request to ad server `key` not made, for `reason`: `deadline`, `queue` or `breaker`.
    func adServerShed(_ key: String, reason: String) {
        counter(
            Name.adServerShed,
            [
                ("ad_server", labels.adServer(key)),
                ("reason", MetricLabels.member(reason, of: MetricLabels.shedReasons)),
            ]
        ).increment()
    }

    /// Counts a tracking request the server fired itself: `kind` is `error` or `impression`,
    /// `ok` whether the ad server answered 2xx.
    func trackingSent(kind: String, ok: Bool) {
        counter(
            Name.trackingRequests,
            [("kind", MetricLabels.member(kind, of: MetricLabels.trackingKinds)), ("result", ok ? "ok" : "failed")]
        ).increment()
    }

    /// Counts a tracking request of `kind` dropped before it was sent: its queue was full (the
    /// oldest waiting one goes), or its URL was not http(s).
    func trackingDropped(kind: String) {
        counter(Name.trackingDropped, [("kind", MetricLabels.member(kind, of: MetricLabels.trackingKinds))])
            .increment()
    }

    /// Counts a relayed beacon not passed on, for `reason`: `expired`, `repeated` or `budget`.
    func beaconDropped(reason: String) {
        counter(Name.beaconsDropped, [("reason", MetricLabels.member(reason, of: MetricLabels.beaconDropReasons))])
            .increment()
    }

    /// Counts an upstream Date Range Schedule document loaded (`loaded`) or failed (`failed`).
    func scheduleLoad(result: String) {
        counter(Name.scheduleLoads, [("result", MetricLabels.member(result, of: MetricLabels.scheduleLoadResults))])
            .increment()
    }

    /// Counts an SCTE-35 marker the server refused (``SignalRefusalLog``), by the ID of the rule
    /// `hlsi validate` gives for it (``MetricLabels/signalRefusalReasons``).
    func signalRefused(reason: String) {
        counter(
            Name.signalsRefused, [("reason", MetricLabels.member(reason, of: MetricLabels.signalRefusalReasons))]
        ).increment()
    }

    /// Counts an early notice of a live break by `outcome`: `announced`, `withdrawn`, or at its
    /// expiry `matched` (a signalled break took its ID) or `unmatched`.
    func notice(outcome: String) {
        counter(Name.notices, [("outcome", MetricLabels.member(outcome, of: MetricLabels.noticeOutcomes))]).increment()
    }

    /// Counts an ad the stitched form left out, for `reason` (``MetricLabels/stitchFallbackReasons``).
    func stitchFallback(reason: String) {
        counter(
            Name.stitchFallbacks, [("reason", MetricLabels.member(reason, of: MetricLabels.stitchFallbackReasons))]
        ).increment()
    }

    /// Counts a beacon of VAST event `type` seen by the server.
    func beaconSeen(type: String) {
        counter(Name.beaconsSeen, [("type", MetricLabels.member(type, of: MetricLabels.beaconTypes))]).increment()
    }

    /// Every series in the Prometheus text exposition format 0.0.4 (`# HELP`, `# TYPE`, samples).
    func renderText() -> String {
        registry.emitToString()
    }

    private func counter(_ name: MetricNameDescriptor, _ labels: [(String, String)]) -> Counter {
        registry.makeCounter(descriptor: name, labels: labels)
    }
}
