import HLSLoading
import HLSPlaylist
import PlaybackCoordination
import PlaybackEngine

extension Player {
    /// How the primary's variant is chosen: by measured throughput, capped by
    /// `VariantPolicy.preferredPeakBitRate`, or pinned with `VariantPolicy.pinnedVariant`.
    /// Setting it applies from the next thing that happens.
    public var variantPolicy: VariantPolicy {
        get { state.withLockedValue { $0.machine.variantPolicy } }
        set {
            state.withLockedValue { $0.machine.use(newValue) }
            tick()
            wakeContinuation.yield()
        }
    }

    /// The configuration of interstitial items (AVFoundation's `templatePlayerItem`): preferred
    /// tracks, lookahead, client rebinding and limits. Its lookahead starts as
    /// ``Configuration/lookahead``; setting it applies from the next thing that happens.
    public var interstitialItemTemplate: InterstitialItemTemplate {
        get { state.withLockedValue { $0.machine.template } }
        set {
            state.withLockedValue { $0.machine.use(newValue) }
            tick()
            wakeContinuation.yield()
        }
    }

    /// How skip button labels are found: the application's strings table (the controller's
    /// ``InterstitialEventController/localizedStrings``) and the default label ("Skip"). Setting it
    /// applies to the next label reported.
    public var skipControlLabels: SkipControlLabels {
        get { state.withLockedValue { $0.machine.skipControlLabels } }
        set { state.withLockedValue { $0.machine.use(newValue) } }
    }

    /// The primary time ranges whose segments are loaded (`loadedTimeRanges` of the item); empty
    /// when segments are not loaded.
    public var loadedTimeRanges: [Range<MediaTime>] { state.withLockedValue { $0.machine.loadedPrimaryRanges } }

    /// The index of the variant playing, in the multivariant playlist's order; nil for a media
    /// playlist or before the primary loads.
    public var currentVariant: Int? { state.withLockedValue { $0.machine.variantIndex } }

    /// The measured throughput in bits per second; nil before a segment load took measurable time.
    public var measuredThroughput: Double? { state.withLockedValue { $0.machine.throughput.bitsPerSecond } }

    /// Loads a variant's media playlist and the audio rendition of its group that matches `tracks`
    /// (``TrackMatcher``, as at the first load): what the machine switches to.
    func loadVariant(_ variant: PrimaryVariant, tracks: TrackSelection) async throws -> PrimaryPresentation {
        let presentations = PresentationLoader(fetcher: loader.loader)
        let media = try await presentations.loadMedia(variant.url)
        let (chosenAudio, selected) = variant.matching(tracks)
        var others: [MediaPlaylist] = []
        var otherURLs: [String] = []
        if let uri = chosenAudio?.uri {
            let url = PlaybackStateMachine.tagged(
                URIReference.resolve(uri, against: variant.base), primaryID: configuration.primaryID)
            let audio = try await presentations.loadMedia(url)
            others.append(audio.playlist)
            otherURLs.append(audio.loaded.finalLocation)
        }
        return PrimaryPresentation(
            media: media.playlist, mediaURL: media.loaded.finalLocation, others: others, otherURLs: otherURLs,
            renditions: variant.renditions, tracks: selected)
    }

    /// A live reload's audio rendition, for X-SNAP (R6) and its segments: its playlist and where it
    /// came from, or none when it fails (the reload goes on with the primary alone and the rendition
    /// as last seen).
    func reloadRendition(_ url: String) async -> (playlists: [MediaPlaylist], urls: [String]) {
        guard let loaded = try? await PresentationLoader(fetcher: loader.loader).loadMedia(url) else { return ([], []) }
        return ([loaded.playlist], [loaded.loaded.finalLocation])
    }
}
