import AsyncHTTPClient
import Foundation
import HLSInterstitials
import NIOCore

/// One virtual viewer: polls the live media playlist with its session ID, plays 3 target durations
/// (or a drawn number of seconds, ``Context/behindSeconds``) behind the live edge, and loads each upcoming break's asset list once, as a player does: at its
/// normal time (the playhead at START-DATE − 10 s ± 1.5 s), or earlier at a random point of a
/// Preload hint's range (App. F) whose result it then uses.
///
/// A viewer lives on one event loop, with its timers and its requests' callbacks (a timer wheel: no
/// thread of its own); its state is only touched there. Its requests take any pooled connection
/// (`.delegate(on:)`: AHC closes the connections it opens for `.delegateAndChannel(on:)` after use).
final class Viewer: @unchecked Sendable {
    /// What all viewers share.
    struct Context: Sendable {
        /// The parsed playlists.
        var cache: PlaylistSnapshot.Cache
        /// The tallies.
        var results: HerdResults
        /// The live media playlist's URL.
        var url: String
        /// Seconds between polls (nil: the target duration).
        var pollInterval: Double?
        /// The normal look-ahead: an asset list is loaded when the playhead is this far before START-DATE.
        var lookAhead = 10.0
        /// The uniform random spread around it (±).
        var spread = 1.5
        /// How many target durations the playhead stays behind the live edge.
        var behind = 3.0
        /// When set, seconds behind the live edge instead, drawn uniformly once per viewer (the cue
        /// case: players 6 to 8 s behind, as hold-backs and buffers spread them).
        var behindSeconds: ClosedRange<Double>?
        /// Seconds an asset-list or playlist request may take before it counts as failed.
        var timeout = 5.0
        /// Until when (wall-clock seconds) the viewers poll without X-PLAYBACK-SESSION-ID and
        /// request nothing else (their connections open, no session on the server).
        var warmupEnd = 0.0
    }

    /// One break as this viewer sees it.
    private struct Plan {
        /// X-ASSET-LIST (resolved), once the interstitial is in the playlist.
        var assetList: String?
        /// When the asset list is loaded without a hint (wall-clock seconds), once known.
        var normal: Double?
        /// This viewer's offset from the look-ahead, drawn once.
        var jitter: Double
        /// The hint followed: its ID, X-URI, range (wall-clock, start clamped to when first seen)
        /// and the viewer's random point within it (0..<1).
        var hintID: String?
        var hintURI = ""
        var hintLow = 0.0
        var hintHigh = 0.0
        var hintPoint = 0.0
        /// The preload made for the hint.
        var preload: EventLoopFuture<Outcome>?
        /// Whether this viewer's asset list for the break is settled (loaded, in flight, or skipped).
        var resolved = false

        /// When the hint's preload is due (nil: none: no hint, done, X-URI differs, or no time left).
        var preloadTime: Double? {
            guard hintID != nil, preload == nil, !resolved else { return nil }
            if let assetList, assetList != hintURI { return nil }
            let high = min(hintHigh, normal ?? hintHigh)
            guard hintLow <= high else { return nil }
            return hintLow + hintPoint * (high - hintLow)
        }
    }

    /// The viewer's session ID (X-PLAYBACK-SESSION-ID, _HLS_primary_id).
    let session: String
    private let client: HTTPClient
    private let loop: any EventLoop
    private let context: Context
    private let done: EventLoopPromise<Void>
    // The state, on `loop` only.
    private var random: SplitMix
    private var plans: [String: Plan] = [:]
    private var anchor: Double?
    private var polls = 0
    private var updates = 0
    private var nextPoll = 0.0
    private var end = 0.0
    private var polling = false
    private var finished = false
    private var inFlight = 0
    private var wake: Scheduled<Void>?

    /// Creates a viewer whose requests go through `client` (its connections from its own address)
    /// and whose work runs on `loop`.
    init(session: String, client: HTTPClient, loop: any EventLoop, context: Context, seed: UInt64) {
        self.session = session
        self.client = client
        self.loop = loop
        self.context = context
        random = SplitMix(seed: seed)
        done = loop.makePromise()
    }

    /// Watches from `join` (wall-clock seconds) until `end`; the future completes once its loads in
    /// flight have too.
    func run(join: Double, end: Double) -> EventLoopFuture<Void> {
        loop.execute {
            self.end = end
            self.nextPoll = join
            self.schedule(join)
        }
        return done.futureResult
    }

    private func schedule(_ time: Double) {
        wake?.cancel()
        let delay = max(0, time - WallClock.now)
        wake = loop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { self.tick() }
    }

    /// Does what is due: a poll, preloads, asset lists at their normal time; then sleeps until the next.
    private func tick() {
        guard !finished else { return }
        let now = WallClock.now
        if now >= end {
            finish()
            return
        }
        if now >= nextPoll, !polling { poll() }
        var wakeAt = polling ? end : nextPoll
        for (id, plan) in plans where !plan.resolved {
            var plan = plan
            if let time = plan.preloadTime {
                if time <= now {
                    plan.preload = load(plan.hintURI, preload: true)
                } else {
                    wakeAt = min(wakeAt, time)
                }
            }
            if let normal = plan.normal, plan.assetList != nil {
                if normal <= now {
                    plan.resolved = true
                    resolve(plan, breakID: id)
                } else {
                    wakeAt = min(wakeAt, normal)
                }
            }
            plans[id] = plan
        }
        schedule(min(wakeAt, end))
    }

    private func finish() {
        finished = true
        wake?.cancel()
        let unreached = plans.filter { !$0.value.resolved && $0.value.assetList != nil }.map(\.key)
        if !unreached.isEmpty {
            context.results.update { counts in for id in unreached { counts.unreached[id, default: 0] += 1 } }
        }
        if inFlight == 0 { done.succeed(()) }
    }

    private func settled() {
        inFlight -= 1
        if finished, inFlight == 0 { done.succeed(()) }
    }

    /// Reads a new playlist into the plans: interstitials (their normal time), hints (their
    /// ranges), hints gone (their preloads discarded).
    private func update(with snapshot: PlaylistSnapshot, anchor: Double, now: Double, first: Bool) {
        for interstitial in snapshot.interstitials {
            let isNew = plans[interstitial.id] == nil
            var plan =
                plans[interstitial.id]
                ?? Plan(jitter: Double.random(in: -context.spread...context.spread, using: &random))
            if plan.normal == nil {
                plan.normal = interstitial.start - context.lookAhead + plan.jitter + anchor
            }
            plan.assetList = interstitial.assetList
            if isNew, first, let normal = plan.normal, normal < now {
                // Joined after this break's asset-list time: not this viewer's break to count.
                plan.resolved = true
                context.results.update { $0.late[interstitial.id, default: 0] += 1 }
            }
            plans[interstitial.id] = plan
        }
        var present: Set<String> = []
        for hint in snapshot.hints {
            present.insert(hint.id)
            // "If X-TARGET-ID matches a Date Range whose CLASS differs from X-TARGET-CLASS": not preloaded.
            if let className = snapshot.classes[hint.targetID], className != InterstitialEvent.className { continue }
            var plan =
                plans[hint.targetID]
                ?? Plan(jitter: Double.random(in: -context.spread...context.spread, using: &random))
            if plan.resolved { continue }
            if plan.hintID == nil {
                plan.hintID = hint.id
                plan.hintURI = hint.uri
                plan.hintLow = max(hint.start + anchor, now)
                plan.hintPoint = Double.random(in: 0..<1, using: &random)
                if let assetList = plan.assetList, assetList != hint.uri {
                    context.results.update { $0.hintsMismatched += 1 }
                }
            }
            if plan.hintID == hint.id { plan.hintHigh = hint.end + anchor }
            plans[hint.targetID] = plan
        }
        // "If the Preload tag is removed from the playlist, the client SHOULD discard what it preloaded."
        for (id, plan) in plans where !plan.resolved {
            guard let hintID = plan.hintID, !present.contains(hintID) else { continue }
            var plan = plan
            if plan.preload != nil {
                context.results.update { $0.preloadsDiscarded += 1 }
            }
            plan.preload = nil
            plan.hintID = nil
            plans[id] = plan
        }
        // A hint whose X-URI turned out not to be the URL the target loads: its result is not used.
        for (id, plan) in plans where !plan.resolved && plan.preload != nil {
            if let assetList = plan.assetList, assetList != plan.hintURI {
                var plan = plan
                plan.preload = nil
                plans[id] = plan
                context.results.update { $0.hintsMismatched += 1 }
            }
        }
    }

    /// The break's asset list at its normal time: the preload's result when it loaded that URL,
    /// else a load now.
    private func resolve(_ plan: Plan, breakID: String) {
        let results = context.results
        if let preload = plan.preload, plan.hintURI == plan.assetList {
            preload.whenSuccess { outcome in
                results.update { counts in
                    counts.preloadsUsed += 1
                    counts.outcomes[breakID, default: [:]][outcome, default: 0] += 1
                }
            }
        } else if let url = plan.assetList {
            load(url, preload: false).whenSuccess { outcome in
                results.update { $0.outcomes[breakID, default: [:]][outcome, default: 0] += 1 }
            }
        }
    }

    /// Polls the live playlist, then reads it and does what is due.
    /// During the warm-up the poll carries no session and its playlist only sets the playhead.
    private func poll() {
        let warm = WallClock.now < context.warmupEnd
        guard var request = try? HTTPClient.Request(url: context.url) else { return }
        if !warm { request.headers.add(name: "X-PLAYBACK-SESSION-ID", value: session) }
        polling = true
        inFlight += 1
        client.execute(
            request: request, eventLoop: .delegate(on: loop),
            deadline: .now() + .milliseconds(Int64(context.timeout * 1000))
        ).whenComplete { result in
            var snapshot: PlaylistSnapshot?
            if case .success(let response) = result, response.status == .ok, let body = response.body {
                snapshot = self.context.cache.snapshot(Array(body.readableBytesView), url: self.context.url)
            }
            self.context.results.update { counts in
                counts.polls += 1
                if snapshot == nil { counts.pollFailures += 1 }
            }
            self.polling = false
            let now = WallClock.now
            if let snapshot {
                self.polls += 1
                if self.anchor == nil, let edge = snapshot.liveEdge {
                    let behind =
                        self.context.behindSeconds.map { Double.random(in: $0, using: &self.random) }
                        ?? self.context.behind * snapshot.targetDuration
                    self.anchor = now - (edge - behind)
                }
                if let anchor = self.anchor, !warm {
                    self.updates += 1
                    self.update(with: snapshot, anchor: anchor, now: now, first: self.updates == 1)
                }
            }
            let interval = self.context.pollInterval ?? snapshot?.targetDuration ?? 2
            self.nextPoll += interval
            if self.nextPoll < now { self.nextPoll = now + interval }
            self.settled()
            self.tick()
        }
    }

    /// Loads the asset list at `url` with `_HLS_primary_id` added, as players do.
    private func load(_ url: String, preload: Bool) -> EventLoopFuture<Outcome> {
        let separator = url.contains("?") ? "&" : "?"
        guard let request = try? HTTPClient.Request(url: url + separator + "_HLS_primary_id=" + session) else {
            return loop.makeSucceededFuture(.failed)
        }
        inFlight += 1
        let started = NIODeadline.now()
        let results = context.results
        // The latency ends when the whole answer is in, before the herd reads it (its own decoding,
        // on a machine the viewers share with the servers, is not the server's time).
        let answered: @Sendable () -> Void = {
            let milliseconds = Double((NIODeadline.now() - started).nanoseconds) / 1e6
            results.update { counts in
                counts.latencies.append(milliseconds)
                if preload { counts.preloads += 1 }
            }
        }
        return client.execute(
            request: request, eventLoop: .delegate(on: loop),
            deadline: .now() + .milliseconds(Int64(context.timeout * 1000))
        ).map { response in
            answered()
            return Outcome.of(
                status: Int(response.status.code), body: response.body.map { Array($0.readableBytesView) })
        }.recover { _ in
            answered()
            return .failed
        }.always { _ in
            self.settled()
        }
    }
}
