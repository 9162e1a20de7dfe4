import HLSPlaylist

/// Where a live break splices into one media playlist, and what fill each replaced segment brings
/// (profile R28): the one rule every rendition of a viewer's break is stitched by, so a video variant
/// and a demuxed audio rendition whose segment boundaries differ (AAC segments of 2.005333 s against
/// video's 2 s) replace the same span of the break, within one segment, and fill it without a gap.
///
/// **Nearest boundary.** A segment belongs to the side of a date that holds its midpoint: a primary
/// segment is replaced when its midpoint is in `[start, end)` of the break, so each rendition splices
/// in and out at its own boundary nearest the break's start and end (never more than half of one of
/// its segments away). A fill segment (pod, then slate) is played when its midpoint is before the
/// break's duration, counted from the rendition's splice-in: a pod is cut at the limit to the nearest
/// segment, whatever each rendition's segment durations.
///
/// **No gap.** A replaced segment brings the fill segments that end by its own end (counted from the
/// splice-in), and the break's last one those that start before its end, so as long as fill is left
/// the fill covers the span replaced: the primary that follows never starts after the fill ends (it
/// may overlap the last fill segment by less than that segment).
enum LiveSplice {
    /// Whether `item` replaces the primary segment that starts at `date` and lasts `duration`: its
    /// midpoint is in `[start, end)` of the break.
    static func replaces(_ item: LiveBreak, date: DateTime, duration: MediaTime) -> Bool {
        let middle = date + half(duration)
        return item.start <= middle && middle < item.end
    }

    /// Where the break's fill starts in this rendition: the date of its first replaced segment. A
    /// segment replaced with no replaced predecessor seen (the first window a viewer gets) is the
    /// first when it starts within half of it from the break's start; otherwise (a viewer who joins
    /// inside the break) the break's start.
    static func origin(
        of item: LiveBreak, date: DateTime, duration: MediaTime, previousReplaced: DateTime?
    )
        -> DateTime
    {
        if let previousReplaced { return previousReplaced }
        return date < item.start + half(duration) ? date : item.start
    }

    /// Whether the replaced segment that starts at `date` and lasts `duration` is the break's last
    /// in this playlist: a next segment as long would not be replaced (its midpoint is at or after
    /// the break's end).
    static func isLast(in item: LiveBreak, date: DateTime, duration: MediaTime) -> Bool {
        date + duration + half(duration) >= item.end
    }

    /// Whether a fill segment from `start` to `end` (counted from the splice-in) is brought by a
    /// replaced segment ending at `limit` (counted from the splice-in), in a break of `duration`: its
    /// midpoint is before `duration`, and it ends by `limit` or, for the break's last replaced segment,
    /// starts before `limit` (so the fill covers the span replaced, and the ads keep the pace of primary
    /// until then).
    static func brings(start: MediaTime, end: MediaTime, limit: MediaTime, duration: MediaTime, last: Bool) -> Bool {
        guard start + half(end - start) < duration else { return false }
        return last ? start < limit : end <= limit
    }

    /// Whether a fill segment ending at `end` (from the splice-in) was passed by a viewer who joins
    /// at `joined` (from the splice-in): it ends by then.
    static func passed(end: MediaTime, joined: MediaTime) -> Bool { end <= joined }

    /// Half of `time`.
    static func half(_ time: MediaTime) -> MediaTime { MediaTime(nanoseconds: time.nanoseconds / 2) }
}
