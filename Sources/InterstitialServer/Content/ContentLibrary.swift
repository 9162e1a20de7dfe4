import AdDecisioning
import AsyncHTTPClient
import Crypto
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers

import enum MediaTiming.DecodeTimeShift

/// Serves primary content with its breaks: playlists with interstitial date ranges, media files,
/// asset lists, and the integrated timeline of VOD assets.
///
/// It routes a request to the parts that do the work: the content's ``ContentSource`` (its
/// directory or upstream origin, and its primary through the one presentation loader), the
/// ``BreakPlanner`` with the first serving of new date ranges recorded (``ServerState``), the pure
/// ``PlaylistRenderer``, the ``LiveLoopCache`` of directory channels, the
/// ``RenderedPlaylistCache`` of the playlists of directory contents, and the ``AssetListService``.
final class ContentLibrary: Sendable {
    struct Mounted: Sendable {
        var content: ServerConfiguration.Content
        var target: Target
        var rest: String
    }

    let configuration: ServerConfiguration
    let state: ServerState
    let logger: Logger
    let now: @Sendable () -> DateTime
    /// The server's clock (``ServerClock``): the wall clock is ``now``'s unless another is given.
    let clock: any ServerClock
    let upstream: UpstreamClient
    /// Writes upstream playlists' Date Range Schedules as plain date ranges (`flattenSchedules`).
    private let scheduleFlattener: UpstreamScheduleFlattener
    private let files = PlaylistFileCache()
    /// Upstream playlists, fetched and rendered once for the viewers asking at about the same time.
    private let sharedPlaylists: UpstreamPlaylistShare<ContentResponse>
    /// The bytes of the media files served most, shared with the routes' ``FileResponder``.
    let fileBodies: FileBodyCache
    private let loops = LiveLoopCache()
    private let rendered: RenderedPlaylistCache
    private let assetLists: AssetListService
    /// The documents of the Date Range Schedules written into playlists (`interstitials: schedule`).
    let publishedSchedules = PublishedScheduleMemo()
    private let tracker = ProgramDateTimeTracker()
    /// The VOD timelines of directory contents (their files do not change while the server runs),
    /// by content ID: an asset-list request does not load the presentation again.
    private let vodTimelines = NIOLockedValueBox<[String: BreakPlanner.Timeline]>([:])
    /// What the server counts, served on `/metrics`.
    let metrics: ServerMetrics
    /// The breaks VMAP places on VOD assets.
    let vmapPlans: VMAPPlans
    /// The relay of `tracking: relay` beacons.
    let beaconRelay: BeaconRelay
    /// Sends the tracking requests the server makes itself; nil without an ad-decision client.
    let dispatcher: TrackingDispatcher?
    /// Logs and counts the SCTE-35 markers refused, once per marker (profile R29).
    let signalRefusals: SignalRefusalLog
    /// The signals of each upstream channel's primary, for its renditions without markers
    /// (``primarySignals(_:)``), by content ID.
    private let primarySignalCache = NIOLockedValueBox<
        [String: (at: ContinuousClock.Instant, breaks: [SignalledBreak])]
    >([:])
    /// The conditioning profile of each content, by ID.
    private let profiles = NIOLockedValueBox<[String: ConditioningProfile]>([:])
    /// The start of the absolute URLs written (``ServerConfiguration/publicBase(boundPort:)``).
    private let base: NIOLockedValueBox<String>
    /// The viewers seen on each live channel's playlists.
    let sessions: ViewerSessions
    /// The active audience of a live target, which sizes its preload hints (``PreloadHint``): the
    /// sessions seen (``ViewerSessions/count(_:)``) unless the library was made with another count.
    let activeSessions: @Sendable (Target) -> Int
    /// The decisions made ahead of live breaks.
    let prefetched: PrefetchCache
    /// The live decisions started, for the pacing of decisions made ahead.
    let liveDecisions = LiveDecisions()
    /// The signalled breaks' durations, for a learned expected break (standing decisions).
    let breakLengths = BreakLengthLog()
    /// Asks the targets' VAST ad servers; nil when the server was made without one (tests).
    let adDecisions: VASTDecisionClient?
    /// Where replicas claim and share decisions made ahead; nil: this replica alone (SQLite).
    let ledger: (any DecisionLedger)?
    /// This replica's name in the ledger's claims (``replicaName(port:)``).
    let replica: String

    init(
        configuration: ServerConfiguration, state: ServerState, inventory: any AdInventory, client: HTTPClient,
        logger: Logger, now: @escaping @Sendable () -> DateTime,
        rendered: RenderedPlaylistCache = RenderedPlaylistCache(), adDecisions: VASTDecisionClient? = nil,
        metrics: ServerMetrics = ServerMetrics(), conditioner: CreativeConditioner? = nil,
        fileBodies: FileBodyCache = FileBodyCache(), ledger: (any DecisionLedger)? = nil,
        activeSessions: (@Sendable (Target) -> Int)? = nil, clock: (any ServerClock)? = nil
    ) {
        let limits = configuration.limits
        let sessions = ViewerSessions(
            limits: ViewerSessions.Limits(
                idle: limits.prefetchSessionIdle, count: limits.prefetchSessions, bytes: limits.prefetchSessionBytes,
                idBytes: limits.viewerIDBytes))
        self.sessions = sessions
        replica = Self.replicaName(port: configuration.port)
        self.activeSessions = activeSessions ?? { sessions.count($0) }
        prefetched = PrefetchCache(
            limits: PrefetchCache.Limits(
                count: limits.prefetchDecisions, bytes: limits.prefetchBytes, standing: limits.standingDecisions))
        self.adDecisions = adDecisions
        self.ledger = ledger
        self.metrics = metrics
        signalRefusals = SignalRefusalLog(logger: logger, metrics: metrics)
        self.fileBodies = fileBodies
        sharedPlaylists = UpstreamPlaylistShare(reuse: configuration.limits.upstreamPlaylistReuse.duration)
        self.configuration = configuration
        self.rendered = rendered
        self.state = state
        self.logger = logger
        self.now = now
        let clock = clock ?? SystemServerClock(date: now)
        self.clock = clock
        upstream = UpstreamClient(configuration: configuration, client: client, logger: logger)
        scheduleFlattener = UpstreamScheduleFlattener(upstream: upstream, logger: logger, metrics: metrics, now: now)
        vmapPlans = VMAPPlans(
            fetcher: adDecisions?.fetcher ?? AdServerFetcher(client: client, policy: configuration.adServerFetch),
            logger: logger)
        // A random key until the server shares the store's (``BeaconRelay/share(through:)``).
        beaconRelay = BeaconRelay(
            lifetime: configuration.limits.beaconLifetime,
            budget: BeaconBudget(
                perAddress: configuration.limits.beaconsPerAddress, perViewer: configuration.limits.beaconsPerViewer),
            now: now)
        dispatcher = adDecisions?.dispatcher
        assetLists = AssetListService(
            configuration: configuration, state: state, inventory: inventory, logger: logger, metrics: metrics,
            vast: adDecisions, clock: clock, vmapPlans: vmapPlans, conditioner: conditioner, relay: beaconRelay,
            prefetched: prefetched, ledger: ledger, liveDecisions: liveDecisions, owner: replica, sessions: sessions)
        base = NIOLockedValueBox(configuration.publicBase(boundPort: configuration.port))
    }

    /// This replica's name in the ledger's claims: its host name and port, the same after a restart,
    /// so that a replica restarted inside a retrieval window takes back the claims it had not decided
    /// yet at once (another replica waits for them to lapse); a random name when the port is picked
    /// at start (0).
    static func replicaName(port: Int) -> String {
        port == 0 ? UUID().uuidString : "\(ProcessInfo.processInfo.hostName):\(port)"
    }

    /// Records the port the server is bound to (the configured one may be 0), for absolute URLs.
    func serverBound(port: Int) {
        base.withLockedValue { $0 = configuration.publicBase(boundPort: port) }
    }

    /// The `scheme://host[:port]` absolute URLs start with; it comes from the configuration, never
    /// from a request.
    var publicBase: String { base.withLockedValue { $0 } }

    /// The content whose path is the longest prefix of `path`.
    func mounted(_ path: String) -> Mounted? {
        var best: Mounted?
        for (kind, list) in [(Target.Kind.vod, configuration.vod), (.live, configuration.live)] {
            for content in list where path.hasPrefix(content.path + "/") {
                if best.map({ $0.content.path.count < content.path.count }) ?? true {
                    best = Mounted(
                        content: content, target: Target(kind, content.id),
                        rest: String(path.dropFirst(content.path.count + 1)))
                }
            }
        }
        return best
    }

    /// Where a content's playlists come from.
    func source(_ content: ServerConfiguration.Content) -> ContentSource {
        ContentSource(content: content, files: files, upstream: upstream)
    }

    /// Answers a GET under a content path: the one function that answers a content request, for
    /// both lanes.
    ///
    /// The answer is known at once (``Pending/now(_:)``) when it takes no waiting: a playlist of a
    /// directory content already rendered for what it depends on (``RenderedPlaylistCache``: the
    /// stored state's version, a live window's last segment, the preload hints' length), a media
    /// file of a directory content, or an asset list filled at once
    /// (``AssetListService/assetList(query:target:planner:timeline:publicBase:userAgent:viewerIP:profile:)``).
    /// Anything that must be loaded, planned, rendered or asked first is found later
    /// (``Pending/later(_:)``), with nothing done before. The ``FastLane`` gives the answers known
    /// at once on a connection's event loop; the `/**` route waits for the others.
    ///
    /// - Throws: the request's error when it is known without waiting (a bad path, a missing file,
    ///   a bad asset-list query).
    func answer(
        _ mounted: Mounted, query: [String: String], userAgent: String? = nil, viewerIP: String? = nil
    ) throws(APIError) -> Pending<ContentResponse> {
        if mounted.target.kind == .vod, needsVMAP(mounted) {
            return .later { [self] () async throws(APIError) -> ContentResponse in
                try await prepareVMAP(mounted)
                return try await content(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP).resolve()
            }
        }
        return try content(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP)
    }

    /// ``answer(_:query:userAgent:viewerIP:)``, waited for.
    func get(
        _ mounted: Mounted, query: [String: String], userAgent: String? = nil, viewerIP: String? = nil
    ) async throws(APIError) -> ContentResponse {
        try await answer(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP).resolve()
    }

    /// ``answer(_:query:userAgent:viewerIP:)`` once a VOD asset's VMAP breaks are known.
    private func content(
        _ mounted: Mounted, query: [String: String], userAgent: String?, viewerIP: String?
    ) throws(APIError) -> Pending<ContentResponse> {
        switch mounted.rest {
        case "asset-list.json":
            return try assetList(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP)
        case "timeline.json" where mounted.target.kind == .vod:
            return .later { [self] () async throws(APIError) -> ContentResponse in
                .json(try await timeline(mounted).jsonDocument)
            }
        case "timeline.json":
            return .later { [self] () async throws(APIError) -> ContentResponse in
                .json(try await liveTimeline(mounted).jsonDocument)
            }
        case PublishedSchedule.documentName:
            return try scheduleDocument(mounted, query: query)
        case "timeline.svg" where mounted.target.kind == .vod:
            return .later { [self] () async throws(APIError) -> ContentResponse in
                let schedule = try await timeline(mounted)
                return ContentResponse(
                    body: .bytes(Array(TimelinePicture.svg(schedule, title: mounted.content.path).utf8)),
                    contentType: "image/svg+xml", cacheControl: CachePolicy.revalidate)
            }
        default: break
        }
        guard let path = SafePath(mounted.rest) else {
            throw APIError.badRequest(code: .badPath, path: mounted.rest, "the path is not allowed")
        }
        let isPlaylist = path.text.hasSuffix(".m3u8")
        switch mounted.content.origin {
        case .directory(let directory):
            let file = path.file(in: directory)
            guard isPlaylist else {
                // A file: the ``FileResponder`` answers it, a missing one or a folder with 404 (one
                // `stat`, made there).
                if mounted.target.kind == .live, let shift = query["shift"] {
                    let name = mounted.content.path + "/" + path.text
                    return .later { [self] () throws(APIError) -> ContentResponse in
                        try shifted(file, by: shift, name: name)
                    }
                }
                return .now(Self.mediaFile(file))
            }
            if let result = files.kept(file: file) { return try render(result, mounted: mounted, path: path) }
            return .later { [self] () async throws(APIError) -> ContentResponse in
                let result = try await source(mounted.content).playlist(path.text)
                return try await render(result, mounted: mounted, path: path).resolve()
            }
        case .upstream(let entry):
            return .later { [self] () async throws(APIError) -> ContentResponse in
                try await upstreamContent(mounted, entry: entry, path: path, query: query)
            }
        }
    }

    /// The asset list a request names (``AssetListService``); `stitched`: asked for the stitched form,
    /// which fires the impressions itself as the viewer requests the ad's segments.
    func assetList(
        _ mounted: Mounted, query: [String: String], userAgent: String?, viewerIP: String?, stitched: Bool = false
    ) throws(APIError) -> Pending<ContentResponse> {
        let planner = planner(for: mounted)
        let base = publicBase
        let timeline = referenceTimeline(mounted)
        let profile: @Sendable () async -> ConditioningProfile? = { [self] in await conditioningProfile(mounted) }
        // A timeline known at once is used without a closure (the fast lane's path).
        if let known = timeline.known {
            return try assetLists.assetList(
                query: query, target: mounted.target, planner: planner, timeline: known, publicBase: base,
                userAgent: userAgent, viewerIP: viewerIP, profile: profile, stitched: stitched)
        }
        return try timeline.then { [self] timeline throws(APIError) in
            try assetLists.assetList(
                query: query, target: mounted.target, planner: planner, timeline: timeline, publicBase: base,
                userAgent: userAgent, viewerIP: viewerIP, profile: profile, stitched: stitched)
        }
    }

    /// A playlist or file of an upstream content, fetched.
    private func upstreamContent(
        _ mounted: Mounted, entry: String, path: SafePath, query: [String: String]
    ) async throws(APIError) -> ContentResponse {
        let url = UpstreamClient.upstreamURL(entry: entry, path: path, query: query)
        let viewerQuery = !UpstreamQuery.forwarded(query, path: path).isEmpty
        if UpstreamQuery.isPlaylist(path) {
            // One fetch and one rendering per content and URL serve every viewer asking within a
            // second (two contents on one upstream have their own breaks).
            let key = mounted.content.id + "\n" + url
            return try await sharedPlaylists.playlist(key) { () async throws(APIError) -> ContentResponse in
                guard
                    case .playlist(let fetched) = try await self.upstream.fetch(
                        url, playlist: true, viewerQuery: viewerQuery)
                else {
                    throw APIError(status: 502, code: .upstreamFailed, "\(url) was not read whole")
                }
                let result = try await self.flattened(fetched, mounted: mounted, url: url)
                return try await self.renderUpstream(result, mounted: mounted, path: path)
            }
        }
        let type = try UpstreamMediaType.proxied(path.text, name: mounted.rest)
        switch try await upstream.fetch(url, playlist: false, viewerQuery: viewerQuery) {
        case .file(let body, _):
            return ContentResponse(body: .stream(body), contentType: type, cacheControl: CachePolicy.proxiedMedia)
        case .playlist(let fetched):
            let result = try await flattened(fetched, mounted: mounted, url: url)
            return try await renderUpstream(result, mounted: mounted, path: path)
        }
    }

    /// `result`, fetched from `url`, with its Date Range Schedules written as plain date ranges
    /// when the content flattens them (`flattenSchedules`), else as it is.
    private func flattened(
        _ result: ParseResult, mounted: Mounted, url: String
    ) async throws(APIError) -> ParseResult {
        guard mounted.content.flattensSchedules else { return result }
        return try await scheduleFlattener.flatten(result, url: url)
    }

    /// The answer to `HEAD` of an asset list: the request is checked and the break looked up as for
    /// `GET`, but nothing is decided (no viewer attempt counted, no ad server asked); the fields are
    /// those of the `GET`, with no body.
    ///
    /// - Throws: 400 for a bad request, 404 for a break that is not there or not filled by the server.
    func assetListHead(_ mounted: Mounted, query: [String: String]) async throws(APIError) -> ContentResponse {
        if mounted.target.kind == .vod { try await prepareVMAP(mounted) }
        let timeline = try await referenceTimeline(mounted).resolve()
        try assetLists.check(query: query, target: mounted.target, planner: planner(for: mounted), timeline: timeline)
        return .json([UInt8]())
    }

    /// The names under a content that are documents made per request, not files.
    static let documents: Set<String> = [
        "asset-list.json", "timeline.json", "timeline.svg", PublishedSchedule.documentName,
    ]

    /// A media file of a directory content, answered from the file system.
    private static func mediaFile(_ file: String) -> ContentResponse {
        ContentResponse(
            body: .file(file), contentType: ContentResponse.contentType(of: file), cacheControl: CachePolicy.media)
    }

    /// What a playlist rendered by ``render(_:mounted:path:upstream:)`` is kept by.
    private static func renderedKey(
        _ mounted: Mounted, path: SafePath, version: Int, sequence: Int64? = nil, base: String
    ) -> RenderedPlaylistCache.Key {
        RenderedPlaylistCache.Key(
            content: mounted.content.id, path: path.text, version: version, sequence: sequence, publicBase: base)
    }

    /// What a playlist served unchanged (no media segments to place breaks in) is kept by.
    private static func unchangedKey(_ mounted: Mounted, path: SafePath) -> RenderedPlaylistCache.Key {
        RenderedPlaylistCache.Key(
            content: mounted.content.id, path: path.text, version: 0, sequence: nil, publicBase: "")
    }

    /// The answer for a playlist served unchanged, cached as its kind says.
    private static func unchanged(
        _ entry: RenderedPlaylistCache.Entry, _ result: ParseResult, _ mounted: Mounted
    ) -> ContentResponse {
        guard case .media(let empty) = result.playlist else {
            return .playlist(entry, live: mounted.target.kind == .live)
        }
        return .playlist(entry, live: !empty.hasEndList, targetDuration: empty.targetDuration)
    }

    /// A looped channel's media segment with its decode times moved on by whole loops (`shift`,
    /// ticks of its timescale, as ``LiveLoop`` writes it), so timestamps run on across loops.
    private func shifted(_ file: String, by shift: String, name: String) throws(APIError) -> ContentResponse {
        guard shift.utf8.count <= 19, shift.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let ticks = UInt64(shift)
        else {
            throw APIError.badRequest(code: .badShift, path: "shift", "must be a whole number of ticks")
        }
        // The file's bytes come from the memory of kept files (read once, not per request), so a
        // request costs one copy of at most `fileLimit` bytes and a walk over the boxes' headers.
        guard let identity = FileBodyCache.identity(of: file) else { throw APIError.notFound(name) }
        guard identity.size <= fileBodies.fileLimit else {
            throw APIError.badRequest(
                code: .badShift, path: "shift",
                "\(name) has \(identity.size) bytes: only segments up to \(fileBodies.fileLimit) bytes can be shifted")
        }
        guard let kept = fileBodies.body(of: file, identity: identity) else {
            throw APIError(status: 503, code: .segmentRead, "\(name) cannot be read now")
        }
        var bytes = Array(kept.readableBytesView)
        do {
            try DecodeTimeShift.shift(&bytes, by: ticks)
            return ContentResponse(
                body: .bytes(bytes), contentType: ContentResponse.contentType(of: file), cacheControl: CachePolicy.media
            )
        } catch {
            throw APIError.badRequest(
                code: .badShift, path: "shift",
                "\(name) is not a fragmented MP4 media segment whose times can move: \(error.message)")
        }
    }

    // MARK: Playlists

    /// A playlist of a directory content with its planned breaks in, kept in ``rendered`` by what
    /// it depends on (``RenderedPlaylistCache/Key``): known at once when kept, else rendered later.
    private func render(
        _ result: ParseResult, mounted: Mounted, path: SafePath
    ) throws(APIError) -> Pending<ContentResponse> {
        guard case .media(let playlist) = result.playlist, !playlist.segments.isEmpty else {
            // The file does not change while the server runs, nor does what is served of it.
            let key = Self.unchangedKey(mounted, path: path)
            if let kept = rendered.entry(key) { return .now(Self.unchanged(kept, result, mounted)) }
            return .later { [self] () throws(APIError) -> ContentResponse in
                let entry = RenderedPlaylistCache.Entry(result.document.write())
                rendered.keep(entry, for: key)
                return Self.unchanged(entry, result, mounted)
            }
        }
        let base = publicBase
        switch mounted.target.kind {
        case .vod:
            let (snapshot, version) = state.versioned
            let key = Self.renderedKey(mounted, path: path, version: version, base: base)
            if let entry = rendered.entry(key) {
                return .now(.playlist(entry, live: false).reused(version: version, until: nil))
            }
            return .later { [self] () async throws(APIError) -> ContentResponse in
                let (timeline, _) = PlaylistRenderer.vodTimeline(playlist)
                let planner = planner(for: mounted.content, target: mounted.target, state: snapshot, base: base)
                let served = await served(planner, timeline)
                let entry = RenderedPlaylistCache.Entry(
                    try PlaylistRenderer.render(
                        served.planned, into: result, schedule: try publish(served.planned, mounted: mounted)))
                let settings = AdServerSettings.of(mounted.target, configuration: configuration, state: snapshot)
                if served.isPure, vmapPlans.isSettled(content: mounted.content.id, settings: settings) {
                    rendered.keep(entry, for: key)
                }
                return .playlist(entry, live: false)
            }
        case .live:
            if let loop = loops.kept(for: mounted.content, path: path) {
                return looped(loop, result, playlist: playlist, mounted: mounted, path: path, base: base)
            }
            return .later { [self] () async throws(APIError) -> ContentResponse in
                guard let loop = await loop(for: mounted.content, path: path, playlist: playlist) else {
                    throw APIError(status: 500, code: .liveLoop, "\(path.text) cannot be looped")
                }
                return try await looped(loop, result, playlist: playlist, mounted: mounted, path: path, base: base)
                    .resolve()
            }
        }
    }

    /// The window of a directory's live channel now, with its planned breaks in: known at once when
    /// kept for this window (the same for every time with its last segment), the state's version
    /// and the preload hints' length; else rendered later.
    private func looped(
        _ loop: LiveLoop, _ result: ParseResult, playlist: MediaPlaylist, mounted: Mounted, path: SafePath,
        base: String
    ) -> Pending<ContentResponse> {
        let at = now()
        let sequence = loop.range(at: at).upperBound
        let (snapshot, version) = state.versioned
        let preload = preload(mounted.target, snapshot, targetDuration: playlist.targetDuration)
        // A looped window never ends (no EXT-X-ENDLIST), whatever its source file has.
        let key = {
            var key = Self.renderedKey(mounted, path: path, version: version, sequence: sequence, base: base)
            key.hintLength = preload?.length
            return key
        }()
        if let entry = rendered.entry(key) {
            let response = ContentResponse.playlist(entry, live: true, targetDuration: playlist.targetDuration)
            // Preload hints change with the audience, not the state: such a window is not reused.
            guard preload == nil, let until = loop.nextChange(after: at) else { return .now(response) }
            return .now(response.reused(version: version, until: until))
        }
        return .later { [self] () async throws(APIError) -> ContentResponse in
            let window = loop.window(at: at, signals: mounted.content.signalInserter)
            let result = PlaylistParser.parse(window.text, options: ParseOptions(file: path.text))
            let timeline = BreakPlanner.Timeline.live(
                epoch: mounted.content.epoch, window: window.start..<window.end, lookahead: mounted.content.lookahead)
            var planner = planner(for: mounted.content, target: mounted.target, state: snapshot, base: base)
            planner.preload = preload
            var occupied: Set<String> = []
            if case .media(let looped) = result.playlist {
                await signals(looped, result, content: mounted.content, into: &planner)
                occupied = Set(looped.dateRanges.map(\.id))
            }
            let served = await served(planner, timeline, occupied: occupied)
            let entry = RenderedPlaylistCache.Entry(
                try PlaylistRenderer.render(
                    served.planned, hints: served.hints, into: result, removingSignals: mounted.content.removesSignals,
                    schedule: try publish(served.planned, mounted: mounted)))
            if served.isPure { rendered.keep(entry, for: key) }
            return .playlist(entry, live: true, targetDuration: playlist.targetDuration)
        }
    }

    /// A playlist of an upstream content with its planned breaks in; rendered for every request
    /// (they change with the upstream origin) but a live one's, kept by the origin's bytes.
    private func renderUpstream(
        _ result: ParseResult, mounted: Mounted, path: SafePath
    ) async throws(APIError) -> ContentResponse {
        guard case .media(let playlist) = result.playlist, !playlist.segments.isEmpty else {
            return PlaylistRenderer.unchanged(result, kind: mounted.target.kind)
        }
        let base = publicBase
        switch mounted.target.kind {
        case .vod:
            let (timeline, _) = PlaylistRenderer.vodTimeline(playlist)
            let planner = planner(for: mounted.content, target: mounted.target, state: state.snapshot, base: base)
            let planned = await served(planner, timeline).planned
            return .playlist(
                try PlaylistRenderer.render(planned, into: result, schedule: try publish(planned, mounted: mounted)),
                live: false)
        case .live:
            var source = result
            if !playlist.segments.contains(where: { $0.programDateTime != nil }) {
                source = tracker.dated(result, key: mounted.content.id + "/" + path.text, now: now())
            }
            let sourceBytes = source.document.write()
            guard case .media(let dated) = source.playlist,
                let timeline = PlaylistRenderer.liveTimeline(dated, content: mounted.content)
            else { return .playlist(sourceBytes, live: true, targetDuration: playlist.targetDuration) }
            // Kept by the upstream playlist's bytes: its signals are recognized and its breaks
            // planned once per origin answer and state, not once per viewer.
            let (snapshot, version) = state.versioned
            let preload = preload(
                mounted.target, snapshot, targetDuration: dated.targetDuration, ended: dated.hasEndList)
            var key = Self.renderedKey(mounted, path: path, version: version, base: base)
            key.source = Array(SHA256.hash(data: sourceBytes))
            key.hintLength = preload?.length
            if let entry = rendered.entry(key) {
                return .playlist(entry, live: true, targetDuration: playlist.targetDuration)
            }
            var planner = planner(for: mounted.content, target: mounted.target, state: snapshot, base: base)
            planner.preload = preload
            let fromPrimary = await signals(dated, source, content: mounted.content, into: &planner)
            let served = await served(planner, timeline, occupied: Set(dated.dateRanges.map(\.id)))
            let entry = RenderedPlaylistCache.Entry(
                try PlaylistRenderer.render(
                    served.planned, hints: served.hints, into: source, removingSignals: mounted.content.removesSignals,
                    schedule: try publish(served.planned, mounted: mounted)))
            if served.isPure, !fromPrimary { rendered.keep(entry, for: key) }
            return .playlist(entry, live: true, targetDuration: playlist.targetDuration)
        }
    }

    /// Gives `planner` the breaks `playlist` (parsed as `parsed`) signals, when the channel converts
    /// signals (``ServerConfiguration/Content/signals``); the markers refused are logged and counted
    /// once each (``SignalRefusalLog``, profile R29).
    ///
    /// A rendition of an upstream channel whose playlist carries no marker at all (packagers often
    /// write them into the video playlists only) takes the breaks its presentation's primary media
    /// playlist signals, so that every media playlist gets each break whichever is requested first.
    /// Returns whether the breaks came from the primary's playlist (a rendition without markers of
    /// an upstream channel), so that what is planned depends on more than `playlist`.
    @discardableResult
    private func signals(
        _ playlist: MediaPlaylist, _ parsed: ParseResult, content: ServerConfiguration.Content,
        into planner: inout BreakPlanner
    ) async -> Bool {
        guard content.signals == .scte35 else { return false }
        let document = parsed.document
        let recognition = SignalRecognizer.recognize(
            playlist, document: document, file: document.file,
            clock: content.signalInserter.map { _ in SignalInserter.clock(epoch: content.epoch) })
        signalRefusals.report(
            SignalRefusal.find(
                in: playlist, document: document, parserDiagnostics: parsed.diagnostics, recognition: recognition),
            channel: content.path)
        planner.signalled = Array(recognition.breaks.suffix(Self.maximumSignalledBreaks))
        breakLengths.observe(Target(.live, content.id), planner.signalled)
        if recognition.breaks.count > Self.maximumSignalledBreaks {
            logger.warning(
                "\(content.path): \(recognition.breaks.count) signalled breaks in one playlist; only the last \(Self.maximumSignalledBreaks) become interstitials"
            )
        }
        planner.snapSignals = content.snapSignals
        if recognition.isSilent, case .upstream = content.origin {
            planner.signalled = await primarySignals(content)
            return true
        }
        return false
    }

    /// The breaks an upstream channel's primary media playlist signals, fetched at most once per
    /// ``primarySignalsLifetime`` (none when it cannot be loaded).
    private func primarySignals(_ content: ServerConfiguration.Content) async -> [SignalledBreak] {
        let now = ContinuousClock.now
        if let kept = primarySignalCache.withLockedValue({ $0[content.id] }),
            now - kept.at < Self.primarySignalsLifetime
        {
            return kept.breaks
        }
        let breaks: [SignalledBreak]
        do {
            let (location, media) = try await source(content).primary()
            breaks = Array(SignalRecognizer.recognize(media, file: location).breaks.suffix(Self.maximumSignalledBreaks))
        } catch {
            logger.debug("cannot load the primary of \(content.path) for its signals: \(error)")
            breaks = []
        }
        primarySignalCache.withLockedValue { $0[content.id] = (now, breaks) }
        return breaks
    }

    /// The most signalled breaks of one playlist that become interstitials (the last ones, nearest
    /// the live edge): a live window holds a few; an upstream with thousands of markers costs a
    /// bounded amount of planning and first servings per fetch.
    static let maximumSignalledBreaks = 64

    /// How long the primary's signals serve the renditions without markers: a second, well under a
    /// live playlist's target duration.
    static let primarySignalsLifetime = Duration.seconds(1)

    /// The date ranges to serve from `planner` on `timeline`, with the first serving of new ones
    /// decided: a request that loses the race to another plans again with the values decided first.
    /// A value served for the first time is recorded before it is answered (at most
    /// ``ServerLimits/servedRecordTimeout``: a stuck database delays a new break, it does not stop
    /// playback).
    ///
    /// The preload hints (``BreakPlanner/hints(_:occupied:)``, none whose ID is in `occupied`) are
    /// decided and recorded with them.
    ///
    /// `isPure` says that the date ranges are what `planner` plans on its state with nothing decided
    /// or recorded on the way (no first serving, no early return, no withdrawal): a function of that state alone,
    /// which a cache may keep by the state's version.
    private func served(
        _ planner: BreakPlanner, _ timeline: BreakPlanner.Timeline, occupied: Set<String> = []
    ) async -> (planned: [BreakPlanner.Planned], hints: [BreakPlanner.Hint], isPure: Bool) {
        var planner = planner
        for attempt in 0..<4 {
            let planned = planner.plan(timeline)
            let hints = planner.hints(timeline, occupied: occupied)
            if attempt == 0, planned.allSatisfy({ $0.firstServing == nil && $0.earlyReturn == nil }),
                hints.allSatisfy({ $0.firstServing == nil }), planner.withdrawals(timeline).isEmpty
            {
                return (planned, hints, true)
            }
            let target = planner.target
            let entries =
                planned.compactMap { entry in
                    entry.firstServing.map { (ServedKey(target, entry.event.identifier), $0) }
                }
                + hints.compactMap { hint in hint.firstServing.map { (ServedKey(target, hint.identifier), $0) } }
            if let unsettled = state.claimServed(entries) {
                let timeout = configuration.limits.servedRecordTimeout.duration
                if !(await state.awaitRecorded(unsettled, timeout: timeout)) {
                    logger.warning(
                        "served \(unsettled.count) new date ranges of \(target) before the store recorded them")
                } else if attempt < 3, !state.agrees(entries) {
                    // Another replica recorded its values first: serve those.
                    planner.state = state.snapshot
                    continue
                }
                await recordSignalOutcomes(planned, withdrawals: planner.withdrawals(timeline), target: target)
                return (planned, hints, false)
            }
            planner.state = state.snapshot
        }
        return (planner.plan(timeline), planner.hints(timeline, occupied: occupied), false)
    }

    /// The inputs of the preload hints of a media playlist of `target` (``BreakPlanner/Preload``): a
    /// live channel whose breaks a VAST ad server fills, with hints on, and a playlist that has not
    /// `ended` (EXT-X-ENDLIST: App. F, clients ignore hints there); nil otherwise.
    private func preload(
        _ target: Target, _ state: StoredState, targetDuration: UInt64?, ended: Bool = false
    ) -> BreakPlanner.Preload? {
        guard target.kind == .live, !ended,
            let settings = AdServerSettings.of(target, configuration: configuration, state: state),
            settings.vast != nil, settings.preload.isEnabled
        else { return nil }
        return BreakPlanner.Preload(
            windows: settings.preload.windows(), sessions: max(0, activeSessions(target)),
            perSecond: settings.maximumPerSecond,
            targetDuration: MediaTime(seconds: Int(clamping: targetDuration ?? 6)))
    }

    /// Records the early returns signalled for breaks served with their planned duration (R12), so the
    /// X-PLAYOUT-LIMIT served stays, also across restarts and replicas (the first one decided wins),
    /// and the served breaks withdrawn because they were cancelled before they started.
    private func recordSignalOutcomes(
        _ planned: [BreakPlanner.Planned], withdrawals: [String], target: Target
    ) async {
        let returns = planned.compactMap { entry in
            entry.earlyReturn.map { (ServedKey(target, entry.event.identifier), $0) }
        }
        guard !returns.isEmpty || !withdrawals.isEmpty else { return }
        do {
            try await state.update { transaction in
                for (key, limit) in returns where transaction.state.earlyReturns[key] == nil {
                    transaction.apply(.earlyReturn(key, playoutLimit: limit))
                }
                for id in withdrawals where !transaction.state.withdrawn.contains(ServedKey(target, id)) {
                    transaction.apply(.withdraw(ServedKey(target, id)))
                }
            }
        } catch {
            logger.error(
                "cannot record \(returns.count) signalled early returns and \(withdrawals.count) withdrawals of \(target): \(error)"
            )
        }
    }

    /// The planner of a mounted content on the current state.
    func planner(for mounted: Mounted) -> BreakPlanner {
        planner(for: mounted.content, target: mounted.target, state: state.snapshot)
    }

    /// The planner of a content's breaks on `state` (the admin catalog plans on the state of its
    /// transaction).
    func planner(
        for content: ServerConfiguration.Content, target: Target, state: StoredState, base: String? = nil
    ) -> BreakPlanner {
        let publicBase = base ?? publicBase
        var planner = BreakPlanner(
            target: target, state: state, assetListURI: content.path + "/asset-list.json",
            adURI: { ad in ad.absoluteURI(publicBase: publicBase) })
        planner.noticeTolerance = configuration.limits.noticeTolerance
        if target.kind == .vod, let settings = AdServerSettings.of(target, configuration: configuration, state: state),
            let plan = vmapPlans.plan(content: content.id, settings: settings)
        {
            planner.vmapBreaks = plan.breaks
        }
        return planner
    }

    /// What progressive creatives become for `mounted`: renditions that match its primary's
    /// multivariant playlist (``ConditioningProfile``), read once per content; nil when the target
    /// has no ad server (no VAST creatives to condition) or its entry is not a multivariant playlist.
    private func conditioningProfile(_ mounted: Mounted) async -> ConditioningProfile? {
        guard AdServerSettings.of(mounted.target, configuration: configuration, state: state.snapshot) != nil else {
            return nil
        }
        if let profile = profiles.withLockedValue({ $0[mounted.content.id] }) { return profile }
        let source = source(mounted.content)
        guard case .multivariant(let multivariant)? = try? await source.playlist(source.entryLocation).playlist else {
            return nil
        }
        let target = try? await source.primary().playlist.targetDuration
        let profile = ConditioningProfile(
            primary: multivariant, targetDuration: (target ?? nil).map { Int(clamping: $0) })
        profiles.withLockedValue { $0[mounted.content.id] = profile }
        return profile
    }

    /// Whether the breaks the VOD asset's VMAP places are still to be loaded.
    private func needsVMAP(_ mounted: Mounted) -> Bool {
        guard let settings = AdServerSettings.of(mounted.target, configuration: configuration, state: state.snapshot)
        else { return false }
        return settings.vmap != nil && vmapPlans.plan(content: mounted.content.id, settings: settings) == nil
    }

    /// Loads the breaks the VOD asset's VMAP places, once (``VMAPPlans``), within the asset-list
    /// deadline.
    private func prepareVMAP(_ mounted: Mounted) async throws(APIError) {
        guard needsVMAP(mounted),
            let settings = AdServerSettings.of(mounted.target, configuration: configuration, state: state.snapshot),
            case .vod(let duration, _) = try await referenceTimeline(mounted).resolve()
        else { return }
        await vmapPlans.load(
            content: mounted.content.id, target: mounted.target, settings: settings, duration: duration,
            deadline: configuration.assetListDeadline)
    }

    /// The loop of a media playlist of a directory's live channel (cached), with the length of the
    /// channel's primary.
    private func loop(
        for content: ServerConfiguration.Content, path: SafePath, playlist: MediaPlaylist
    ) async -> LiveLoop? {
        let source = source(content)
        return await loops.loop(for: content, path: path, playlist: playlist) {
            try? await source.primary().playlist
        }
    }

    /// The timeline breaks of `mounted` are placed on: a live channel's from now, a VOD asset's from
    /// its primary, known at once once loaded for a directory's (its files do not change).
    private func referenceTimeline(_ mounted: Mounted) -> Pending<BreakPlanner.Timeline> {
        switch mounted.target.kind {
        case .live:
            let at = now()
            let content = mounted.content
            return .now(
                .live(epoch: content.epoch, window: (at - MediaTime(seconds: 60))..<at, lookahead: content.lookahead))
        case .vod:
            if let timeline = vodTimelines.withLockedValue({ $0[mounted.content.id] }) { return .now(timeline) }
            return .later { [self] () async throws(APIError) -> BreakPlanner.Timeline in
                let timeline = PlaylistRenderer.vodTimeline(try await source(mounted.content).primary().playlist).0
                if case .directory = mounted.content.origin {
                    vodTimelines.withLockedValue { $0[mounted.content.id] = timeline }
                }
                return timeline
            }
        }
    }

    // MARK: Date Range Schedules

    /// The schedule that stands for `planned` in a playlist of `mounted`, its document kept for the
    /// `schedule.json` route; nil when the content writes plain tags (or the breaks do not fit one
    /// document: they are then written as plain tags).
    private func publish(_ planned: [BreakPlanner.Planned], mounted: Mounted) throws(APIError) -> PublishedSchedule? {
        guard mounted.content.interstitials == .schedule else { return nil }
        let schedule: PublishedSchedule?
        do {
            schedule = try PublishedSchedule.make(events: planned.map(\.event), contentPath: mounted.content.path)
        } catch {
            throw APIError(status: 502, code: .playlist, "cannot write the breaks' schedule: \(error.message)")
        }
        if let schedule {
            publishedSchedules.keep(schedule, content: mounted.content.id)
        } else if planned.count > DateRangeScheduleDocument.Limits.default.maximumEntries {
            logger.warning(
                "\(mounted.content.path): \(planned.count) breaks do not fit one schedule document; written as plain tags"
            )
        }
        return schedule
    }

    /// `GET schedule.json[?id=ID]`: the document of a schedule the content's playlists name (`id`),
    /// or, without `id`, of the one its primary media playlist names now.
    ///
    /// - Throws: 404 when the content does not publish schedules or the schedule is not known (any
    ///   longer); 400 for a malformed `id`.
    private func scheduleDocument(
        _ mounted: Mounted, query: [String: String]
    ) throws(APIError) -> Pending<ContentResponse> {
        let name = mounted.content.path + "/" + PublishedSchedule.documentName
        guard mounted.content.interstitials == .schedule else {
            throw APIError.notFound(name)
        }
        if let id = query["id"] {
            guard id.hasPrefix(PublishedSchedule.identifierPrefix), id.utf8.count <= 64,
                JSONObjectReader.isIdentifier(id)
            else {
                throw APIError.badRequest(
                    code: .badPath, path: "id", "not the ID of a schedule this server writes")
            }
            @Sendable func answer(_ document: [UInt8]) -> ContentResponse {
                ContentResponse(
                    body: .bytes(document), contentType: ContentResponse.jsonType,
                    cacheControl: CachePolicy.publishedSchedule)
            }
            if let document = publishedSchedules.document(content: mounted.content.id, identifier: id) {
                return .now(answer(document))
            }
            // Another replica wrote the playlist that names it (or this one has let it go): the
            // primary's playlist as served now (kept, or planned on the shared state) writes the
            // same schedule while its breaks are the same.
            return .later { [self] () async throws(APIError) -> ContentResponse in
                _ = try await servedPrimary(mounted, name: name)
                guard let document = publishedSchedules.document(content: mounted.content.id, identifier: id) else {
                    throw APIError.notFound(name + "?id=" + id)
                }
                return answer(document)
            }
        }
        return .later { [self] () async throws(APIError) -> ContentResponse in
            let media = try await servedPrimary(mounted, name: name)
            guard let schedule = DateRangeSchedule.schedules(of: media).first,
                let document = publishedSchedules.document(content: mounted.content.id, identifier: schedule.identifier)
            else { throw APIError.notFound(name) }
            return ContentResponse(
                body: .bytes(document), contentType: ContentResponse.jsonType, cacheControl: CachePolicy.noStore)
        }
    }

    /// `media`, served by `content`, with the date ranges of the schedules it names (the documents
    /// kept in ``publishedSchedules``) in place of their tags.
    private func withPublishedSchedules(
        _ media: MediaPlaylist, content: ServerConfiguration.Content
    ) -> MediaPlaylist {
        var documents: [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>] = [:]
        for schedule in DateRangeSchedule.schedules(of: media) {
            guard let bytes = publishedSchedules.document(content: content.id, identifier: schedule.identifier) else {
                continue
            }
            documents[schedule.identity] = Result { () throws(DateRangeScheduleError) in
                try DateRangeScheduleDocument.decode(bytes)
            }
        }
        return DateRangeScheduleResolution.resolve(playlist: media, documents: documents).applied(to: media)
    }

    /// The primary media playlist of `mounted` exactly as a player gets it now; 404 at `name` when
    /// an upstream's primary is not under its entry's directory.
    private func servedPrimary(_ mounted: Mounted, name: String) async throws(APIError) -> MediaPlaylist {
        let location = try await source(mounted.content).primary().location
        var relative = location
        if case .upstream(let entry) = mounted.content.origin, let slash = entry.lastIndex(of: "/") {
            let directory = entry[...slash]
            guard location.hasPrefix(directory) else { throw APIError.notFound(name) }
            relative = String(location.dropFirst(directory.count))
        }
        let response = try await get(
            Mounted(content: mounted.content, target: mounted.target, rest: relative), query: [:])
        guard let bytes = response.bytes,
            case .media(let media) = PlaylistParser.parse(bytes).playlist
        else { throw APIError(status: 502, code: .playlist, "\(location) is not a media playlist") }
        return media
    }

    // MARK: Timeline

    /// The schedule of a VOD asset's primary with its planned breaks.
    private func timeline(_ mounted: Mounted) async throws(APIError) -> InterstitialSchedule {
        let media = try await source(mounted.content).primary().playlist
        let (timeline, dated) = PlaylistRenderer.vodTimeline(media)
        let events = planner(for: mounted).plan(timeline).map(\.event)
        return InterstitialSchedule.resolve(ScheduleInput(primary: dated, events: events, isLive: false))
    }

    /// The schedule of a live channel's current window: its primary media playlist exactly as a
    /// player gets it now, resolved. Its `startDate` ties its times to the window's dates.
    private func liveTimeline(_ mounted: Mounted) async throws(APIError) -> InterstitialSchedule {
        var media = try await servedPrimary(mounted, name: mounted.content.path + "/timeline.json")
        if mounted.content.interstitials == .schedule {
            media = withPublishedSchedules(media, content: mounted.content)
        }
        return InterstitialSchedule.resolve(
            ScheduleInput(primary: media, events: ScheduleInput.events(of: media), isLive: true))
    }

    /// The date of a live channel's live edge at `now` (where a break triggered now starts).
    func liveEdge(of channel: ServerConfiguration.Content, at now: DateTime) async -> DateTime {
        guard case .directory = channel.origin, let (location, media) = try? await source(channel).primary(),
            let path = SafePath(location),
            let loop = await loop(for: channel, path: path, playlist: media)
        else { return now }
        return loop.window(at: now).end
    }
}
