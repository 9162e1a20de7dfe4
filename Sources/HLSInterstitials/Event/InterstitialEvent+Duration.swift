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

    /// When the event ends: START-DATE plus its ``effectiveDuration(played:)`` (none, or a negative
    /// one, counts as zero); nil without START-DATE.
    ///
    /// The one place the end is computed: the server's overlap and live-window checks and its break
    /// planner use it.
    public func effectiveEnd(played: MediaTime? = nil) -> DateTime? {
        date.map { $0 + max(effectiveDuration(played: played) ?? .zero, .zero) }
    }

    /// The X-PLAYOUT-LIMIT of a break that returns early `elapsed` after it started: that time in
    /// whole milliseconds, rounded toward zero, so the limit never passes the moment of the return.
    ///
    /// The one place the rounding is done: `POST /admin/v1/channels/ID/return` and a signalled
    /// return (an SCTE-35 IN before the planned end) both use it.
    public static func earlyReturnPlayoutLimit(elapsed: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: elapsed.nanoseconds / 1_000_000 * 1_000_000)
    }
}
