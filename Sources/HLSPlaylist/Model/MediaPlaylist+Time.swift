extension MediaPlaylist {
    /// The playlist time of a date (behavior profile R1).
    ///
    /// "START-DATE maps to primary time through the segment whose date range contains it: that
    /// segment's own date … plus the difference. Discontinuities re-anchor. A date before the
    /// first segment maps to a negative time. A date that no segment holds because it falls in a gap
    /// between two segments' dates … maps to the start of the later segment." A date after the last
    /// segment is extrapolated from the last one. Returns nil when the playlist has no dates.
    public func time(at date: DateTime) -> MediaTime? {
        guard !segments.isEmpty, let firstDate = segments.date(at: 0) else { return nil }
        if date < firstDate { return segments.startTime(at: 0) + (date - firstDate) }
        // The last segment whose date is at or before `date`: a binary search, checked, since a
        // discontinuity may move dates back; then a linear scan.
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if let middleDate = segments.date(at: middle), middleDate <= date {
                low = middle
            } else {
                high = middle - 1
            }
        }
        if !contains(date, inSegmentAt: low) {
            if let holder = segments.indices.last(where: { contains(date, inSegmentAt: $0) }) {
                low = holder
            } else if let before = segments.indices.last(where: { segments.date(at: $0).map { $0 <= date } ?? false }) {
                // "A date that no segment holds because it falls in a gap between two segments'
                // dates … maps to the start of the later segment."
                let next = before + 1
                if next < segments.count, let nextDate = segments.date(at: next), nextDate > date {
                    return segments.startTime(at: next)
                }
                low = before
            }
        }
        guard let segmentDate = segments.date(at: low) else { return nil }
        return segments.startTime(at: low) + (date - segmentDate)
    }

    /// The date at a playlist time (the inverse of ``time(at:)``), nil without dates or when that
    /// date is not representable.
    public func date(at time: MediaTime) -> DateTime? {
        guard !segments.isEmpty else { return nil }
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments.startTime(at: middle) <= time { low = middle } else { high = middle - 1 }
        }
        let startTime = segments.startTime(at: low)
        return segments.date(at: low).flatMap { date in
            time.checkedSubtracting(startTime).flatMap { date.adding($0) }
        }
    }

    /// Whether `date` falls in the segment's date range (the last segment extends forever).
    private func contains(_ date: DateTime, inSegmentAt index: Int) -> Bool {
        guard let start = segments.date(at: index), start <= date else { return false }
        return index == segments.count - 1 || date < start + segments.duration(at: index)
    }
}
