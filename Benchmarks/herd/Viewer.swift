import AsyncHTTPClient
import Foundation
import HLSInterstitials

/// One virtual viewer: polls the live media playlist with its session ID, plays 3 target durations
/// behind the live edge, and loads each upcoming break's asset list once, as a player does: at its
/// normal time (the playhead at START-DATE − 10 s ± 1.5 s), or earlier at a random point of a
/// Preload hint's range (App. F) whose result it then uses.
struct Viewer: Sendable {
    /// What all viewers share.
    struct Context: Sendable {
        /// The one HTTP client (bounded connection pool).
        var client: HTTPClient
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
        /// Seconds an asset-list or playlist request may take before it counts as failed.
        var timeout = 5.0
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
        var preload: Task<Outcome, Never>?
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
    let context: Context

    /// Runs from `join` (wall-clock seconds) until `end`, then waits for its loads in flight.
    func run(join: Double, end: Double, seed: UInt64) async {
        var random = SplitMix(seed: seed)
        var plans: [String: Plan] = [:]
        var anchor: Double?
        var polls = 0
        var interval = context.pollInterval ?? 2
        await WallClock.sleep(until: join)
        await withDiscardingTaskGroup { group in
            var nextPoll = join
            while WallClock.now < end {
                if WallClock.now >= nextPoll {
                    if let snapshot = await poll() {
                        polls += 1
                        interval = context.pollInterval ?? snapshot.targetDuration
                        let now = WallClock.now
                        if anchor == nil, let edge = snapshot.liveEdge {
                            anchor = now - (edge - context.behind * snapshot.targetDuration)
                        }
                        if let anchor {
                            update(&plans, with: snapshot, anchor: anchor, now: now, first: polls == 1, &random)
                        }
                    }
                    nextPoll += interval
                    if nextPoll < WallClock.now { nextPoll = WallClock.now + interval }
                }
                let now = WallClock.now
                var wake = nextPoll
                for (id, plan) in plans where !plan.resolved {
                    var plan = plan
                    if let time = plan.preloadTime {
                        if time <= now {
                            let url = plan.hintURI
                            plan.preload = Task { await load(url, preload: true) }
                        } else {
                            wake = min(wake, time)
                        }
                    }
                    if let normal = plan.normal, plan.assetList != nil {
                        if normal <= now {
                            plan.resolved = true
                            resolve(plan, breakID: id, in: &group)
                        } else {
                            wake = min(wake, normal)
                        }
                    }
                    plans[id] = plan
                }
                await WallClock.sleep(until: min(wake, end))
            }
        }
        let unreached = plans.filter { !$0.value.resolved && $0.value.assetList != nil }.map(\.key)
        if !unreached.isEmpty {
            context.results.update { counts in for id in unreached { counts.unreached[id, default: 0] += 1 } }
        }
    }

    /// Reads a new playlist into the plans: interstitials (their normal time), hints (their
    /// ranges), hints gone (their preloads discarded).
    private func update(
        _ plans: inout [String: Plan], with snapshot: PlaylistSnapshot, anchor: Double, now: Double, first: Bool,
        _ random: inout SplitMix
    ) {
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
    private func resolve(_ plan: Plan, breakID: String, in group: inout DiscardingTaskGroup) {
        let results = context.results
        if let preload = plan.preload, plan.hintURI == plan.assetList {
            group.addTask {
                let outcome = await preload.value
                results.update { counts in
                    counts.preloadsUsed += 1
                    counts.outcomes[breakID, default: [:]][outcome, default: 0] += 1
                }
            }
        } else if let url = plan.assetList {
            group.addTask {
                let outcome = await load(url, preload: false)
                results.update { $0.outcomes[breakID, default: [:]][outcome, default: 0] += 1 }
            }
        }
    }

    /// The live playlist now, nil when it failed.
    private func poll() async -> PlaylistSnapshot? {
        var request = HTTPClientRequest(url: context.url)
        request.headers.add(name: "X-PLAYBACK-SESSION-ID", value: session)
        let snapshot: PlaylistSnapshot?
        do {
            let response = try await context.client.execute(
                request, timeout: .milliseconds(Int64(context.timeout * 1000)))
            let body = try await response.body.collect(upTo: 4 << 20)
            snapshot =
                response.status == .ok ? context.cache.snapshot(Array(body.readableBytesView), url: context.url) : nil
        } catch {
            snapshot = nil
        }
        context.results.update { counts in
            counts.polls += 1
            if snapshot == nil { counts.pollFailures += 1 }
        }
        return snapshot
    }

    /// Loads the asset list at `url` with `_HLS_primary_id` added, as players do.
    private func load(_ url: String, preload: Bool) async -> Outcome {
        let separator = url.contains("?") ? "&" : "?"
        let request = HTTPClientRequest(url: url + separator + "_HLS_primary_id=" + session)
        let started = ContinuousClock.now
        var status: Int?
        var body: [UInt8]?
        do {
            let response = try await context.client.execute(
                request, timeout: .milliseconds(Int64(context.timeout * 1000)))
            status = Int(response.status.code)
            body = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        } catch {
            status = nil
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.results.update { counts in
            counts.latencies.append(milliseconds)
            if preload { counts.preloads += 1 }
        }
        return Outcome.of(status: status, body: body)
    }
}
