import HLSInterstitials
import HLSPlaylist

/// The bounds on what clients and upstream origins may cost the server: sizes, timeouts, counts.
///
/// Every limit has a safe default and a key in the configuration file's `limits` object
/// (`{"limits": {"idleTimeout": 30, "handoffSessions": 64}}`); SECURITY.md lists them.
public struct ServerLimits: Hashable, Sendable {
    /// The largest admin API request body, in bytes (`adminBodyBytes`, 64 KiB); larger gets 413.
    public var adminBodyBytes = 64 * 1024
    /// The largest hand-off session body, in bytes (`handoffBodyBytes`, 64 KiB); larger gets 413.
    public var handoffBodyBytes = 64 * 1024
    /// The longest request line (method, target, version), in bytes (`requestLineBytes`, 8 KiB);
    /// longer gets 414 and the connection is closed.
    public var requestLineBytes = 8 * 1024
    /// The most bytes of header fields of one request (`headerBytes`, 32 KiB); more gets 431.
    public var headerBytes = 32 * 1024
    /// The most header fields in one request (`headerCount`, 100); more gets 431.
    public var headerCount = 100
    /// How long a client has to send a whole request head, from its first byte (`headerTimeout`,
    /// 10 s); then the connection gets 408 and is closed.
    public var headerTimeout = MediaTime(seconds: 10)
    /// How long a client has to send a request's whole body, from the end of its head
    /// (`bodyTimeout`, 30 s; the largest body the server reads is 64 KiB); then the connection gets
    /// 408 and is closed.
    public var bodyTimeout = MediaTime(seconds: 30)
    /// The most connections open at once (`maxConnections`, 4096); at start it is lowered to half
    /// the process's file descriptor limit less 64. Over it, a new connection gets 503 and is closed.
    public var maxConnections = 4096
    /// The most connections open at once from one IP address (`maxConnectionsPerPeer`, 128; raise
    /// it behind a CDN or a proxy that opens more). Over it, a new connection gets 503 and is closed.
    public var maxConnectionsPerPeer = 128
    /// How long a connection may stay open with no request in progress, before its first request
    /// too (`idleTimeout`, 60 s); then it is closed.
    public var idleTimeout = MediaTime(seconds: 60)
    /// How long an upstream playlist (or any body the server reads whole) may take, from the
    /// request to its last byte; and how long a streamed upstream file may wait for its response
    /// head or for each chunk (`upstreamTimeout`, 10 s). Exceeded: 504.
    public var upstreamTimeout = MediaTime(seconds: 10)
    /// How long a streamed upstream file (a segment) may take as a whole (`upstreamTransferTimeout`, 120 s).
    public var upstreamTransferTimeout = MediaTime(seconds: 120)
    /// The most concurrent requests to one upstream origin (`upstreamConcurrency`, 32); more get 503
    /// at once. It is also the size of the HTTP client's connection pool per origin.
    public var upstreamConcurrency = 32
    /// The request slots of an upstream origin kept for the channel's own URLs (those without a
    /// viewer's LL-HLS query, `UpstreamQuery`): a quarter of ``upstreamConcurrency``, at least one
    /// when there are two or more (8 of 32 by default). Requests with a viewer's query get 503
    /// `upstream-busy` when only these are free.
    public var upstreamReserve: Int { upstreamConcurrency > 1 ? max(1, upstreamConcurrency / 4) : 0 }
    /// The largest upstream playlist, in bytes (`upstreamPlaylistBytes`, 4 MiB); larger gets 502.
    public var upstreamPlaylistBytes = 4 * 1024 * 1024
    /// The largest upstream segment or other file, in bytes (`upstreamFileBytes`, 64 MiB), streamed
    /// to the client and cut off beyond the limit.
    public var upstreamFileBytes = 64 * 1024 * 1024
    /// The most hand-off sessions waiting in the mailbox (`handoffSessions`, 256); more get 503.
    public var handoffSessions = 256
    /// How long a hand-off session waits to be taken (`handoffExpiry`, 600 s).
    public var handoffExpiry = MediaTime(seconds: 600)
    /// The longest viewer ID (`_HLS_primary_id`) accepted, in bytes (`viewerIDBytes`, 128); longer gets 400.
    public var viewerIDBytes = 128
    /// The most (viewer, break) entries the rebinding ledger keeps (`ledgerEntries`, 100,000).
    public var ledgerEntries = 100_000
    /// The most bytes of keys the rebinding ledger keeps (`ledgerBytes`, 16 MiB).
    public var ledgerBytes = 16 * 1024 * 1024
    /// How long a viewer's count of requests for a break is kept after its last request
    /// (`viewerExpiry`, 4 h): rebinding and ONCE decisions hold that long. In a shared store the
    /// count expires exactly then; in memory, between half of it and all of it.
    public var viewerExpiry = MediaTime(seconds: 4 * 3600)
    /// How long an asset-list request waits for a shared store to count the viewer's request
    /// (`viewerStoreTimeout`, 0.25 s); past it, or when the database fails, the server counts in
    /// memory, as it does without a shared store.
    public var viewerStoreTimeout = MediaTime(seconds: 0.25)

    /// How long a response that serves a date range for the first time waits for the store to
    /// record it (`servedRecordTimeout`, 2 s). Past it the response goes out anyway (a stuck
    /// database delays a new break; it never stops playback) and the record is retried.
    public var servedRecordTimeout = MediaTime(seconds: 2)

    /// The most breaks stored for one target (`breaksPerTarget`, 1,000); creating one more gets 409
    /// `limit-reached`. (A target has at most one standing schedule.)
    public var breaksPerTarget = 1000
    /// The most ads in the inventory (`inventoryAds`, 10,000); creating one more gets 409 `limit-reached`.
    public var inventoryAds = 10_000
    /// The most early notices of breaks stored for one live channel (`noticesPerChannel`, 16); one
    /// more gets 409 `limit-reached`. A notice is removed when it expires.
    public var noticesPerChannel = 16
    /// How far a signalled break's start may be from an early notice's start for the break to take
    /// the notice (`noticeTolerance`, 10 s, at most 300 s): either side (``NoticeMatcher``). A
    /// notice expires at its start plus its duration plus this.
    public var noticeTolerance = NoticeMatcher.defaultTolerance
    /// How long a beacon relay URL verifies after the asset list that carries it was written
    /// (`beaconLifetime`, 3 h, at most 7 days): past it, it is refused with 410 and not passed on.
    public var beaconLifetime = MediaTime(seconds: 3 * 3600)
    /// The most relayed beacons passed on for one client address (an IPv6 address's /64) in a
    /// minute (`beaconsPerAddress`, 600); more get 429.
    public var beaconsPerAddress = 600
    /// The most relayed beacons passed on for one viewer (`_HLS_primary_id`) in a minute
    /// (`beaconsPerViewer`, 120); more get 429.
    public var beaconsPerViewer = 120
    /// How long one ffmpeg run that conditions a creative may take (its ffprobe: 60 s at most)
    /// (`conditioningTimeout`, 300 s); then it is killed and the creative is not used.
    public var conditioningTimeout = MediaTime(seconds: 300)
    /// The most CPU time one ffmpeg run that conditions a creative may use (its ffprobe: 60 s), all its threads
    /// together (`conditioningCPUSeconds`, 300; RLIMIT_CPU of the process); then it is killed.
    public var conditioningCPUSeconds = 300
    /// The most VAST documents one ad decision requests, the ad request and every wrapper of every
    /// branch (`adDecisionRequests`, 32); a wrapper beyond it is not requested (VAST error 302).
    public var adDecisionRequests = 32
    /// The most bytes of VAST documents one ad decision receives, all branches together
    /// (`adDecisionBytes`, 4 MiB); a document beyond it is cut off (VAST error 302).
    public var adDecisionBytes = 4 * 1024 * 1024

    /// How long a live viewer's session is kept for decisions made ahead after its last playlist
    /// request (`prefetchSessionIdle`, 30 s; forgotten between this and twice this).
    public var prefetchSessionIdle = MediaTime(seconds: 30)
    /// How long a live viewer's requests (media playlists, asset lists) must span before decisions
    /// are made ahead for it, as a player's reloads do (`prefetchPlayingSpan`, 6 s; 0 to 600 s, 0:
    /// every session seen): `ViewerActivity`.
    public var prefetchPlayingSpan = MediaTime(seconds: 6)
    /// The most live viewer sessions kept for decisions made ahead, all channels together
    /// (`prefetchSessions`, 200,000); more evict the least recently seen.
    public var prefetchSessions = 200_000
    /// The most bytes of live viewer sessions kept (`prefetchSessionBytes`, 48 MiB; a session is
    /// counted as its ID and 96 bytes); more evict the least recently seen.
    public var prefetchSessionBytes = 48 * 1024 * 1024
    /// The most decisions made ahead of live breaks kept, all breaks together (`prefetchDecisions`,
    /// 200,000); more are not made (those viewers are decided when they ask).
    public var prefetchDecisions = 200_000
    /// The most bytes of decisions made ahead kept (`prefetchBytes`, 64 MiB; identical decisions are
    /// kept once); more are not made.
    public var prefetchBytes = 64 * 1024 * 1024
    /// The most standing decisions kept (`standingDecisions`, 100,000), all channels together, within
    /// `prefetchDecisions` and `prefetchBytes`: past it no standing decision is made (those viewers are
    /// decided when they ask).
    public var standingDecisions = 100_000
    /// The most stitched-form entries kept of each kind (`stitchedViewers`, 100,000): a viewer's
    /// decision of a break, a viewer's ad with its beacons, a live viewer's stitcher of one media
    /// playlist; more evict the least recently used (a live viewer evicted starts its numbering
    /// again, as a new viewer).
    public var stitchedViewers = 100_000
    /// The most bytes of each kind of stitched-form entry kept (`stitchedViewerBytes`, 64 MiB); more
    /// evict the least recently used.
    public var stitchedViewerBytes = 64 * 1024 * 1024
    /// How long a stitched-form entry not used is kept (`stitchedViewerIdle`, 4 h).
    public var stitchedViewerIdle = MediaTime(seconds: 4 * 3600)

    /// How long an upstream playlist's answer (fetched and rendered once) serves the other requests
    /// for the same URL (`upstreamPlaylistReuse`, 1 s; 0 shares only a fetch in flight).
    public var upstreamPlaylistReuse = MediaTime(seconds: 1)

    /// The defaults.
    public init() {}
}

extension ServerLimits {
    /// Reads the `limits` object of a configuration file; absent keys keep their defaults.
    static func decode(_ value: JSONValue, path: String) throws(APIError) -> ServerLimits {
        var reader = try JSONObjectReader(value, path: path)
        var limits = ServerLimits()
        func bytes(_ key: String, _ keyPath: WritableKeyPath<ServerLimits, Int>, minimum: Int) throws(APIError) {
            guard let value = reader.take(key) else { return }
            guard case .integer(let number) = value, number >= minimum, number <= 1 << 40 else {
                throw reader.error(key, "expected a whole number of at least \(minimum), found \(value)")
            }
            limits[keyPath: keyPath] = Int(number)
        }
        func seconds(_ key: String, _ keyPath: WritableKeyPath<ServerLimits, MediaTime>) throws(APIError) {
            guard let time = try reader.seconds(key) else { return }
            guard time > .zero else { throw reader.error(key, "must be more than 0 seconds") }
            limits[keyPath: keyPath] = time
        }
        try bytes("adminBodyBytes", \.adminBodyBytes, minimum: 1024)
        try bytes("handoffBodyBytes", \.handoffBodyBytes, minimum: 1024)
        try bytes("requestLineBytes", \.requestLineBytes, minimum: 256)
        try bytes("headerBytes", \.headerBytes, minimum: 1024)
        try bytes("headerCount", \.headerCount, minimum: 8)
        try seconds("headerTimeout", \.headerTimeout)
        try seconds("idleTimeout", \.idleTimeout)
        try seconds("bodyTimeout", \.bodyTimeout)
        try bytes("maxConnections", \.maxConnections, minimum: 1)
        try bytes("maxConnectionsPerPeer", \.maxConnectionsPerPeer, minimum: 1)
        try seconds("upstreamTimeout", \.upstreamTimeout)
        try seconds("upstreamTransferTimeout", \.upstreamTransferTimeout)
        if let reuse = try reader.seconds("upstreamPlaylistReuse") {
            guard reuse >= .zero, reuse <= MediaTime(seconds: 60) else {
                throw reader.error("upstreamPlaylistReuse", "must be 0 to 60 seconds")
            }
            limits.upstreamPlaylistReuse = reuse
        }
        try seconds("servedRecordTimeout", \.servedRecordTimeout)
        try bytes("upstreamConcurrency", \.upstreamConcurrency, minimum: 1)
        try bytes("upstreamPlaylistBytes", \.upstreamPlaylistBytes, minimum: 1024)
        try bytes("upstreamFileBytes", \.upstreamFileBytes, minimum: 1024)
        try bytes("handoffSessions", \.handoffSessions, minimum: 1)
        try seconds("handoffExpiry", \.handoffExpiry)
        try bytes("viewerIDBytes", \.viewerIDBytes, minimum: 16)
        try bytes("ledgerEntries", \.ledgerEntries, minimum: 16)
        try bytes("ledgerBytes", \.ledgerBytes, minimum: 4096)
        try seconds("viewerExpiry", \.viewerExpiry)
        try seconds("viewerStoreTimeout", \.viewerStoreTimeout)
        try bytes("breaksPerTarget", \.breaksPerTarget, minimum: 1)
        try bytes("inventoryAds", \.inventoryAds, minimum: 1)
        try bytes("noticesPerChannel", \.noticesPerChannel, minimum: 1)
        try seconds("noticeTolerance", \.noticeTolerance)
        guard limits.noticeTolerance <= MediaTime(seconds: 300) else {
            throw reader.error("noticeTolerance", "must be at most 300 seconds")
        }
        try seconds("beaconLifetime", \.beaconLifetime)
        guard limits.beaconLifetime <= MediaTime(seconds: 7 * 86400) else {
            throw reader.error("beaconLifetime", "must be at most 7 days (604800 seconds)")
        }
        try bytes("beaconsPerAddress", \.beaconsPerAddress, minimum: 1)
        try bytes("beaconsPerViewer", \.beaconsPerViewer, minimum: 1)
        try seconds("conditioningTimeout", \.conditioningTimeout)
        try bytes("conditioningCPUSeconds", \.conditioningCPUSeconds, minimum: 1)
        try bytes("adDecisionRequests", \.adDecisionRequests, minimum: 1)
        try bytes("adDecisionBytes", \.adDecisionBytes, minimum: 4096)
        try seconds("prefetchSessionIdle", \.prefetchSessionIdle)
        if let span = try reader.seconds("prefetchPlayingSpan") {
            guard span >= .zero, span <= MediaTime(seconds: 600) else {
                throw reader.error("prefetchPlayingSpan", "must be 0 to 600 seconds")
            }
            limits.prefetchPlayingSpan = span
        }
        try bytes("prefetchSessions", \.prefetchSessions, minimum: 16)
        try bytes("prefetchSessionBytes", \.prefetchSessionBytes, minimum: 4096)
        try bytes("prefetchDecisions", \.prefetchDecisions, minimum: 16)
        try bytes("prefetchBytes", \.prefetchBytes, minimum: 4096)
        try bytes("standingDecisions", \.standingDecisions, minimum: 16)
        try bytes("stitchedViewers", \.stitchedViewers, minimum: 16)
        try bytes("stitchedViewerBytes", \.stitchedViewerBytes, minimum: 65536)
        try seconds("stitchedViewerIdle", \.stitchedViewerIdle)
        try reader.finish()
        return limits
    }
}

extension MediaTime {
    /// The time as a `Duration`.
    var duration: Duration { .nanoseconds(nanoseconds) }
}
