extension MediaPlaylist {
    /// The playlist time of a date (behavior profile R1).
    ///
    /// "START-DATE maps to primary time through the segment whose date range contains it: that
    /// segment's own date … plus the difference. Discontinuities re-anchor. A date before the
    /// first segment maps to a negative time. A date that no segment holds because it falls in a gap
    /// between two segments' dates … maps to the start of the later segment." A date after the last
    /// segment is extrapolated from the last one. Returns nil when the playlist has no dates.
    public func time(at date: DateTime) -> MediaTime? {
        guard let first = segments.first, let firstDate = first.date else { return nil }
        if date < firstDate { return first.startTime + (date - firstDate) }
        // The last segment whose date is at or before `date`: a binary search, checked, since a
        // discontinuity may move dates back; then a linear scan.
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if let middleDate = segments[middle].date, middleDate <= date { low = middle } else { high = middle - 1 }
        }
        if !contains(date, inSegmentAt: low) {
            if let holder = segments.indices.last(where: { contains(date, inSegmentAt: $0) }) {
                low = holder
            } else if let before = segments.lastIndex(where: { $0.date.map { $0 <= date } ?? false }) {
                // "A date that no segment holds because it falls in a gap between two segments'
                // dates … maps to the start of the later segment."
                let next = before + 1
                if next < segments.count, let nextDate = segments[next].date, nextDate > date {
                    return segments[next].startTime
                }
                low = before
            }
        }
        let segment = segments[low]
        guard let segmentDate = segment.date else { return nil }
        return segment.startTime + (date - segmentDate)
    }

    /// The date at a playlist time (the inverse of ``time(at:)``), nil without dates or when that
    /// date is not representable.
    public func date(at time: MediaTime) -> DateTime? {
        guard !segments.isEmpty else { return nil }
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].startTime <= time { low = middle } else { high = middle - 1 }
        }
        let segment = segments[low]
        return segment.date.flatMap { date in
            time.checkedSubtracting(segment.startTime).flatMap { date.adding($0) }
        }
    }

    /// Whether `date` falls in the segment's date range (the last segment extends forever).
    private func contains(_ date: DateTime, inSegmentAt index: Int) -> Bool {
        guard let start = segments[index].date, start <= date else { return false }
        return index == segments.count - 1 || date < start + segments[index].duration
    }
}
