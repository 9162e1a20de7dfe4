import HLSInterstitials
import HLSPlaylist

extension StitchedService {
    // MARK: One answer for every rendition

    /// The ad's audio renditions for the primary's demuxed audio: for each primary audio rendition
    /// played with the playlist stitched (``Context/primaryAudio``, in its multivariant playlist's
    /// order), the ad audio rendition ``StitchRenditionChooser`` picks for it in the audio group of
    /// `adVariant` (the ad variant ``StitchVariantChooser`` picked for the primary variant), judged
    /// with what the media of the ad's renditions says (``StitchedAudioProbe``).
    ///
    /// The one place where an ad's audio decides whether it is stitched: the video variant, audio
    /// rendition and subtitle playlists of a viewer all ask it, so an ad that one audio rendition
    /// cannot take is left out of every rendition, with the same reason and message (a demuxed
    /// primary plays its video and audio playlists together: one that stitched the ad and one that
    /// did not would play on different timelines). Muxed audio (no AUDIO group, or renditions
    /// without URI: `primaryAudio` is empty) needs nothing: the answer is empty.
    ///
    /// - Parameters:
    ///   - ad: the ad's playlist as loaded: a multivariant playlist, or one media playlist (which has
    ///     no audio rendition to give a demuxed primary).
    ///   - url: where `ad` was loaded (its renditions' URIs resolve against it).
    ///   - adVariant: the ad variant stitched into the primary variant; nil when `ad` is a media playlist.
    /// - Throws: ``AdRenditionLoader/Failure`` `media` when the ad is one media playlist or when an ad
    ///   has no audio rendition that fits one of the primary's (the chooser's message, for the first
    ///   such primary rendition); `measuring` while the media of any of the ad renditions that can
    ///   matter is being read (not for this server's conditioned creatives, made to fit).
    func audioFit(
        of ad: Playlist, at url: String, adVariant: VariantStream?, _ context: Context
    ) throws(AdRenditionLoader.Failure) -> [(primary: Rendition, ad: Rendition)] {
        guard let first = context.primaryAudio.first else { return [] }
        guard case .multivariant(let multivariant) = ad, let adVariant else {
            throw AdRenditionLoader.Failure(
                reason: "media",
                message:
                    "\(url) is one media playlist: it has no audio rendition to stitch into the primary's audio rendition playlists (AUDIO group \(first.groupID))"
            )
        }
        // What the media of each of the group's renditions says (read in the background), when it
        // can matter to one of the primary's renditions.
        var measured: [String: StitchMeasuredAudio] = [:]
        var reading: [String] = []
        if !url.hasPrefix(context.base + "/creatives/") {
            for candidate in multivariant.renditions
            where candidate.type == "AUDIO" && candidate.groupID == adVariant.audio
                && context.primaryAudio.contains(where: {
                    StitchRenditionChooser.needsMeasurement(of: candidate, for: $0)
                })
            {
                guard let uri = candidate.uri else { continue }
                let absolute = URIReference.resolve(uri, against: url)
                switch audioProbe.lookup(absolute, publicBase: context.base) {
                case .reading: reading.append(absolute)
                case .known(let figures): if let figures { measured[uri] = figures }
                }
            }
        }
        guard reading.isEmpty else {
            throw AdRenditionLoader.Failure(
                reason: "measuring",
                message:
                    "the sample rate and channel count of the ad's audio renditions (\(reading.joined(separator: ", "))) are being read from their media; until then the fallback plays in every rendition of this viewer's break"
            )
        }
        var chosen: [(primary: Rendition, ad: Rendition)] = []
        do throws(StitchingError) {
            for primary in context.primaryAudio {
                chosen.append(
                    (
                        primary,
                        try StitchRenditionChooser.choose(
                            for: primary, adVariant: adVariant, in: multivariant, at: "ad \(url)", measured: measured)
                    ))
            }
        } catch {
            throw AdRenditionLoader.Failure(reason: "media", message: "\(error)")
        }
        return chosen
    }
}
