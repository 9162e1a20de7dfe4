import HLSInterstitials
import HLSPlaylist

extension PlaybackStateMachine {
    /// The machine's load bookkeeping: what is in flight, what each event's asset list and assets
    /// are at, which segments loaded or failed, the live reload and the preload hints.
    ///
    /// It changes only through its mutating methods; the machine decides what to load and reads
    /// the book to know what is pending.
    package struct LoadBook: Sendable {
        /// The state of an event's asset list.
        package enum ListState: Sendable, Equatable {
            /// Its load is in flight.
            case requested
            /// It loaded.
            case loaded(AssetList)
            /// Its load failed, with why.
            case failed(String)
        }

        /// The state of an asset's playlist.
        package enum AssetState: Sendable, Equatable {
            /// Its load is in flight.
            case requested
            /// It loaded.
            case loaded(AssetMedia)
            /// Its load failed, with why.
            case failed(String)
        }

        /// Each event's asset list, by event ID.
        package private(set) var lists: [String: ListState] = [:]
        /// The URL each asset list was requested at (its assets resolve against it).
        package private(set) var listURLs: [String: String] = [:]
        /// Each event's asset playlists, by event ID and asset index.
        package private(set) var assets: [String: [Int: AssetState]] = [:]
        /// The loads started and not finished.
        package private(set) var inFlight: Set<LoadKey> = []
        /// The load of the buffering sequence in flight (one at a time).
        package private(set) var bufferLoad: LoadKey?
        /// The clock time of the next live reload.
        package private(set) var nextReload: Duration?
        /// The segments loaded and failed, by identity (``PlaybackStateMachine/segmentIdentity(_:eventID:assetIndex:)``).
        package private(set) var loadedSegments: Set<String> = []
        /// See ``loadedSegments``.
        package private(set) var failedSegments: Set<String> = []
        /// The point of each preload hint at which its load starts (App. F: a random point of its range).
        package private(set) var preloadPoints: [String: MediaTime] = [:]
        /// The target event of each preload hint whose load was issued, by hint ID.
        package private(set) var preloaded: [String: String] = [:]
        /// Events whose preloaded content is discarded when its load completes (the hint was removed).
        package private(set) var discardOnArrival: Set<String> = []

        /// An empty book.
        package init() {}

        // MARK: Starting and ending loads

        /// A load started (outside the buffering sequence: the primary).
        package mutating func started(_ key: LoadKey) { inFlight.insert(key) }

        /// The buffering sequence's load `key` started at `url`: it is the one in flight, and an
        /// asset list or asset it asks for is now requested.
        package mutating func startedBuffering(_ key: LoadKey, url: String) {
            bufferLoad = key
            inFlight.insert(key)
            switch key {
            case .asset(let id, let index): assets[id, default: [:]][index] = .requested
            case .assetList(let id):
                lists[id] = .requested
                listURLs[id] = url
            default: break
            }
        }

        /// Load `key` finished (loaded or failed): it is no longer in flight.
        package mutating func finished(_ key: LoadKey) {
            inFlight.remove(key)
            if bufferLoad == key { bufferLoad = nil }
        }

        /// Load `key` was abandoned: it may be asked for again.
        package mutating func cancelled(_ key: LoadKey) {
            finished(key)
            if case .assetList(let id) = key { lists.removeValue(forKey: id) }
            if case .asset(let id, let index) = key { assets[id]?.removeValue(forKey: index) }
        }

        // MARK: Results

        /// Event `id`'s asset list loaded; false when it is discarded (its preload hint was removed).
        package mutating func listLoaded(_ id: String, _ list: AssetList) -> Bool {
            finished(.assetList(id))
            if discardOnArrival.remove(id) != nil {
                lists.removeValue(forKey: id)
                listURLs.removeValue(forKey: id)
                return false
            }
            lists[id] = .loaded(list)
            return true
        }

        /// Asset `index` of event `id` loaded; false when it is discarded (its preload hint was removed).
        package mutating func assetLoaded(_ id: String, _ index: Int, _ media: AssetMedia) -> Bool {
            finished(.asset(id, index))
            if index == 0, discardOnArrival.remove(id) != nil {
                assets[id]?.removeValue(forKey: 0)
                return false
            }
            assets[id, default: [:]][index] = .loaded(media)
            return true
        }

        /// Load `key` failed with `message`.
        package mutating func failed(_ key: LoadKey, _ message: String) {
            finished(key)
            switch key {
            case .assetList(let id): lists[id] = .failed(message)
            case .asset(let id, let index): assets[id, default: [:]][index] = .failed(message)
            case .segment(let identity): failedSegments.insert(identity)
            case .primary, .variant, .schedule: break
            }
        }

        /// The segment `identity` loaded.
        package mutating func segmentLoaded(_ identity: String) {
            finished(.segment(identity))
            loadedSegments.insert(identity)
        }

        /// The segment `identity` counts as loaded: the buffer holds its time (another variant's
        /// segment loaded it).
        package mutating func buffered(_ identity: String) { loadedSegments.insert(identity) }

        /// Forgets what was loaded for event `id` (its list and assets), so that it loads again.
        package mutating func forget(eventID id: String) {
            lists.removeValue(forKey: id)
            listURLs.removeValue(forKey: id)
            assets.removeValue(forKey: id)
        }

        // MARK: Live reloads

        /// The next live reload is due at `time` (nil: none).
        package mutating func scheduleReload(at time: Duration?) { nextReload = time }

        /// Whether a live reload is due at `clock` (and none is in flight); it is taken.
        package mutating func takeReload(at clock: Duration) -> Bool {
            guard let reload = nextReload, reload <= clock, !inFlight.contains(.primary) else { return false }
            nextReload = nil
            return true
        }

        // MARK: Preload hints

        /// Hint `id`'s load starts at `point`.
        package mutating func place(hint id: String, at point: MediaTime) { preloadPoints[id] = point }

        /// Hint `id`'s load for event `target` was issued.
        package mutating func issued(hint id: String, for target: String) { preloaded[id] = target }

        /// Hint `id` was removed: forgets its point and returns the event it loaded for, if its load
        /// was issued.
        package mutating func removeHint(_ id: String) -> String? {
            preloadPoints.removeValue(forKey: id)
            return preloaded.removeValue(forKey: id)
        }

        /// What is in flight for event `id`'s content is discarded when it arrives.
        package mutating func discardWhenArriving(_ id: String) {
            if inFlight.contains(.assetList(id)) || inFlight.contains(.asset(id, 0)) { discardOnArrival.insert(id) }
        }

        // MARK: Reading

        /// Whether the segment `identity` is neither loaded, failed nor loading.
        package func isPending(_ identity: String) -> Bool {
            !loadedSegments.contains(identity) && !failedSegments.contains(identity)
                && !inFlight.contains(.segment(identity))
        }
    }
}
