import Foundation
import HLSInterstitials
import HLSPlaylist

/// What the server serves and how: content, the admin token, the database, limits.
///
/// Read from a JSON file by ``decode(_:base:)``:
/// ```json
/// {"host": "127.0.0.1", "port": 8080, "database": "hlsi-server.sqlite", "adminToken": "secret",
///  "publicURL": "https://origin.example.com", "hlsjs": "vendor/hls.mjs",
///  "allowedOrigins": ["https://upstream.example.com"],
///  "vod": [{"id": "movie", "path": "/vod/movie", "directory": "media/movie", "entry": "master.m3u8"},
///          {"id": "news", "upstream": "https://upstream.example.com/news/master.m3u8"}],
///  "live": [{"id": "channel", "loop": "media/movie", "epoch": "2026-01-01T00:00:00Z", "windowSegments": 6},
///           {"id": "sports", "upstream": "https://upstream.example.com/sports/master.m3u8"}],
///  "ads": "media/ads",
///  "limits": {"idleTimeout": 30, "upstreamConcurrency": 16},
///  "adServerFetch": {"allowPrivate": false, "allow": ["10.1.2.0/24", "ads.internal"], "deny": []},
///  "seed": {"inventory": [...], "schedules": [...], "breaks": [...]}}
/// ```
/// Relative directories are resolved against the configuration file's folder. `seed` entries are
/// stored on the first start with a new database; after that the admin API owns them. `limits`
/// holds any of the ``ServerLimits``; `adServerFetch` the ``AdServerFetchPolicy``. `publicURL` is required unless `host` is a loopback address.
public struct ServerConfiguration: Sendable {
    /// Where primary content comes from.
    public enum Origin: Hashable, Sendable {
        /// Files in a local directory.
        case directory(String)
        /// An upstream HLS origin; the URL of the presentation's entry playlist.
        case upstream(String)
    }

    /// A VOD asset, or a live channel, and where it is served.
    public struct Content: Hashable, Sendable {
        /// The identifier, used in targets (`vod/ID`, `live/ID`).
        public var id: String
        /// The URL path it is served under, such as `/vod/movie`.
        public var path: String
        /// Where its files come from.
        public var origin: Origin
        /// The entry playlist under `path` (for a directory; an upstream's is its URL's last component).
        public var entry: String
        /// Live: the date the loop of a directory started (live channels looped from VOD).
        public var epoch: DateTime
        /// Live: the number of segments in the window of a looped channel.
        public var windowSegments: Int
        /// Live: how far past the live edge upcoming breaks are announced.
        public var lookahead: MediaTime
        /// Live: the ad signals in the channel's own playlists that become interstitials; `nil` reads none.
        public var signals: Signals?
        /// Live: whether the SCTE-35 markers stay in the playlists served (`true`) or are removed.
        public var keepSignals: Bool
        /// Live: whether interstitials converted from signals carry `X-SNAP="OUT,IN"`.
        public var snapSignals: Bool
        /// Live, looped directory channels: SCTE-35 markers written into the loop's playlists.
        public var signalInserter: SignalInserter?
        /// The VAST ad decision server that fills its breaks (`adServer`); nil fills them from the
        /// stored inventory. A standing schedule's own `adServer` (admin API) takes precedence.
        public var adServer: AdServerSettings?
        /// How its breaks are written into its media playlists (`interstitials`): plain interstitial
        /// tags, the default, for every player; or one Date Range Schedule (profile R27).
        public var interstitials: InterstitialForm = .tags
        /// Upstream contents (`flattenSchedules`): whether the Date Range Schedules of the upstream's
        /// playlists are loaded and written as plain date ranges, for players without support.
        public var flattensSchedules = false

        /// Creates content.
        public init(
            id: String, path: String, origin: Origin, entry: String = "master.m3u8",
            epoch: DateTime = ServerConfiguration.defaultEpoch, windowSegments: Int = 6,
            lookahead: MediaTime = MediaTime(seconds: 20), signals: Signals? = nil, keepSignals: Bool = true,
            snapSignals: Bool = false, signalInserter: SignalInserter? = nil
        ) {
            self.id = id
            self.path = path
            self.origin = origin
            self.entry = entry
            self.epoch = epoch
            self.windowSegments = windowSegments
            self.lookahead = lookahead
            self.signals = signals
            self.keepSignals = keepSignals
            self.snapSignals = snapSignals
            self.signalInserter = signalInserter
        }

        /// Whether the served playlists leave out the SCTE-35 markers: the channel converts them and
        /// does not keep them.
        var removesSignals: Bool { signals != nil && !keepSignals }
    }

    /// How a content's breaks are written into its media playlists.
    public enum InterstitialForm: String, Hashable, Sendable {
        /// One EXT-X-DATERANGE interstitial tag per break: every player reads them.
        case tags
        /// One Date Range Schedule tag whose document (`schedule.json` under the content's path)
        /// lists the breaks (`PublishedSchedule`): players with Date Range Schedules (Apple 26.4).
        case schedule
    }

    /// The kinds of ad signals a live channel's playlists may carry.
    public enum Signals: String, Hashable, Sendable {
        /// SCTE-35 markers: EXT-X-DATERANGE SCTE35-OUT/IN/CMD, EXT-X-CUE-OUT/-CONT/-IN, EXT-OATCLS-SCTE35
        /// (`SignalRecognizer`).
        case scte35
    }

    /// 2026-01-01T00:00:00Z, the default start of looped live channels.
    public static let defaultEpoch = DateTime(iso8601: "2026-01-01T00:00:00.000Z")!

    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port to listen on (0 picks a free one).
    public var port = 8080
    /// Where the state lives (``StoreLocation``): an SQLite file, a PostgreSQL URL
    /// (`postgres://user@host:port/db`, shared by several servers), or `nil`: in memory.
    public var database: String? = "hlsi-server.sqlite"
    /// The bearer token of the admin API; without one the admin API refuses every request.
    public var adminToken: String?
    /// The scheme, host and port viewers reach the server at, for the absolute URLs it writes
    /// (X-ASSET-URI, asset-list URIs). Without it the server writes `http://host:port` of the
    /// address it listens on, which must then be a loopback address: a request's Host header is
    /// never used.
    public var publicURL: String?
    /// The URL (or local file, served at `/assets/hls.mjs`) of the hls.js ES module the web page
    /// plays with; nil (the default): the page plays with its own interstitial controller on the
    /// browser's native HLS support, and needs nothing from another host.
    public var hlsjs: String?
    /// Origins (`scheme://host[:port]`) that upstream content may come from.
    public var allowedOrigins: [String] = []
    /// Proxies (addresses or `ADDRESS/PREFIX` networks, IPv4 or IPv6) in front of the server whose
    /// `X-Forwarded-For` entries are believed when the server tells ad decision servers the viewer's
    /// address; loopback is always trusted (`trustedProxies`).
    public var trustedProxies: [String] = []
    /// VOD assets.
    public var vod: [Content] = []
    /// Live channels.
    public var live: [Content] = []
    /// A directory of ad presentations served under `/ads/`.
    public var adDirectory: String?
    /// Where progressive VAST creatives conditioned into HLS are kept and served from (under
    /// `/creatives/`); nil conditions none (ads without an HLS media file are then left out).
    public var creativeCache: String? = "hlsi-creatives"
    /// The most bytes the creative cache keeps (the least recently used go first).
    public var creativeCacheBytes = 2 << 30
    /// Schedules, breaks and ads stored on the first start with a new database.
    public var seed = Seed()
    /// How long an asset-list request may wait for the inventory before answering with no ads.
    public var assetListDeadline = MediaTime(seconds: 1)
    /// The `User-Agent` patterns that get the stitched form without `?ads=stitched`
    /// (`stitchedUserAgents`; docs/stitching.md lists those known to need it).
    var stitchedUserAgents = StitchedUserAgents.none
    /// Sizes, timeouts and counts that bound what clients and upstream origins may cost.
    public var limits = ServerLimits()
    /// Which addresses ad-server URLs (VAST, wrappers, redirects, creatives, tracking) may be fetched
    /// from (`adServerFetch`); by default only public ones.
    public var adServerFetch = AdServerFetchPolicy()

    /// Entries stored when the database lacks them.
    public struct Seed: Hashable, Sendable {
        /// Ads.
        public var inventory: [Ad] = []
        /// Schedules.
        public var schedules: [BreakSchedule] = []
        /// Breaks.
        public var breaks: [Break] = []

        /// No entries.
        public init() {}
    }

    /// A configuration with nothing to serve.
    public init() {}
}

extension ServerConfiguration {
    /// Reads a configuration file's JSON; relative directories resolve against `base`.
    ///
    /// Syntax errors name their line and column; a key no object of the file takes
    /// (`ConfigurationKeys`) is refused before any value is read.
    ///
    /// - Throws: ``APIError`` with the JSON path of the first problem.
    public static func decode(_ bytes: some Collection<UInt8>, base: String) throws(APIError) -> ServerConfiguration {
        let value = try JSONValue.parse(bytes, code: .jsonSyntax, as: APIError.self)
        try ConfigurationKeys.check(value)
        var reader = try JSONObjectReader(value, path: "")
        var configuration = ServerConfiguration()
        configuration.host = try reader.string("host") ?? configuration.host
        if let port = try reader.count("port") {
            guard port <= 65535 else { throw reader.error("port", "must be 0 to 65535") }
            configuration.port = port
        }
        configuration.database =
            try reader.string("database").map { StoreLocation.isPostgres($0) ? $0 : resolve($0, base: base) }
            ?? configuration.database
        configuration.adminToken = try reader.string("adminToken")
        configuration.publicURL = try reader.string("publicURL")
        if let hlsjs = try reader.string("hlsjs") {
            configuration.hlsjs = hlsjs.contains("://") ? hlsjs : resolve(hlsjs, base: base)
        }
        if let origins = reader.take("allowedOrigins") {
            guard case .array(let items) = origins else { throw reader.error("allowedOrigins", "expected an array") }
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item, let origin = Self.origin(of: text), origin == text else {
                    throw reader.error(
                        "allowedOrigins[\(index)]", "expected scheme://host[:port] with no path, found \(item)")
                }
                configuration.allowedOrigins.append(origin)
            }
        }
        if let proxies = reader.take("trustedProxies") {
            guard case .array(let items) = proxies else { throw reader.error("trustedProxies", "expected an array") }
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item, ViewerAddress.Network(text) != nil else {
                    throw reader.error(
                        "trustedProxies[\(index)]", "expected an IP address or ADDRESS/PREFIX network, found \(item)")
                }
                configuration.trustedProxies.append(text)
            }
        }
        for kind in [Target.Kind.vod, .live] {
            guard let list = reader.take(kind.rawValue) else { continue }
            guard case .array(let items) = list else { throw reader.error(kind.rawValue, "expected an array") }
            for (index, item) in items.enumerated() {
                let content = try Self.content(item, kind: kind, path: "\(kind.rawValue)[\(index)]", base: base)
                if kind == .vod { configuration.vod.append(content) } else { configuration.live.append(content) }
            }
        }
        configuration.adDirectory = try reader.string("ads").map { resolve($0, base: base) }
        if let cache = reader.take("creativeCache") {
            switch cache {
            case .null: configuration.creativeCache = nil
            case .string(let path) where !path.isEmpty: configuration.creativeCache = resolve(path, base: base)
            default: throw reader.error("creativeCache", "expected a directory, or null to condition no creatives")
            }
        } else {
            configuration.creativeCache = resolve("hlsi-creatives", base: base)
        }
        if let megabytes = try reader.integer("creativeCacheMegabytes", in: 16...1_000_000) {
            configuration.creativeCacheBytes = megabytes << 20
        }
        if let deadline = try reader.seconds("assetListDeadline") { configuration.assetListDeadline = deadline }
        if let patterns = reader.take("stitchedUserAgents") {
            guard case .array(let items) = patterns else {
                throw reader.error("stitchedUserAgents", "expected an array of User-Agent substrings")
            }
            var texts: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    throw reader.error("stitchedUserAgents[\(index)]", "expected a string, found \(item)")
                }
                texts.append(text)
            }
            do throws(StitchedUserAgents.Invalid) {
                configuration.stitchedUserAgents = try StitchedUserAgents(texts)
            } catch {
                throw reader.error("stitchedUserAgents" + (error.index.map { "[\($0)]" } ?? ""), error.reason)
            }
        }
        if let limits = reader.take("limits") {
            configuration.limits = try ServerLimits.decode(limits, path: reader.at("limits"))
        }
        if let policy = reader.take("adServerFetch") {
            configuration.adServerFetch = try AdServerFetchPolicy.decode(policy, path: reader.at("adServerFetch"))
        }
        if let seed = reader.take("seed") {
            var inner = try JSONObjectReader(seed, path: "seed")
            for (key, path) in [
                ("inventory", "seed.inventory"), ("schedules", "seed.schedules"), ("breaks", "seed.breaks"),
            ] {
                guard let list = inner.take(key) else { continue }
                guard case .array(let items) = list else { throw inner.error(key, "expected an array") }
                for (index, item) in items.enumerated() {
                    let itemPath = "\(path)[\(index)]"
                    switch key {
                    case "inventory": configuration.seed.inventory.append(try Ad.decode(item, path: itemPath))
                    case "schedules":
                        configuration.seed.schedules.append(try BreakSchedule.decode(item, path: itemPath))
                    default: configuration.seed.breaks.append(try Break.decode(item, path: itemPath))
                    }
                }
            }
            try inner.finish()
        }
        try reader.finish()
        try configuration.check()
        return configuration
    }

    /// The first path components of the server's own routes, which no content path may start with.
    static let reservedPaths: Set<String> = [
        "admin", "ads", "assets", "beacon", "creatives", "favicon.ico", "group", "handoff", "metrics", "page",
        "stitched",
    ]

    /// Checks what fields cannot check alone: unique IDs and paths, allowed upstream origins, a
    /// public URL when the server listens on an address that is not loopback.
    public func check() throws(APIError) {
        if let url = publicURL {
            guard Self.origin(of: url) != nil, !url.hasSuffix("/"),
                url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x3F && $0 != 0x23 })
            else {
                throw .badRequest(
                    code: .config, path: "publicURL",
                    "expected http(s)://host[:port][/path] with no query and no final /, found \"\(url)\"")
            }
        } else if !Self.isLoopback(host) {
            throw .badRequest(
                code: .config, path: "publicURL",
                "the server listens on \(host), which viewers reach under a name the server cannot verify: set publicURL (hlsi serve --public-url) to the scheme://host[:port] they use; the absolute URLs the server writes (X-ASSET-URI, asset lists) come from it"
            )
        }
        var paths: Set<String> = []
        for (kind, list) in [("vod", vod), ("live", live)] {
            var ids: Set<String> = []
            for (index, content) in list.enumerated() {
                let path = "\(kind)[\(index)]"
                guard ids.insert(content.id).inserted else {
                    throw .badRequest(code: .config, path: "\(path).id", "\"\(content.id)\" is used twice")
                }
                let first = content.path.split(separator: "/").first.map(String.init) ?? ""
                guard !Self.reservedPaths.contains(first), paths.insert(content.path).inserted else {
                    throw .badRequest(
                        code: .config, path: "\(path).path",
                        "\"\(content.path)\" is used twice or starts with a name the server's own routes use ("
                            + Self.reservedPaths.sorted().joined(separator: ", ") + ")")
                }
                if case .upstream(let url) = content.origin {
                    guard let origin = Self.origin(of: url), allowedOrigins.contains(origin) else {
                        throw .badRequest(
                            code: .config, path: "\(path).upstream",
                            "\(url)'s origin is not in allowedOrigins (\(allowedOrigins.joined(separator: ", ")))")
                    }
                }
            }
        }
    }

    /// The `scheme://host[:port]` the absolute URLs the server writes start with: ``publicURL``, or
    /// the loopback address it listens on with the port it is bound to.
    func publicBase(boundPort: Int) -> String {
        if let publicURL { return publicURL }
        let name = host.contains(":") ? "[\(host)]" : host
        return "http://\(name):\(boundPort)"
    }

    /// Whether `host` is a loopback address (``ViewerAddress/loopback``) or `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        host.lowercased() == "localhost" || ViewerAddress.bytes(of: host).map(ViewerAddress.isLoopback) == true
    }

    /// `scheme://host[:port]` of an http(s) URL.
    public static func origin(of url: String) -> String? { HTTPOrigin.of(url) }

    static func resolve(_ path: String, base: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL.path
    }

    private static func content(
        _ value: JSONValue, kind: Target.Kind, path: String, base: String
    ) throws(APIError)
        -> Content
    {
        var reader = try JSONObjectReader(value, path: path)
        let id = try reader.identifier("id")
        let mount = try reader.string("path") ?? "/\(kind.rawValue)/\(id)"
        guard mount.hasPrefix("/"), mount.count > 1, !mount.hasSuffix("/"),
            mount.split(separator: "/").allSatisfy({ JSONObjectReader.isIdentifier($0) })
        else {
            throw reader.error("path", "expected a path such as /\(kind.rawValue)/\(id), found \"\(mount)\"")
        }
        let directoryKey = kind == .vod ? "directory" : "loop"
        let directory = try reader.string(directoryKey)
        let upstream = try reader.string("upstream")
        var entry = try reader.string("entry") ?? "master.m3u8"
        let origin: Origin
        switch (directory, upstream) {
        case (let directory?, nil): origin = .directory(resolve(directory, base: base))
        case (nil, let upstream?):
            guard let url = URLComponents(string: upstream), let last = url.path.split(separator: "/").last,
                Self.origin(of: upstream) != nil
            else { throw reader.error("upstream", "expected the http(s) URL of a playlist, found \"\(upstream)\"") }
            origin = .upstream(upstream)
            entry = String(last)
        default:
            throw reader.error(directoryKey, "give either \(directoryKey) or upstream")
        }
        var content = Content(id: id, path: mount, origin: origin, entry: entry)
        if kind == .live {
            content.epoch = try reader.date("epoch") ?? content.epoch
            if let count = try reader.count("windowSegments") {
                guard count >= 3 else {
                    throw reader.error("windowSegments", "a live window needs at least 3 segments")
                }
                content.windowSegments = count
            }
            content.lookahead = try reader.seconds("lookahead") ?? content.lookahead
            if let signals = try reader.string("signals") {
                guard let kind = Signals(rawValue: signals) else {
                    throw reader.error("signals", "expected \"scte35\", found \"\(signals)\"")
                }
                content.signals = kind
            }
            content.keepSignals = try reader.bool("keepSignals") ?? content.keepSignals
            content.snapSignals = try reader.bool("snapSignals") ?? content.snapSignals
            if let inserter = reader.take("signalInserter") {
                guard case .directory = origin else {
                    throw reader.error("signalInserter", "only a looped channel (loop) writes its own signals")
                }
                content.signalInserter = try SignalInserter.decode(inserter, path: reader.at("signalInserter"))
            }
        }
        if let form = try reader.string("interstitials") {
            guard let value = InterstitialForm(rawValue: form) else {
                throw reader.error("interstitials", "expected \"tags\" or \"schedule\", found \"\(form)\"")
            }
            content.interstitials = value
        }
        if let flatten = try reader.bool("flattenSchedules") {
            guard case .upstream = origin else {
                throw reader.error(
                    "flattenSchedules", "only an upstream content has schedules of its origin to flatten")
            }
            content.flattensSchedules = flatten
        }
        if let settings = reader.take("adServer") {
            content.adServer = try AdServerSettings.decode(
                settings, path: reader.at("adServer"), allowsVMAP: kind == .vod)
        }
        try reader.finish()
        return content
    }
}
