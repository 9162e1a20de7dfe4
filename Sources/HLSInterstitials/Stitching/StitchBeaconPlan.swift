import HLSPlaylist

/// Which of an ad's beacons fire when a viewer requests each of its segments in the stitched form
/// (profile R28): the player knows nothing of the ad, so the server fires them as the segments are
/// fetched.
///
/// - `impression` and `start` fire with the first segment.
/// - A quartile (`firstQuartile`, `midpoint`, `thirdQuartile`) fires with the segment in which it
///   falls: the first whose end is after that share of the ad's duration (requesting it means the
///   segments before it, up to the quartile, were played).
/// - `complete` fires with the last segment.
/// - The pod's own events (VMAP `breakStart` and `breakEnd`) fire with the first segment of the
///   pod's first ad (before its impression) and the last segment of its last ad (after its
///   `complete`).
///
/// Segments a stitched playlist leaves out (X-PLAYOUT-LIMIT, an early return) are never requested,
/// so the events due at them never fire.
public enum StitchBeaconPlan {
    /// The events that fire with the first segment.
    public static let atStart = ["impression", "start"]
    /// The quartile events and the share of the ad's duration at which each falls.
    public static let quartiles: [(type: String, share: Double)] = [
        ("firstQuartile", 0.25), ("midpoint", 0.5), ("thirdQuartile", 0.75),
    ]
    /// The event that fires with the last segment.
    public static let atEnd = "complete"
    /// The pod's event that fires with its first ad's first segment.
    public static let podStart = "breakStart"
    /// The pod's event that fires with its last ad's last segment.
    public static let podEnd = "breakEnd"

    /// For each segment of an ad whose segments last `durations`, the event types due when it is
    /// requested, in firing order; empty for an ad without segments. `opensPod` adds ``podStart``
    /// to its first segment (the pod's first ad), `closesPod` ``podEnd`` to its last (the pod's
    /// last ad).
    public static func events(durations: [MediaTime], opensPod: Bool = false, closesPod: Bool = false) -> [[String]] {
        guard !durations.isEmpty else { return [] }
        var due = Array(repeating: [String](), count: durations.count)
        if opensPod { due[0].append(podStart) }
        due[0] += atStart
        let total = durations.reduce(MediaTime.zero, +)
        var ends: [MediaTime] = []
        var end = MediaTime.zero
        for duration in durations {
            end = end + duration
            ends.append(end)
        }
        for (type, share) in quartiles {
            let point = MediaTime(nanoseconds: Int64((Double(total.nanoseconds) * share).rounded()))
            let index = ends.firstIndex { $0 > point } ?? durations.count - 1
            due[index].append(type)
        }
        due[durations.count - 1].append(atEnd)
        if closesPod { due[durations.count - 1].append(podEnd) }
        return due
    }
}
