import HLSInterstitials
import HLSPlaylist

/// Finds the breaks the ``PrefetchService`` decides ahead: the upcoming live breaks filled by a
/// VAST ad server with prefetch on (``upcoming(at:)``) and the channels' standing breaks
/// (``standing(at:)``), planned on the current state with the audience seen.
struct PrefetchBreakFinder: Sendable {
    let configuration: ServerConfiguration
    let state: ServerState
    /// The viewers seen on each live channel.
    let sessions: ViewerSessions
    /// The channels' planners.
    let planners: BreakPlanners
    /// The channels' signalled breaks' durations, for a learned expected break.
    let breakLengths: BreakLengthLog
    /// The ad servers' gates, whose learned rates pace the decisions (``AdServerGates/pacingRate(_:gates:)``);
    /// nil: none (the learning's initial rate, or `maxPerSecond`).
    var gates: AdServerGates? = nil

    /// The rate to pace `settings`' decisions at.
    private func rate(_ settings: AdServerSettings) -> Int {
        AdServerGates.pacingRate(settings, gates: gates)
    }

    /// The upcoming breaks at `now` of the live channels with a VAST ad server and prefetch on
    /// (admin, cadence and served breaks: ``BreakPlanner/upcoming(_:horizon:)``; early notices:
    /// ``BreakPlanner/noticed(_:horizon:)``), filled by this
    /// server's asset list, with their retrieval windows: from the preload hint's range as first
    /// served (`<break>.preload`), else ``BreakWindows/hint(start:sessions:perSecond:)`` for the
    /// audience now; and the channels' standing breaks (``standing(at:)``).
    func upcoming(at now: DateTime) -> [PrefetchBreak] {
        let snapshot = state.snapshot
        var found: [PrefetchBreak] = []
        for content in configuration.live {
            let target = Target(.live, content.id)
            guard let settings = AdServerSettings.of(target, configuration: configuration, state: snapshot),
                settings.prefetch.enabled, let tag = settings.vast, let server = AdServerGates.key(of: tag.template)
            else { continue }
            let windows = settings.prefetch.windows
            let timeline = BreakPlanner.Timeline.live(
                epoch: content.epoch, window: (now - MediaTime(seconds: 60))..<now, lookahead: content.lookahead)
            let horizon = windows.horizon
            let audience = sessions.count(target)
            let perSecond = rate(settings)
            let planner = planners.planner(for: content, target: target, state: snapshot)
            for planned in planner.upcoming(timeline, horizon: horizon) + planner.noticed(timeline, horizon: horizon) {
                guard planned.source?.usesServerAssetList ?? true, let start = planned.event.date,
                    let duration = planned.event.effectiveDuration()
                else { continue }
                let id = planned.event.identifier
                let served = snapshot.served[ServedKey(target, id + ".preload")]?["START-DATE"]?.quotedString
                let hintStart =
                    served.flatMap { DateTime(iso8601: $0) }
                    ?? windows.hint(start: start, sessions: audience, perSecond: perSecond).lowerBound
                let window = windows.retrieval(hintStart: hintStart, sessions: audience, perSecond: perSecond)
                let upcoming = PrefetchPlanner.Upcoming(
                    key: PrefetchCache.BreakKey(target: target, breakID: id), start: start,
                    end: planned.event.effectiveEnd() ?? start,
                    window: window, shared: tag.isShared, server: server,
                    pacing: PrefetchPlanner.Pacing(settings, perSecond: perSecond))
                found.append(PrefetchBreak(upcoming: upcoming, settings: settings, duration: duration))
            }
        }
        // Each channel's next break before any cue, with standing decisions on.
        found += standing(at: now)
        return found
    }

    /// The standing breaks at `now` (``StandingBreak``): one for each live channel with a VAST ad
    /// server, prefetch on and an `expectedBreak`, decided ahead by the ``PrefetchPlanner`` like any
    /// upcoming break (paced over the first half of its refresh period, claimed in the ledger); its
    /// length learned from the channel's signalled breaks when the settings say so
    /// (``PrefetchSettings/learnFrom``, ``BreakLengthLog``).
    func standing(at now: DateTime) -> [PrefetchBreak] {
        let snapshot = state.snapshot
        var found: [PrefetchBreak] = []
        for content in configuration.live {
            let target = Target(.live, content.id)
            guard let settings = AdServerSettings.of(target, configuration: configuration, state: snapshot),
                let tag = settings.vast, let server = AdServerGates.key(of: tag.template),
                var standing = StandingBreak(target: target, settings: settings.prefetch, at: now)
            else { continue }
            // A learned length: the median of the channel's last signalled breaks, once enough were seen.
            if let count = settings.prefetch.learnFrom {
                standing.duration = breakLengths.expected(target, configured: standing.duration, count: count)
            }
            let upcoming = PrefetchPlanner.Upcoming(
                key: PrefetchCache.BreakKey(target: target, breakID: standing.id), start: standing.expected,
                end: standing.end, window: standing.window, shared: tag.isShared, server: server,
                pacing: PrefetchPlanner.Pacing(settings, perSecond: rate(settings)))
            found.append(PrefetchBreak(upcoming: upcoming, settings: settings, duration: standing.duration))
        }
        return found
    }
}
