import HLSPlaylist

/// The primary segments one viewer's stitched live playlist kept in its last window, each with its
/// Discontinuity Sequence Number: what another rendition of the same viewer aligns its first window
/// to (profile R28).
///
/// RFC 8216 §6.2.4: "Matching content in Variant Streams MUST have matching Discontinuity Sequence
/// Numbers." Each media playlist of a viewer is stitched by its own ``LiveStitcher``, whose numbers
/// start from the first window it sees; a rendition first asked for later (an audio track chosen
/// after some breaks, or a stitcher made again after it expired) would otherwise count fewer
/// discontinuities than the video it plays with. hls.js, for one, holds an audio fragment until the
/// main stream has a timestamp for its discontinuity number, so such a mismatch stops playback
/// without an error.
public struct LiveTimeline: Sendable, Hashable {
    /// One kept primary segment.
    public struct Entry: Sendable, Hashable {
        /// Its EXT-X-PROGRAM-DATE-TIME.
        public var date: DateTime
        /// Its EXTINF duration.
        public var duration: MediaTime
        /// Its Discontinuity Sequence Number in the stitched playlist.
        public var discontinuitySequence: Int64

        /// Creates an entry.
        public init(date: DateTime, duration: MediaTime, discontinuitySequence: Int64) {
            self.date = date
            self.duration = duration
            self.discontinuitySequence = discontinuitySequence
        }
    }

    /// The kept primary segments, in playlist order.
    public var entries: [Entry]

    /// A timeline of `entries`.
    public init(entries: [Entry] = []) { self.entries = entries }

    /// How much to add to the Discontinuity Sequence Numbers of `self` so that its first kept
    /// primary segment whose midpoint lies in a kept segment of `other` gets that segment's number;
    /// nil when none does, or when the difference does not fit in 64 bits.
    ///
    /// `other`'s entries are sorted by date once and searched by halves, so aligning two windows of
    /// n and m segments costs O((n + m) log m), however long the origin's window (dates that step
    /// back included: an entry is then matched to one of the spans holding its midpoint).
    public func offset(to other: LiveTimeline) -> Int64? {
        let sorted = other.entries.sorted { $0.date < $1.date }
        for entry in entries {
            let middle = entry.date + MediaTime(nanoseconds: entry.duration.nanoseconds / 2)
            // The last entry that starts at or before the midpoint.
            var low = 0
            var high = sorted.count
            while low < high {
                let mid = (low + high) / 2
                if sorted[mid].date <= middle { low = mid + 1 } else { high = mid }
            }
            guard low > 0 else { continue }
            let match = sorted[low - 1]
            guard middle < match.date + match.duration else { continue }
            let (difference, overflow) = match.discontinuitySequence.subtractingReportingOverflow(
                entry.discontinuitySequence)
            return overflow ? nil : difference
        }
        return nil
    }
}
