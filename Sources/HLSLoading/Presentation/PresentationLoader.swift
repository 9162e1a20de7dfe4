import HLSInterstitials
import HLSPlaylist

/// Loads a presentation into what `InterstitialSchedule` needs: the primary media playlist, the
/// renditions whose segment boundaries count for snapping, and (when asked) the asset lists.
///
/// The primary is the playlist at the given location when it is a media playlist, or else the
/// first variant of that multivariant playlist. With a multivariant playlist, one audio rendition of
/// the variant's group is loaded too (``Options/selectAudio``: the DEFAULT=YES one, else the first,
/// unless the caller chooses); X-SNAP uses its boundaries with the primary's (profile R6). With
/// ``Options/loadsAssetLists``, every event's X-ASSET-LIST is loaded so that asset durations count;
/// a list that fails makes its event play nothing (R7).
///
/// Every URL the loader derives (variant, rendition, asset list) is resolved against the final
/// location of the playlist that names it, then passed through ``Options/deriveURL`` (a player adds
/// its `_HLS_primary_id` there, R19). Loading goes through a ``PresentationFetcher``: a
/// ``PlaylistLoader`` for files and http(s) URLs, or a server's own.
///
/// ```swift
/// let presentation = try await PresentationLoader(fetcher: loader).load(url)
/// let schedule = InterstitialSchedule.resolve(presentation.scheduleInput)
/// ```
public struct PresentationLoader: Sendable {
    /// What to load besides the primary, and how to derive URLs.
    public struct Options: Sendable {
        /// Chooses the audio rendition to load for snapping among the first variant's audio group
        /// (those with a URI); `nil` loads no rendition.
        public var selectAudio: (@Sendable ([Rendition]) -> Rendition?)?
        /// Whether to load every event's X-ASSET-LIST.
        public var loadsAssetLists: Bool
        /// Whether to load the primary's Date Range Schedule documents, whose entries then count as
        /// date ranges of the playlist (profile R27).
        public var loadsSchedules: Bool
        /// Turns a URL the loader derived (resolved, absolute or a file path) into the one it loads.
        public var deriveURL: @Sendable (String) -> String

        /// Creates options.
        ///
        /// - Parameters:
        ///   - selectAudio: the audio rendition to load for snapping; by default ``defaultAudio(_:)``.
        ///   - loadsAssetLists: whether to load the asset lists (default no).
        ///   - loadsSchedules: whether to load the Date Range Schedule documents (default no).
        ///   - deriveURL: applied to every derived URL (default: unchanged).
        public init(
            selectAudio: (@Sendable ([Rendition]) -> Rendition?)? = PresentationLoader.defaultAudio,
            loadsAssetLists: Bool = false, loadsSchedules: Bool = false,
            deriveURL: @escaping @Sendable (String) -> String = { $0 }
        ) {
            self.selectAudio = selectAudio
            self.loadsAssetLists = loadsAssetLists
            self.loadsSchedules = loadsSchedules
            self.deriveURL = deriveURL
        }
    }

    /// A resource that failed to load while the presentation itself loaded.
    public struct Failure: Sendable, CustomStringConvertible {
        /// The URL that failed.
        public var url: String
        /// The event whose asset list it is; `nil` for a rendition.
        public var eventID: String?
        /// Why.
        public var error: any Error

        /// Creates a failure.
        public init(url: String, eventID: String?, error: any Error) {
            self.url = url
            self.eventID = eventID
            self.error = error
        }

        /// The URL and the error.
        public var description: String { "\(url): \(error)" }
    }

    /// A loaded presentation.
    public struct Presentation: Sendable {
        /// The multivariant playlist, when the location named one.
        public var multivariant: LoadedPlaylist?
        /// The variant the primary is (the multivariant playlist's first).
        public var variant: VariantStream?
        /// The primary media playlist as loaded.
        public var primaryPlaylist: LoadedPlaylist
        /// The primary media playlist.
        public var primary: MediaPlaylist
        /// The audio rendition chosen with ``Options/selectAudio``.
        public var audio: Rendition?
        /// The media playlists of the renditions loaded for snapping.
        public var renditions: [MediaPlaylist] = []
        /// Where each of ``renditions`` was loaded from (after redirects), in the same order.
        public var renditionURLs: [String] = []
        /// Renditions that failed to load (they are left out of snapping).
        public var renditionFailures: [Failure] = []
        /// The primary's interstitial events, with their asset lists when they were loaded.
        public var events: [InterstitialEvent]
        /// The events whose asset list failed to load (they play nothing, R7).
        public var failedEvents: Set<String> = []
        /// The asset lists that failed to load.
        public var assetListFailures: [Failure] = []
        /// The primary's Date Range Schedules followed, when ``Options/loadsSchedules`` was set: the
        /// entries are in ``events`` (with their `InterstitialEvent.scheduleIdentifier`) and in
        /// ``primary``'s date ranges.
        public var scheduleResolution: DateRangeScheduleResolution?

        /// The multivariant playlist itself, when the location named one (for the renditions and
        /// tracks a player offers).
        public var multivariantPlaylist: MultivariantPlaylist? {
            guard case .multivariant(let playlist)? = multivariant?.result.playlist else { return nil }
            return playlist
        }

        /// The URL the primary media playlist finally came from.
        public var primaryURL: String { primaryPlaylist.finalLocation }

        /// Whether the multivariant or the primary playlist has errors.
        public var hasErrors: Bool { multivariant?.result.hasErrors == true || primaryPlaylist.result.hasErrors }

        /// The schedule's input for this presentation (VOD or live as the primary says).
        public var scheduleInput: ScheduleInput {
            ScheduleInput(primary: primary, otherPlaylists: renditions, events: events, failedEvents: failedEvents)
        }
    }

    /// Why a presentation has no primary media playlist.
    public enum PresentationError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The multivariant playlist at this location has no variant stream.
        case noVariant(location: String)
        /// The playlist at this location, which should be a media playlist, is a multivariant one.
        case notMediaPlaylist(location: String)

        /// The location and the problem.
        public var description: String {
            switch self {
            case .noVariant(let location): "\(location): the multivariant playlist has no variant stream"
            case .notMediaPlaylist(let location):
                "\(location): expected a media playlist, found a multivariant playlist"
            }
        }
    }

    /// Where playlists and asset lists come from.
    public let fetcher: any PresentationFetcher

    /// Creates a loader over `fetcher`.
    public init(fetcher: any PresentationFetcher) { self.fetcher = fetcher }

    /// The DEFAULT=YES rendition, or else the first.
    @Sendable public static func defaultAudio(_ renditions: [Rendition]) -> Rendition? {
        renditions.first(where: \.isDefault) ?? renditions.first
    }

    /// Loads the presentation at `location`.
    ///
    /// - Throws: the fetcher's error when the playlist at `location` or the primary media playlist
    ///   cannot be loaded; ``PresentationError`` when there is no primary media playlist. Renditions
    ///   and asset lists that fail are reported in the result instead.
    public func load(_ location: String, options: Options = Options()) async throws -> Presentation {
        let first = try await fetcher.fetchPlaylist(location)
        switch first.result.playlist {
        case .media(let media):
            var presentation = Presentation(
                primaryPlaylist: first, primary: media, events: ScheduleInput.events(of: media))
            if options.loadsSchedules { await followSchedules(into: &presentation) }
            if options.loadsAssetLists { await loadAssetLists(into: &presentation, options: options) }
            return presentation
        case .multivariant(let multivariant):
            guard let variant = multivariant.variants.first else {
                throw PresentationError.noVariant(location: location)
            }
            let primary = try await loadMedia(derived(variant.uri, in: first, options))
            var presentation = Presentation(
                multivariant: first, variant: variant, primaryPlaylist: primary.loaded, primary: primary.playlist,
                events: ScheduleInput.events(of: primary.playlist))
            let group = multivariant.renditions.filter {
                $0.type == "AUDIO" && $0.groupID == variant.audio && $0.uri != nil
            }
            if let select = options.selectAudio, let audio = select(group), let uri = audio.uri {
                presentation.audio = audio
                let url = derived(uri, in: first, options)
                do {
                    let loaded = try await loadMedia(url)
                    presentation.renditions.append(loaded.playlist)
                    presentation.renditionURLs.append(loaded.loaded.finalLocation)
                } catch {
                    presentation.renditionFailures.append(Failure(url: url, eventID: nil, error: error))
                }
            }
            if options.loadsSchedules { await followSchedules(into: &presentation) }
            if options.loadsAssetLists { await loadAssetLists(into: &presentation, options: options) }
            return presentation
        }
    }

    /// Loads the media playlist at `location` alone (a live reload of the primary).
    ///
    /// - Throws: the fetcher's error, or ``PresentationError/notMediaPlaylist(location:)``.
    public func loadMedia(_ location: String) async throws -> (playlist: MediaPlaylist, loaded: LoadedPlaylist) {
        let loaded = try await fetcher.fetchPlaylist(location)
        guard case .media(let playlist) = loaded.result.playlist else {
            throw PresentationError.notMediaPlaylist(location: location)
        }
        return (playlist, loaded)
    }

    /// Loads the Date Range Schedule documents `store` lacks for `playlist` (nested ones too, as far as
    /// `policy` follows them), each once per identity (R27), with the same fetcher, limits and
    /// deadline as asset lists; a document that fails is recorded as a failure (`schedule-load`, or
    /// the reading error) and adds nothing.
    ///
    /// - Returns: the resolution of `playlist` against the store.
    public func loadSchedules(
        of playlist: MediaPlaylist, playlistURL: String, into store: inout DateRangeScheduleStore,
        limits: DateRangeScheduleDocument.Limits = .default, policy: DateRangeSchedulePolicy = .profile
    ) async -> DateRangeScheduleResolution {
        while true {
            let resolution = store.resolve(playlist: playlist, playlistURL: playlistURL, policy: policy)
            let pending = resolution.pending.filter { store.needsLoading($0.identity) }
            guard !pending.isEmpty else { return resolution }
            for schedule in pending {
                store.record(
                    await loadSchedule(schedule.resolvedURI, limits: limits, policy: policy), for: schedule.identity)
            }
        }
    }

    /// Loads and reads one schedule document: the one place a schedule's X-URI is fetched.
    public func loadSchedule(
        _ url: String, limits: DateRangeScheduleDocument.Limits = .default,
        policy: DateRangeSchedulePolicy = .profile
    ) async -> Result<DateRangeScheduleDocument, DateRangeScheduleError> {
        let bytes: [UInt8]
        do {
            bytes = try await fetcher.fetchBytes(url)
        } catch {
            return .failure(
                DateRangeScheduleError(code: .load, "\(url) cannot be loaded: \(StreamValidator.reason(error))"))
        }
        return Result { () throws(DateRangeScheduleError) in
            try DateRangeScheduleDocument.decode(bytes, limits: limits, policy: policy)
        }
    }

    private func followSchedules(into presentation: inout Presentation) async {
        var store = DateRangeScheduleStore()
        let resolution = await loadSchedules(
            of: presentation.primary, playlistURL: presentation.primaryURL, into: &store)
        presentation.scheduleResolution = resolution
        presentation.primary = resolution.applied(to: presentation.primary)
        presentation.events = resolution.events
    }

    private func derived(_ uri: String, in playlist: LoadedPlaylist, _ options: Options) -> String {
        options.deriveURL(URIReference.resolve(uri, against: playlist.finalLocation))
    }

    private func loadAssetLists(into presentation: inout Presentation, options: Options) async {
        for index in presentation.events.indices {
            guard let uri = presentation.events[index].assetListURI else { continue }
            let id = presentation.events[index].identifier
            let url = derived(uri, in: presentation.primaryPlaylist, options)
            do {
                presentation.events[index].assetList = try AssetList.decode(try await fetcher.fetchBytes(url))
            } catch {
                presentation.failedEvents.insert(id)
                presentation.assetListFailures.append(Failure(url: url, eventID: id, error: error))
            }
        }
    }
}
