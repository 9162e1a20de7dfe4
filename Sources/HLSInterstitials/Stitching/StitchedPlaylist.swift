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

    /// Where a break whose pod was cut ends for the viewer: the first primary segment after it
    /// (profile R28). A pod cut by X-PLAYOUT-LIMIT, a break shorter than the pod or an early return
    /// never lists its last ad's last segment, so the pod's `breakEnd` goes with this segment.
    public struct Resumption: Sendable, Hashable {
        /// The break (event) whose pod was cut.
        public var breakID: String
        /// The position of the primary segment among the stitched playlist's segments.
        public var segment: Int

        /// Creates a resumption.
        public init(breakID: String, segment: Int) {
            self.breakID = breakID
            self.segment = segment
        }
    }

    /// The stitched playlist; unchanged lines of the primary are written verbatim.
    public var document: PlaylistDocument
    /// The ads stitched, in playlist order.
    public var ads: [AdSpan]
    /// The breaks whose fill reached ``LiveStitcher/maximumFillSegments`` in the segments this
    /// stitch decided (so each is reported once per viewer and playlist): the rest of each is
    /// left empty.
    public var cappedBreaks: [String] = []
    /// The breaks whose pod was cut, each with the first primary segment after it, in playlist
    /// order. In live, what a segment is is decided once, so a segment is reported in every window
    /// that lists it.
    public var resumptions: [Resumption] = []

    /// The URI of segment `position` (among the playlist's segments) as written; nil when there is
    /// no such segment.
    public func uri(ofSegment position: Int) -> String? {
        guard let line = uriLine(ofSegment: position), case .uri(let uri) = document.lines[line].content else {
            return nil
        }
        return uri
    }

    /// Writes `uri` in place of segment `position`'s URI (a server that lists a segment through a
    /// URL of its own).
    ///
    /// - Throws: ``StitchingError`` `stitch-unwritable` when `uri` is not one line of the playlist
    ///   grammar or there is no such segment.
    public mutating func replaceURI(ofSegment position: Int, with uri: String) throws(StitchingError) {
        let content = LineContent.uri(uri)
        guard let line = uriLine(ofSegment: position) else {
            throw StitchingError(.unwritable, at: document.file, "the playlist has no segment \(position)")
        }
        do throws(AttributeSyntaxError) {
            try content.checkWritable()
        } catch {
            throw StitchingError(.unwritable, at: "segment \(position)", error.message)
        }
        document.lines[line].content = content
    }

    /// The line of segment `position`'s URI.
    private func uriLine(ofSegment position: Int) -> Int? {
        guard position >= 0 else { return nil }
        var count = 0
        for index in document.lines.indices {
            guard case .uri = document.lines[index].content else { continue }
            if count == position { return index }
            count += 1
        }
        return nil
    }

    /// The playlist's bytes.
    public func write() -> [UInt8] { document.write() }
}
