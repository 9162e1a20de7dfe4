import HLSInterstitials
import HLSPlaylist

extension ContentLibrary {
    /// The standing breaks at `now` (``StandingBreak``): one for each live channel with a VAST ad
    /// server, prefetch on and an `expectedBreak`, decided ahead by the ``PrefetchPlanner`` like any
    /// upcoming break (paced over the first half of its refresh period, claimed in the ledger).
    func standingBreaks(at now: DateTime) -> [PrefetchBreak] {
        let snapshot = state.snapshot
        var found: [PrefetchBreak] = []
        for content in configuration.live {
            let target = Target(.live, content.id)
            guard let settings = AdServerSettings.of(target, configuration: configuration, state: snapshot),
                let tag = settings.vast, let server = AdServerGates.key(of: tag.template),
                let standing = StandingBreak(target: target, settings: settings.prefetch, at: now)
            else { continue }
            let upcoming = PrefetchPlanner.Upcoming(
                key: PrefetchCache.BreakKey(target: target, breakID: standing.id), start: standing.expected,
                end: standing.end, window: standing.window, shared: tag.isShared, server: server,
                pacing: PrefetchPlanner.Pacing(settings))
            found.append(PrefetchBreak(upcoming: upcoming, settings: settings, duration: standing.duration))
        }
        return found
    }

}
