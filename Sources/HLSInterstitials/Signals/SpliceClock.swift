import HLSPlaylist
import SCTE35

/// How a channel's 90 kHz presentation clock (the PTS its SCTE-35 splice times are given in) maps
/// to its segments' dates (pure): one date and the PTS at it. With it, a section whose splice time
/// lies ahead of the segment carrying it gives its lead (``lead(of:segmentAt:)``): the break starts
/// at the splice time, known as soon as that segment appears, as an early notice's would be.
public struct SpliceClock: Hashable, Sendable {
    /// A date of the channel.
    public var date: DateTime
    /// The 33-bit PTS at ``date``.
    public var pts: UInt64

    /// A clock where `date` is at `pts`.
    public init(date: DateTime, pts: UInt64) {
        self.date = date
        self.pts = pts & Ticks.max33
    }

    /// The 33-bit PTS at `date` (modulo 2^33: across wraps).
    public func pts(at date: DateTime) -> UInt64 {
        let nanoseconds = (date - self.date).nanoseconds
        // 100,000 ns are exactly 9 ticks: no overflow for any date.
        let ticks = nanoseconds / 100_000 * 9 + nanoseconds % 100_000 * 9 / 100_000
        return (pts &+ UInt64(bitPattern: ticks)) & Ticks.max33
    }

    /// The lead `section` gives the segment starting at `date`: how far its splice time lies ahead of
    /// the segment (`SpliceInfoSection.spliceLead(segmentPTS:maximum:)` in SCTE35, at most
    /// `SpliceInfoSection.maximumSpliceLead`), nil when it does not lie ahead. The one rule of the
    /// splice-time lead: the recognizer starts the break at `date` plus it.
    public func lead(of section: SpliceInfoSection, segmentAt date: DateTime) -> MediaTime? {
        guard let ticks = section.spliceLead(segmentPTS: pts(at: date)) else { return nil }
        return MediaTime(nanoseconds: Int64(ticks) * 100_000 / 9)
    }
}
