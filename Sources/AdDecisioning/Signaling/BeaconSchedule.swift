import HLSPlaylist

/// When each tracking beacon of a played ad fires, as a value the player walks while it plays.
///
/// VAST 4.3 §3.14.1: `start` "when the first frame of the creative is displayed",
/// `firstQuartile` "when the creative has played continuously for at least 25% of the total
/// duration", `midpoint` 50 %, `thirdQuartile` 75 %, `complete` "when the creative plays to the end
/// at normal speed", `progress` at its offset. `impression` and `creativeView` fire with `start`.
/// Quartiles use the played duration of the asset (which may differ from `<Duration>`). Events that
/// depend on the viewer (`pause`, `mute`, `skip`, `clickTracking`…) are in ``onEvent`` and fire
/// when that happens; after a skip only `skip` fires.
public struct BeaconSchedule: Hashable, Sendable {
    /// One timed beacon.
    public struct Beacon: Hashable, Sendable {
        /// The time in the ad at which it fires.
        public var time: MediaTime
        /// The VAST event name.
        public var type: String
        /// The URLs to request.
        public var urls: [String]
    }

    /// The timed beacons, in time order (ties in the order impression, creativeView, start,
    /// progress, quartiles, complete).
    public var timed: [Beacon]
    /// The beacons fired on viewer actions, by event name.
    public var onEvent: [String: [String]]
    /// The played duration.
    public var duration: MediaTime

    /// The schedule of `signaling` (one slot) played for `duration`.
    public init(slot: AdCreativeSignaling.Slot, duration: MediaTime? = nil) {
        let played = duration ?? slot.duration
        self.duration = played
        var timed: [Beacon] = []
        var onEvent: [String: [String]] = [:]
        let order = [
            "impression", "creativeView", "loaded", "start", "progress", "firstQuartile", "midpoint", "thirdQuartile",
            "complete",
        ]
        for entry in slot.tracking {
            let fraction: Double? =
                switch entry.type {
                case "impression", "creativeView", "start", "loaded": 0
                case "firstQuartile": 0.25
                case "midpoint": 0.5
                case "thirdQuartile": 0.75
                case "complete": 1
                default: nil
                }
            if let fraction {
                let time = MediaTime(nanoseconds: Int64((Double(played.nanoseconds) * fraction).rounded()))
                timed.append(Beacon(time: time, type: entry.type, urls: entry.urls))
            } else if entry.type == "progress", let offset = entry.offset {
                if offset <= played { timed.append(Beacon(time: offset, type: entry.type, urls: entry.urls)) }
            } else {
                onEvent[entry.type, default: []] += entry.urls
            }
        }
        self.timed = timed.enumerated().sorted { lhs, rhs in
            if lhs.element.time != rhs.element.time { return lhs.element.time < rhs.element.time }
            let left = order.firstIndex(of: lhs.element.type) ?? order.count
            let right = order.firstIndex(of: rhs.element.type) ?? order.count
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
        self.onEvent = onEvent
    }

    /// The beacons due when playback moves from `previous` (exclusive; nil before the first frame)
    /// to `current` (inclusive), for a player that keeps the last position it reported.
    public func due(after previous: MediaTime?, through current: MediaTime) -> [Beacon] {
        timed.filter { beacon in
            beacon.time <= current && (previous.map { beacon.time > $0 } ?? true)
        }
    }
}
