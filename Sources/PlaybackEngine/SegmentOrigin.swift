import HLSPlaylist

/// Where a media segment load comes from: which source (primary, or an interstitial event's asset)
/// and which rendition (the media playlist that lists it), with what a renderer that reads the
/// media needs to place it (its EXT-X-MAP and its EXTINF slot).
package struct SegmentOrigin: Sendable, Hashable {
    /// The source a segment belongs to.
    package enum Source: Sendable, Hashable {
        /// The primary presentation.
        case primary
        /// Asset `assetIndex` of the interstitial event `eventID`.
        case interstitial(eventID: String, assetIndex: Int)
    }

    /// The source.
    package var source: Source
    /// The URL of the media playlist that lists the segment.
    package var rendition: String
    /// The segment's index in that playlist.
    package var index: Int
    /// Its EXTINF duration.
    package var duration: MediaTime
    /// The absolute URL of the Media Initialization Section in force (EXT-X-MAP), if any.
    package var initializationSection: String?

    package init(
        source: Source, rendition: String, index: Int, duration: MediaTime, initializationSection: String? = nil
    ) {
        self.source = source
        self.rendition = rendition
        self.index = index
        self.duration = duration
        self.initializationSection = initializationSection
    }
}

extension Array {
    /// The element at `index`, nil when out of bounds.
    func at(_ index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
