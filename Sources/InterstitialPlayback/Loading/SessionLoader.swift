import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import PlaybackCoordination
import PlaybackEngine

/// Loads what a playback session needs over HTTP (or from files): the primary presentation, asset
/// lists, interstitial assets and media segments.
///
/// Every request carries the session's `_HLS_primary_id` (the state machine adds it to URLs) and the
/// same value as `X-PLAYBACK-SESSION-ID` (R19). Redirects and timeouts follow ``PlaylistLoader``'s
/// configuration: 5 redirects and 60 s by default (R20), the deadline waited for with the player's
/// ``Player/Configuration/timeLimitSleep``.
struct SessionLoader: Sendable {
    let loader: PlaylistLoader
    /// Media Initialization Sections loaded, by URL: each is loaded once per rendition.
    private let initializationSections = NIOLockedValueBox([String: [UInt8]]())

    /// A loader with the player's session ID, redirects, timeout and time-limit sleep.
    init(configuration: Player.Configuration, logger: Logger?) {
        loader = PlaylistLoader(
            configuration: .init(
                timeout: configuration.timeout, maximumRedirects: configuration.maximumRedirects,
                headers: [("X-PLAYBACK-SESSION-ID", configuration.primaryID)]),
            logger: logger, sleep: configuration.timeLimitSleep)
    }

    func shutdown() async { try? await loader.shutdown() }

    /// Loads the primary with ``PresentationLoader`` (the one loader of presentations): a media
    /// playlist, or a multivariant playlist's first variant and the audio rendition that matches the
    /// preference (the default one without), every derived URL tagged with `_HLS_primary_id` (R19).
    /// A live reload (`mediaOnly`) fetches the media playlist at `url` only: the other renditions
    /// serve X-SNAP, which uses them for VOD only.
    func loadPrimary(
        _ url: String, mediaOnly: Bool, primaryID: String, preferred: TrackSelection = TrackSelection()
    ) async throws -> PrimaryPresentation {
        let presentations = PresentationLoader(fetcher: loader)
        if mediaOnly {
            return PrimaryPresentation(media: try await presentations.loadMedia(url).playlist, mediaURL: url)
        }
        let options = PresentationLoader.Options(
            selectAudio: { TrackMatcher.select($0, matching: preferred.audio, type: "AUDIO") },
            deriveURL: { PlaybackStateMachine.tagged($0, primaryID: primaryID) })
        let presentation: PresentationLoader.Presentation
        do {
            presentation = try await presentations.load(url, options: options)
        } catch let error as PresentationLoader.PresentationError {
            throw LoadError(.notAPlaylist, location: url, error.description)
        }
        if let failure = presentation.renditionFailures.first { throw failure.error }
        guard let multivariant = presentation.multivariantPlaylist, let variant = presentation.variant else {
            return PrimaryPresentation(media: presentation.primary, mediaURL: presentation.primaryURL)
        }
        let (renditions, _, tracks) = Self.select(in: multivariant, variant: variant, matching: preferred)
        return PrimaryPresentation(
            media: presentation.primary, mediaURL: presentation.primaryURL, others: presentation.renditions,
            otherURLs: presentation.renditionURLs, renditions: renditions, tracks: tracks,
            variants: PrimaryVariant.variants(
                of: multivariant, base: presentation.multivariant?.finalLocation ?? url,
                derive: { PlaybackStateMachine.tagged($0, primaryID: primaryID) }))
    }

    /// Loads an asset list.
    func loadAssetList(_ url: String) async throws -> AssetList {
        let resource = try await loader.loadResource(url)
        do {
            return try AssetList.decode(resource.bytes)
        } catch {
            throw LoadError(.notAPlaylist, location: url, "the asset list is not valid: \(error)")
        }
    }

    /// Loads and reads a Date Range Schedule's document through ``PresentationLoader/loadSchedule(_:limits:policy:)``
    /// (the one place it is fetched): the same loader, redirects, deadline and byte bound as asset
    /// lists (R20, R27). A load or read failure is the result's error.
    func loadSchedule(_ url: String) async -> Result<DateRangeScheduleDocument, DateRangeScheduleError> {
        await PresentationLoader(fetcher: loader).loadSchedule(url)
    }

    /// The audio and subtitle renditions a variant offers, the audio one to load (if it has a URI),
    /// and the selection that matches `wanted` (``TrackMatcher``).
    static func select(
        in multivariant: MultivariantPlaylist, variant: VariantStream, matching wanted: TrackSelection
    ) -> (renditions: [Rendition], audio: Rendition?, tracks: TrackSelection) {
        let primary = PrimaryVariant(variant, of: multivariant, base: "")
        let (audio, tracks) = primary.matching(wanted)
        return (primary.renditions, audio, tracks)
    }

    /// Loads an interstitial asset: a media playlist, or a multivariant playlist's first variant with
    /// the audio and subtitle renditions that match the primary's `tracks`, and the media playlist
    /// of the audio rendition selected (its segments play with the variant's). Its own interstitials
    /// are ignored (R25).
    func loadAsset(
        _ url: String, primaryID: String, tracks: TrackSelection = TrackSelection()
    ) async throws
        -> AssetMedia
    {
        let (resource, result) = try await loader.loadPlaylist(url)
        var playlist: MediaPlaylist
        var base = resource.finalLocation
        var selected: TrackSelection?
        var others: [AssetMedia] = []
        switch result.playlist {
        case .media(let media): playlist = media
        case .multivariant(let multivariant):
            guard let variant = multivariant.variants.first else {
                throw LoadError(.notAPlaylist, location: url, "the asset's multivariant playlist has no variant stream")
            }
            let choice = Self.select(in: multivariant, variant: variant, matching: tracks)
            if !choice.renditions.isEmpty { selected = choice.tracks }
            let loaded = try await media(
                PlaybackStateMachine.tagged(URIReference.resolve(variant.uri, against: base), primaryID: primaryID))
            if let uri = choice.audio?.uri {
                let audio = try await media(
                    PlaybackStateMachine.tagged(URIReference.resolve(uri, against: base), primaryID: primaryID))
                guard audio.playlist.hasEndList else {
                    throw LoadError(
                        .notAPlaylist, location: audio.url,
                        "interstitial assets \"MUST be VOD assets\" (App. D.1); this audio rendition has no EXT-X-ENDLIST"
                    )
                }
                others.append(AssetMedia(playlist: audio.playlist, url: audio.url))
            }
            playlist = loaded.playlist
            base = loaded.url
        }
        guard playlist.hasEndList else {
            throw LoadError(
                .notAPlaylist, location: url,
                "interstitial assets \"MUST be VOD assets\" (App. D.1); this playlist has no EXT-X-ENDLIST")
        }
        var asset = AssetMedia(playlist: playlist, url: base, tracks: selected)
        asset.otherRenditions = others
        return asset
    }

    /// Loads a media segment's bytes.
    func loadSegment(_ url: String) async throws -> [UInt8] {
        try await loader.loadResource(url).bytes
    }

    /// Loads the media segment `request` asks for, as a chunk that says where it comes from; with
    /// `initializationSections`, with the bytes of its EXT-X-MAP, loaded once per URL and kept.
    func loadChunk(
        _ request: PlaybackStateMachine.LoadRequest, initializationSections: Bool
    ) async throws -> MediaChunk {
        let bytes = try await loadSegment(request.url)
        var chunk = MediaChunk(url: request.url, bytes: bytes)
        guard let origin = request.origin else { return chunk }
        switch origin.source {
        case .primary: chunk.source = .primary
        case .interstitial(let eventID, let assetIndex):
            chunk.source = .interstitial(eventID: eventID, assetIndex: assetIndex)
        }
        chunk.rendition = origin.rendition
        chunk.index = origin.index
        chunk.playlistDuration = origin.duration
        if initializationSections, let map = origin.initializationSection {
            if let cached = self.initializationSections.withLockedValue({ $0[map] }) {
                chunk.initializationSection = cached
            } else {
                let section = try await loader.loadResource(map).bytes
                self.initializationSections.withLockedValue { $0[map] = section }
                chunk.initializationSection = section
            }
        }
        return chunk
    }

    private func media(_ url: String) async throws -> (playlist: MediaPlaylist, url: String) {
        let (resource, result) = try await loader.loadPlaylist(url)
        guard case .media(let playlist) = result.playlist else {
            throw LoadError(.notAPlaylist, location: url, "expected a media playlist, found a multivariant playlist")
        }
        return (playlist, resource.finalLocation)
    }

}
