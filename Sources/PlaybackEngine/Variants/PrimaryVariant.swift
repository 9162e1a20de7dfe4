import HLSPlaylist
import PlaybackCoordination

/// A variant stream of a multivariant primary, as the player switches between them: its media
/// playlist's URL, its BANDWIDTH and the renditions of its groups.
package struct PrimaryVariant: Sendable, Hashable {
    /// Its media playlist's URL, resolved against the multivariant playlist.
    package var url: String
    /// BANDWIDTH ("the peak segment bit rate", §4.4.6.2); nil when missing.
    package var bandwidth: Int?
    /// AVERAGE-BANDWIDTH, when given.
    package var averageBandwidth: Int?
    /// The audio and subtitle renditions of its groups.
    package var renditions: [Rendition]
    /// The multivariant playlist's URL, which rendition URIs resolve against.
    package var base: String

    /// Creates a variant.
    package init(url: String, bandwidth: Int?, averageBandwidth: Int? = nil, renditions: [Rendition] = [], base: String)
    {
        self.url = url
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.renditions = renditions
        self.base = base
    }

    /// The variants of a multivariant playlist loaded from `base`, in its order, each URL passed
    /// through `derive` (a player adds `_HLS_primary_id`, R19).
    package static func variants(
        of multivariant: MultivariantPlaylist, base: String, derive: (String) -> String = { $0 }
    ) -> [PrimaryVariant] {
        multivariant.variants.map { PrimaryVariant($0, of: multivariant, base: base, derive: derive) }
    }

    /// The variant `variant` of `multivariant` (loaded from `base`), with the renditions of its
    /// AUDIO and SUBTITLES groups.
    package init(
        _ variant: VariantStream, of multivariant: MultivariantPlaylist, base: String,
        derive: (String) -> String = { $0 }
    ) {
        self.init(
            url: derive(URIReference.resolve(variant.uri, against: base)),
            bandwidth: variant.bandwidth.map { Int(clamping: $0) },
            averageBandwidth: variant.averageBandwidth.map { Int(clamping: $0) },
            renditions: multivariant.renditions.filter {
                ($0.type == "AUDIO" && $0.groupID == variant.audio)
                    || ($0.type == "SUBTITLES" && $0.groupID == variant.subtitles)
            },
            base: base)
    }

    /// The renditions of this variant that match `wanted` (``TrackMatcher``): the audio one to load
    /// with it (when it has a URI) and the selection they stand for.
    package func matching(_ wanted: TrackSelection) -> (audio: Rendition?, tracks: TrackSelection) {
        let audio = TrackMatcher.select(renditions.filter { $0.type == "AUDIO" }, matching: wanted.audio, type: "AUDIO")
        let subtitles = TrackMatcher.select(
            renditions.filter { $0.type == "SUBTITLES" }, matching: wanted.subtitles, type: "SUBTITLES")
        return (
            audio, TrackSelection(audio: audio.map(TrackMatcher.option), subtitles: subtitles.map(TrackMatcher.option))
        )
    }
}
