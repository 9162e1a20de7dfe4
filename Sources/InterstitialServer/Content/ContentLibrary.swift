import AdDecisioning
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging

/// The content side's composition root: makes the parts that serve primary content with its
/// breaks and hands each its collaborators.
///
/// The parts: the ``ContentService`` (the requests under a content path), the ``PlaylistPipeline``
/// (plan → serve → render → keep, for every origin and form), the ``BreakPlanners`` (what each
/// request is planned on), the ``ScheduleDocuments``, the ``SignalReader`` and the
/// ``AssetListService``; and the services the routes, the admin API and the prefetcher take
/// directly (``sessions``, ``prefetched``, ``beaconRelay``...).
final class ContentLibrary: Sendable {
    /// A request's content: the configured content, its target and the path under it.
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
    /// Upstream playlists, fetched and rendered once for the viewers asking at about the same time.
    private let sharedPlaylists: UpstreamPlaylistShare<ContentResponse>
    /// The bytes of the media files served most, shared with the routes' ``FileResponder``.
    let fileBodies: FileBodyCache
    /// Answers the asset lists.
    let assetLists: AssetListService
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
    /// The viewers seen on each live channel's playlists.
    let sessions: ViewerSessions
    /// The active audience of a live target, which sizes its preload hints (``PreloadHint``): the
    /// sessions seen (``ViewerSessions/count(_:)``) unless the library was made with another count.
    let activeSessions: @Sendable (Target) -> Int
    /// The decisions made ahead of live breaks.
    let prefetched: PrefetchCache
    /// The live decisions started, for the pacing of decisions made ahead.
    let liveDecisions = LiveDecisions()
    /// Asks the targets' VAST ad servers; nil when the server was made without one (tests).
    let adDecisions: VASTDecisionClient?
    /// Where replicas claim and share decisions made ahead; nil: this replica alone (SQLite).
    let ledger: (any DecisionLedger)?
    /// This replica's name in the ledger's claims (``replicaName(port:)``).
    let replica: String
    /// Where every content's playlists come from.
    let sources: ContentSources
    /// What each request is planned on, and its planners.
    let planners: BreakPlanners
    /// Reads the breaks live playlists signal.
    let signals: SignalReader
    /// The documents of the Date Range Schedules written into playlists (`interstitials: schedule`).
    let schedules: ScheduleDocuments
    /// Puts the breaks into playlists.
    let pipeline: PlaylistPipeline
    /// Answers the requests under a content path.
    let content: ContentService
    /// Finds the breaks the prefetcher decides ahead.
    let prefetchBreaks: PrefetchBreakFinder
    /// The signalled breaks' durations, for a learned expected break (standing decisions).
    let breakLengths = BreakLengthLog()

    init(
        configuration: ServerConfiguration, state: ServerState, inventory: any AdInventory, client: HTTPClient,
        logger: Logger, now: @escaping @Sendable () -> DateTime,
        rendered: RenderedPlaylistCache = RenderedPlaylistCache(), adDecisions: VASTDecisionClient? = nil,
        metrics: ServerMetrics = ServerMetrics(), conditioner: CreativeConditioner? = nil,
        fileBodies: FileBodyCache = FileBodyCache(), ledger: (any DecisionLedger)? = nil,
        activeSessions: (@Sendable (Target) -> Int)? = nil, clock: (any ServerClock)? = nil
    ) {
        let clock = clock ?? SystemServerClock(date: now)
        self.clock = clock
        let limits = configuration.limits
        let sessions = ViewerSessions(
            limits: ViewerSessions.Limits(
                idle: limits.prefetchSessionIdle, playing: limits.prefetchPlayingSpan, count: limits.prefetchSessions,
                bytes: limits.prefetchSessionBytes, idBytes: limits.viewerIDBytes), clock: clock)
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
        sharedPlaylists = UpstreamPlaylistShare(reuse: configuration.limits.upstreamPlaylistReuse, clock: clock)
        self.configuration = configuration
        self.state = state
        self.logger = logger
        self.now = now
        upstream = UpstreamClient(configuration: configuration, client: client, logger: logger, clock: clock)
        scheduleFlattener = UpstreamScheduleFlattener(upstream: upstream, logger: logger, metrics: metrics, now: now)
        vmapPlans = VMAPPlans(
            fetcher: adDecisions?.fetcher
                ?? AdServerFetcher(client: client, policy: configuration.adServerFetch, clock: clock),
            logger: logger)
        // A random key until the server shares the store's (``BeaconRelay/share(through:)``).
        beaconRelay = BeaconRelay(
            lifetime: configuration.limits.beaconLifetime,
            budget: BeaconBudget(
                perAddress: configuration.limits.beaconsPerAddress, perViewer: configuration.limits.beaconsPerViewer),
            clock: clock)
        dispatcher = adDecisions?.dispatcher
        assetLists = AssetListService(
            configuration: configuration, state: state, inventory: inventory, logger: logger, metrics: metrics,
            vast: adDecisions, clock: clock, vmapPlans: vmapPlans, conditioner: conditioner, relay: beaconRelay,
            prefetched: prefetched, ledger: ledger, liveDecisions: liveDecisions, owner: replica, sessions: sessions)
        sources = ContentSources(files: PlaylistFileCache(), upstream: upstream)
        planners = BreakPlanners(
            configuration: configuration, state: state, vmapPlans: vmapPlans, sources: sources, now: now,
            activeSessions: self.activeSessions, gates: adDecisions?.gates)
        signals = SignalReader(
            refusals: signalRefusals, state: state, sources: sources, logger: logger, clock: clock,
            breakLengths: breakLengths)
        schedules = ScheduleDocuments(logger: logger)
        pipeline = PlaylistPipeline(
            planners: planners,
            servings: FirstServings(
                state: state, recordTimeout: limits.servedRecordTimeout.duration, logger: logger, signals: signals),
            signals: signals, rendered: rendered, schedules: schedules, now: now)
        content = ContentService(
            configuration: configuration, planners: planners, pipeline: pipeline, schedules: schedules,
            assetLists: assetLists, sources: sources,
            upstream: UpstreamContent(
                upstream: upstream, scheduleFlattener: scheduleFlattener, sharedPlaylists: sharedPlaylists,
                tracker: ProgramDateTimeTracker(), pipeline: pipeline, planners: planners),
            fileBodies: fileBodies, now: now)
        prefetchBreaks = PrefetchBreakFinder(
            configuration: configuration, state: state, sessions: sessions, planners: planners,
            breakLengths: breakLengths, gates: adDecisions?.gates)
    }

    /// This replica's name in the ledger's claims: its host name and port, the same after a restart,
    /// so that a replica restarted inside a retrieval window takes back the claims it had not decided
    /// yet at once (another replica waits for them to lapse); a random name when the port is picked
    /// at start (0).
    static func replicaName(port: Int) -> String {
        port == 0 ? UUID().uuidString : "\(ProcessInfo.processInfo.hostName):\(port)"
    }

    /// Records the port the server is bound to (the configured one may be 0), for absolute URLs.
    func serverBound(port: Int) { planners.serverBound(port: port) }

    /// The `scheme://host[:port]` absolute URLs start with (``BreakPlanners/publicBase``).
    var publicBase: String { planners.publicBase }

    /// Where a content's playlists come from (``ContentSources/source(_:)``).
    func source(_ content: ServerConfiguration.Content) -> ContentSource { sources.source(content) }

    /// The content whose path is the longest prefix of `path` (``ContentService/mounted(_:)``).
    func mounted(_ path: String) -> Mounted? { content.mounted(path) }

    /// The answer to a GET under a content path
    /// (``ContentService/answer(_:query:userAgent:viewerIP:)``).
    func answer(
        _ mounted: Mounted, query: [String: String], userAgent: String? = nil, viewerIP: String? = nil
    ) throws(APIError) -> Pending<ContentResponse> {
        try content.answer(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP)
    }

    /// ``answer(_:query:userAgent:viewerIP:)``, waited for.
    func get(
        _ mounted: Mounted, query: [String: String], userAgent: String? = nil, viewerIP: String? = nil
    ) async throws(APIError) -> ContentResponse {
        try await content.get(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP)
    }

    /// The asset list a request names
    /// (``ContentService/assetList(_:query:userAgent:viewerIP:stitched:input:)``).
    func assetList(
        _ mounted: Mounted, query: [String: String], userAgent: String?, viewerIP: String?, stitched: Bool = false
    ) throws(APIError) -> Pending<ContentResponse> {
        try content.assetList(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP, stitched: stitched)
    }

    /// The planner of a mounted content on the current state (``BreakPlanners/planner(for:)``).
    func planner(for mounted: Mounted) -> BreakPlanner { planners.planner(for: mounted) }

    /// The planner of a content's breaks on `state`
    /// (``BreakPlanners/planner(for:target:state:base:)``).
    func planner(
        for content: ServerConfiguration.Content, target: Target, state: StoredState, base: String? = nil
    ) -> BreakPlanner {
        planners.planner(for: content, target: target, state: state, base: base)
    }
}
