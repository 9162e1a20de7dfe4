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

    /// For each segment of an ad whose segments last `durations`, the event types due when it is
    /// requested, in firing order; empty for an ad without segments.
    public static func events(durations: [MediaTime]) -> [[String]] {
        guard !durations.isEmpty else { return [] }
        var due = Array(repeating: [String](), count: durations.count)
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
        return due
    }
}
