import HLSPlaylist

/// The break length a channel's standing decisions are asked for when it is learned
/// (`"expectedBreak": "learned"` or `learnFrom`, ``PrefetchSettings/learnFrom``): the median of the
/// durations of the channel's last N signalled breaks, bounded to 5–600 s; the configured value
/// until N breaks are seen (pure, a value).
///
/// Each break counts once, by its ID; a break seen again with another duration (an IN that ended
/// it early) counts with its newest duration. The IDs of the last ``maximumForgotten`` breaks no
/// longer kept are remembered, so a break still in the playlist is not counted twice.
struct ExpectedBreakLearner: Hashable, Sendable {
    /// The shortest and longest learned value (the bounds of a configured `expectedBreak`).
    static let bounds = MediaTime(seconds: 5)...MediaTime(seconds: 600)
    /// How many IDs of breaks no longer counted are remembered.
    static let maximumForgotten = 64

    /// The most breaks remembered (the largest N, ``PrefetchSettings/learnFrom``).
    static let maximumCount = PrefetchSettings.maximumLearnFrom

    /// A break seen.
    struct Seen: Hashable, Sendable {
        var id: String
        var duration: MediaTime
    }

    /// The last breaks seen, oldest first: at most ``maximumCount``.
    private(set) var recent: [Seen] = []
    /// The IDs that left ``recent``, oldest first.
    private var forgotten: [String] = []

    /// An empty learner.
    init() {}

    /// A break `id` of `duration` was signalled on the channel.
    mutating func observe(id: String, duration: MediaTime) {
        if let index = recent.firstIndex(where: { $0.id == id }) {
            recent[index].duration = duration
            return
        }
        guard !forgotten.contains(id) else { return }
        recent.append(Seen(id: id, duration: duration))
        while recent.count > Self.maximumCount {
            forgotten.append(recent.removeFirst().id)
            if forgotten.count > Self.maximumForgotten { forgotten.removeFirst() }
        }
    }

    /// The expected break: the median of the durations of the last `count` breaks (the mean of the
    /// two middle ones for an even count), within ``bounds``; `configured` until `count` breaks are
    /// seen.
    func expected(configured: MediaTime, count: Int) -> MediaTime {
        let count = min(max(1, count), Self.maximumCount)
        guard recent.count >= count else { return configured }
        let sorted = recent.suffix(count).map(\.duration).sorted()
        let middle = sorted.count / 2
        let median =
            sorted.count % 2 == 1
            ? sorted[middle]
            : MediaTime(nanoseconds: sorted[middle - 1].nanoseconds / 2 + sorted[middle].nanoseconds / 2)
        return min(max(median, Self.bounds.lowerBound), Self.bounds.upperBound)
    }
}
