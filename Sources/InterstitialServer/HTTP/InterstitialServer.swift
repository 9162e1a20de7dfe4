import AsyncHTTPClient
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The server-guided ad insertion origin, as a service-lifecycle `Service`.
///
/// It serves the configured VOD assets and live channels with interstitial date ranges in every media
/// playlist, answers asset-list requests with ads decided at request time, serves the ads and a web
/// page that plays the content, and exposes the admin API under `/admin/v1` (bearer token). Run it in
/// a `ServiceGroup`; a graceful shutdown lets requests in flight finish.
public struct InterstitialServer: Service {
    /// The `Server` field of every answer.
    static let serverName = "hlsi"

    /// What it serves.
    public let configuration: ServerConfiguration
    let state: ServerState
    let inventory: (any AdInventory)?
    /// Where replicas claim and share the decisions made ahead of live breaks; nil: in this
    /// replica alone (SQLite).
    let decisionLedger: (any DecisionLedger)?
    let logger: Logger
    /// The server's one clock (``SystemServerClock`` on the `now` given, or a test's
    /// ``ManualServerClock``), handed to every service that reads time, its state included.
    let clock: any ServerClock
    let onServerRunning: @Sendable (Int) async -> Void

    /// Creates the server, opening the store (the configuration's seed is stored when it starts).
    ///
    /// - Parameters:
    ///   - configuration: What to serve.
    ///   - store: Where state lives; by default the ``StoreLocation`` `configuration.database` names
    ///     (SQLite, which fails with ``StoreError`` when another server holds that file; PostgreSQL;
    ///     memory if `nil`), closed when the server stops. A store given here stays open.
    ///   - inventory: Where ads come from; by default the stored inventory.
    ///   - decisionLedger: Where replicas claim and share the decisions made ahead of live breaks
    ///     (``DecisionLedger``); by default the store's (PostgreSQL's, shared by the replicas on its
    ///     database; none for SQLite: this replica alone).
    ///   - logger: Where the server logs.
    ///   - now: The wall clock, for live windows, early returns and ad tags; by default the system's
    ///     date. The server's monotonic clock (deadlines, expiry, pacing) is the system's uptime.
    ///   - onServerRunning: Called with the bound port once the server listens.
    public init(
        configuration: ServerConfiguration, store: (any ServerStore)? = nil, inventory: (any AdInventory)? = nil,
        decisionLedger: (any DecisionLedger)? = nil, logger: Logger,
        now: (@Sendable () -> DateTime)? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        try self.init(
            configuration: configuration, store: store, inventory: inventory, decisionLedger: decisionLedger,
            logger: logger, clock: now.map { SystemServerClock(date: $0) } ?? SystemServerClock(),
            onServerRunning: onServerRunning)
    }

    /// Creates the server on `clock` (``init(configuration:store:inventory:decisionLedger:logger:now:onServerRunning:)``
    /// on the system's clock; a test's ``ManualServerClock``), which its state and every service read.
    init(
        configuration: ServerConfiguration, store: (any ServerStore)? = nil, inventory: (any AdInventory)? = nil,
        decisionLedger: (any DecisionLedger)? = nil, logger: Logger, clock: any ServerClock,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        try configuration.check()
        self.configuration = configuration
        state = try ServerState(
            store: store ?? StoreLocation(configuration.database).open(logger: logger, clock: clock),
            ownsStore: store == nil,
            limits: configuration.limits, clock: clock)
        self.inventory = inventory
        self.decisionLedger = decisionLedger ?? state.store.decisionLedger
        self.logger = logger
        self.clock = clock
        self.onServerRunning = onServerRunning
        if let token = configuration.adminToken, let weakness = AdminToken.weakness(token) {
            logger.warning(
                "the admin token is weak (\(weakness)): anyone who guesses it controls the admin API; use at least \(AdminToken.minimumLength) random characters, such as `openssl rand -hex 32`"
            )
        }
    }

    /// Serves until cancelled or gracefully shut down.
    public func run() async throws {
        let client = makeHTTPClient()
        let adClient = makeAdServerClient()
        let freshAdClient = makeAdServerClient(fresh: true)
        let fetcher = AdServerFetcher(
            client: adClient, freshClient: freshAdClient, policy: configuration.adServerFetch, clock: clock)
        do {
            try await application(client: client, adFetcher: fetcher).run()
        } catch {
            try? await client.shutdown()
            try? await adClient.shutdown()
            try? await freshAdClient.shutdown()
            throw error
        }
        try await client.shutdown()
        try await adClient.shutdown()
        try await freshAdClient.shutdown()
    }

    /// An HTTP client for VAST ad servers and tracking URLs (``AdServerFetcher``, which follows
    /// redirects itself, each checked by the ``AdServerFetchPolicy``: this client follows none); up to
    /// 256 connections per ad server; each request is bounded by its own deadline, and one whose
    /// connection cannot be made fails at once (no retries inside the client). With `fresh`, the
    /// client for retries: its connections are not kept (every request on it asks to close).
    func makeAdServerClient(fresh: Bool = false) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.adServerClientConfiguration(fresh: fresh))
    }

    /// The configuration of ``makeAdServerClient(fresh:)``'s client.
    static func adServerClientConfiguration(fresh: Bool) -> HTTPClient.Configuration {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .disallow
        clientConfiguration.timeout.connect = .seconds(2)
        clientConfiguration.timeout.read = .seconds(5)
        // Ad servers answer every viewer's break: many requests in flight to one host at once.
        clientConfiguration.connectionPool = .init(
            idleTimeout: fresh ? .seconds(1) : .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
        // A connection that cannot be made fails the request at once (the fetcher retries once on a
        // fresh client): retried until the deadline, every viewer of a down ad server would wait for
        // it, and the breaker would open only after the first viewers' deadlines.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        return clientConfiguration
    }

    /// The HTTP client for upstream origins: no redirects, a read timeout of
    /// ``ServerLimits/upstreamTimeout`` (a stalled body fails), and a connection pool of
    /// ``ServerLimits/upstreamConcurrency`` per origin. Shut it down after the application.
    func makeHTTPClient() -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .disallow
        clientConfiguration.timeout.connect = .seconds(5)
        clientConfiguration.timeout.read = .nanoseconds(configuration.limits.upstreamTimeout.nanoseconds)
        clientConfiguration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.limits.upstreamConcurrency)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    /// The Hummingbird application, for running inside another service group or testing.
    /// Without `adFetcher`, ad servers are requested with `client` under the configuration's policy.
    /// Every service reads time from ``clock`` (an `adFetcher` given must be on it).
    func application(client: HTTPClient, adFetcher: AdServerFetcher? = nil) -> some ApplicationProtocol {
        let metrics = ServerMetrics()
        let clock = clock
        let now: @Sendable () -> DateTime = { clock.wall }
        let fetcher = adFetcher ?? AdServerFetcher(client: client, policy: configuration.adServerFetch, clock: clock)
        let dispatcher = TrackingDispatcher(fetcher: fetcher, logger: logger, metrics: metrics)
        let conditioner = self.configuration.creativeCache.map { directory in
            CreativeConditioner(
                directory: directory, maximumBytes: self.configuration.creativeCacheBytes, fetcher: fetcher,
                logger: self.logger, timeout: self.configuration.limits.conditioningTimeout.duration,
                cpuSeconds: self.configuration.limits.conditioningCPUSeconds)
        }
        let library = ContentLibrary(
            configuration: configuration, state: state, inventory: inventory ?? StoredInventory(state: state),
            client: client, logger: logger, now: now,
            adDecisions: VASTDecisionClient(
                fetcher: fetcher, dispatcher: dispatcher, logger: logger,
                maximumRequests: configuration.limits.adDecisionRequests,
                maximumBytes: configuration.limits.adDecisionBytes, gates: AdServerGates(clock: clock, metrics: metrics)
            ),
            metrics: metrics, conditioner: conditioner, ledger: decisionLedger, clock: clock)
        let mailbox = HandoffMailbox(
            capacity: configuration.limits.handoffSessions, expiry: configuration.limits.handoffExpiry.duration,
            clock: clock)
        let routes = Routes(
            library: library, admin: AdminAPI(library: library), mailbox: mailbox, metrics: library.metrics)
        let router = routes.router()
        let fastLane = routes.fastLane(serverName: Self.serverName)
        let hub = GroupHub(logger: logger)
        let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
        webSocketRouter.ws("/group/:name") { _, context in
            JSONObjectReader.isIdentifier(context.parameters.get("name") ?? "") ? .upgrade([:]) : .dontUpgrade
        } onUpgrade: { inbound, outbound, context in
            let name = context.requestContext.parameters.get("name") ?? ""
            try await hub.serve(name: name, inbound: inbound, outbound: outbound)
        }
        let onServerRunning = onServerRunning
        let logger = logger
        let configuration = configuration
        let state = state
        let limits = configuration.limits
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        // The guard refuses heads over the limits first; the decoder's limits only back it up.
        decoder.maxHeaderFieldSize = limits.requestLineBytes + limits.headerBytes + 1024
        decoder.maxHeaderListSize = limits.requestLineBytes + limits.headerBytes + 1024
        decoder.maxHeaderFieldCount = limits.headerCount + 1
        // The guard closes idle connections (it sees the requests it answers itself); the
        // tracker tells it when the answers behind end.
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ResponseTracker()], idleTimeout: nil, httpDecoderConfiguration: decoder)
        let webSocketResponder = webSocketRouter.buildResponder()
        let connections = ConnectionLimiter(
            total: ConnectionLimiter.cap(configured: limits.maxConnections), perPeer: limits.maxConnectionsPerPeer)
        if connections.total < limits.maxConnections {
            logger.info(
                "at most \(connections.total) connections at once (half the file descriptor limit, less 64)")
        }
        let server = HTTPServerBuilder { responder in
            GuardedChildChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: http1)),
                limits: RequestGuard.Limits(limits), clock: clock, fastLane: fastLane, connections: connections)
        }
        var application = Application(
            router: router,
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: Self.serverName),
            services: [
                StateService(state: state, logger: logger), dispatcher,
                NoticeExpiry(
                    board: NoticeBoard(configuration: configuration, state: state), metrics: metrics, logger: logger,
                    clock: clock),
            ] + (conditioner.map { [$0] } ?? [])
                + (library.adDecisions.map {
                    [
                        PrefetchService(
                            library: library, vast: $0, metrics: metrics, logger: logger, owner: library.replica,
                            clock: library.clock)
                    ]
                } ?? []),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                library.serverBound(port: port)
                logger.info("serving on http://\(configuration.host):\(port)/")
                await onServerRunning(port)
            },
            logger: logger)
        application.beforeServerStarts {
            try await state.open()
            try await state.seed(configuration.seed)
            // Replicas sign and verify beacon URLs with the one secret their store keeps.
            try await library.beaconRelay.share(through: state.store)
        }
        return application
    }
}
