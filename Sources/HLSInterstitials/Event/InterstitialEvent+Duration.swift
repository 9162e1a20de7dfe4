import HLSPlaylist

extension InterstitialEvent {
    /// The event's effective duration (profile R3): min(X-PLAYOUT-LIMIT, D), where D is, first
    /// available, the sum of the resolved assets' durations, DURATION, END-DATE − START-DATE and
    /// PLANNED-DURATION; once played, the time actually played.
    ///
    /// This is the one place the rule is computed: the schedule (playout lengths, resumption points),
    /// the server (how much to fill, early returns) and the CLI use it. With no D, X-PLAYOUT-LIMIT
    /// alone is the duration ("the maximum duration that the interstitial asset MAY be played",
    /// App. D.2); with neither, the result is nil (unknown).
    ///
    /// - Parameter played: the time the event actually played, once known (it wins).
    public func effectiveDuration(played: MediaTime? = nil) -> MediaTime? {
        if let played { return played }
        let known =
            assetList.map(\.totalDuration) ?? duration
            ?? endDate.flatMap { end in date.map { end - $0 } } ?? plannedDuration
        switch (known, playoutLimit) {
        case (let known?, let limit?): return min(known, limit)
        case (let known?, nil): return known
        case (nil, let limit?): return limit
        case (nil, nil): return nil
        }
    }
}
