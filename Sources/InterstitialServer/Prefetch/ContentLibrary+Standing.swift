import HLSInterstitials
import HLSPlaylist

extension ContentLibrary {
    /// The standing breaks at `now` (``StandingBreak``): one for each live channel with a VAST ad
    /// server, prefetch on and an `expectedBreak`, decided ahead by the ``PrefetchPlanner`` like any
    /// upcoming break (paced over the first half of its refresh period, claimed in the ledger); its
    /// length learned from the channel's signalled breaks when the settings say so
    /// (``PrefetchSettings/learnFrom``, ``BreakLengthLog``).
    func standingBreaks(at now: DateTime) -> [PrefetchBreak] {
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
                pacing: PrefetchPlanner.Pacing(settings))
            found.append(PrefetchBreak(upcoming: upcoming, settings: settings, duration: standing.duration))
        }
        return found
    }

}
