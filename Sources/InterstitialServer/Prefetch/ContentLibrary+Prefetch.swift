import HLSInterstitials
import HLSPlaylist

extension ContentLibrary {
    /// An upcoming live break filled by a VAST ad server, with what deciding for it takes.
    struct PrefetchBreak: Sendable {
        /// The break as the planner follows it.
        var upcoming: PrefetchPlanner.Upcoming
        /// Its channel's ad server settings.
        var settings: AdServerSettings
        /// Its effective duration.
        var duration: MediaTime
    }

    /// The upcoming breaks at `now` of the live channels with a VAST ad server and prefetch on
    /// (admin, cadence and served breaks: ``BreakPlanner/upcoming(_:horizon:)``; early notices:
    /// ``BreakPlanner/noticed(_:horizon:)``), filled by this
    /// server's asset list, with their retrieval windows: from the preload hint's range as first
    /// served (`<break>.preload`), else ``BreakWindows/hint(start:sessions:perSecond:)`` for the
    /// audience now; and the channels' standing breaks (``standingBreaks(at:)``).
    func prefetchBreaks(at now: DateTime) -> [PrefetchBreak] {
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
            let planner = planner(for: content, target: target, state: snapshot)
            for planned in planner.upcoming(timeline, horizon: horizon) + planner.noticed(timeline, horizon: horizon) {
                guard planned.source?.usesServerAssetList ?? true, let start = planned.event.date,
                    let duration = planned.event.effectiveDuration()
                else { continue }
                let id = planned.event.identifier
                let served = snapshot.served[ServedKey(target, id + ".preload")]?["START-DATE"]?.quotedString
                let hintStart =
                    served.flatMap { DateTime(iso8601: $0) }
                    ?? windows.hint(start: start, sessions: audience, perSecond: settings.maximumPerSecond).lowerBound
                let window = windows.retrieval(
                    hintStart: hintStart, sessions: audience, perSecond: settings.maximumPerSecond)
                let upcoming = PrefetchPlanner.Upcoming(
                    key: PrefetchCache.BreakKey(target: target, breakID: id), start: start,
                    end: planned.event.effectiveEnd() ?? start,
                    window: window, shared: tag.isShared, server: server, pacing: PrefetchPlanner.Pacing(settings))
                found.append(PrefetchBreak(upcoming: upcoming, settings: settings, duration: duration))
            }
        }
        // Each channel's next break before any cue, with standing decisions on.
        found += standingBreaks(at: now)
        return found
    }
}
