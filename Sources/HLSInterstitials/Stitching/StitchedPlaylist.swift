import HLSPlaylist

/// A stitched media playlist: the document to serve and where each ad's segments are in it, so a
/// server can fire an ad's beacons as the viewer requests its segments.
public struct StitchedPlaylist: Sendable {
    /// Where one ad's segments are in the stitched playlist.
    public struct AdSpan: Sendable, Hashable {
        /// The event (break) the ad belongs to.
        public var eventID: String
        /// The ad's position in the event's pod.
        public var adIndex: Int
        /// The positions of its segments among the stitched playlist's segments.
        public var segments: Range<Int>
        /// How much of the ad is stitched: its segments' durations (less than the ad when
        /// X-PLAYOUT-LIMIT or a break's end cuts it).
        public var duration: MediaTime
    }

    /// The stitched playlist; unchanged lines of the primary are written verbatim.
    public var document: PlaylistDocument
    /// The ads stitched, in playlist order.
    public var ads: [AdSpan]
    /// The breaks whose fill reached ``LiveStitcher/maximumFillSegments`` in the segments this
    /// stitch decided (so each is reported once per viewer and playlist): the rest of each is
    /// left empty.
    public var cappedBreaks: [String] = []

    /// The playlist's bytes.
    public func write() -> [UInt8] { document.write() }
}
