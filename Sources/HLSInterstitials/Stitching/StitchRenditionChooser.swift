import HLSPlaylist

/// Which audio rendition of an ad is stitched into an audio rendition of the primary (profile R28):
/// in the audio group of the ad variant chosen for the primary's variant
/// (``StitchVariantChooser``), the rendition with the primary rendition's LANGUAGE, else the group's
/// DEFAULT=YES one, else its first.
public enum StitchRenditionChooser {
    /// The ad's audio rendition for `primary` when `adVariant` is the ad variant stitched into the
    /// primary variant that plays it.
    ///
    /// - Throws: ``StitchingError`` `stitch-media` when `adVariant` names no audio group with a
    ///   rendition that has a URI (its audio is muxed into the video, which a demuxed primary's
    ///   audio playlist cannot take).
    public static func choose(
        for primary: Rendition, adVariant: VariantStream, in ad: MultivariantPlaylist, at location: String
    ) throws(StitchingError) -> Rendition {
        let group = ad.renditions.filter { rendition in
            rendition.type == "AUDIO" && rendition.groupID == adVariant.audio && rendition.uri != nil
        }
        guard !group.isEmpty else {
            throw StitchingError(
                .media, at: location,
                "the ad variant \(adVariant.uri) has no audio rendition playlists (AUDIO group \(adVariant.audio ?? "none")), so nothing can be stitched into the primary's audio rendition \(primary.name)"
            )
        }
        if let language = primary.language?.lowercased(),
            let same = group.first(where: { $0.language?.lowercased() == language })
        {
            return same
        }
        return group.first(where: \.isDefault) ?? group[0]
    }
}
