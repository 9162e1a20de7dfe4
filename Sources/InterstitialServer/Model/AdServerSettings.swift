import AdDecisioning
import HLSInterstitials
import HLSPlaylist

/// How a target's breaks are filled by a VAST ad decision server instead of the stored inventory.
///
/// `{"vast": "https://ads.example/vast?dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]",
/// "tracking": "client", "maxWrapperDepth": 5}`: the tag URL template is filled per asset-list request
/// (`AdTagTemplate`: break ID and duration, the viewer's `_HLS_primary_id` as session, the content ID,
/// the viewer's user agent, a cache buster; unknown macros are left as VAST 4.3 §6.1 says).
public struct AdServerSettings: Hashable, Sendable {
    /// Who fires the impressions.
    public enum Tracking: String, Hashable, Sendable {
        /// The player, from the asset list's `X-AD-CREATIVE-SIGNALING` (SVTA2053-2).
        case client
        /// The server, when it answers the asset list (for players that cannot); the signaling then
        /// leaves impressions out so that none is counted twice.
        case server
        /// The player, at this server: the signaling's URLs point at the server's beacon relay, which
        /// counts each beacon and passes it on to the ad server (`BeaconRelay`).
        case relay
    }

    /// The circuit breaker of an ad server (`AdServerGate`).
    public struct Breaker: Hashable, Sendable {
        /// The failures (errors, timeouts) within the window that open it, when they are more than
        /// half of the requests finished.
        public var failures: Int
        /// The window over which failures are counted.
        public var window: MediaTime
        /// How long it stays open before one probe goes.
        public var coolDown: MediaTime

        /// Creates breaker settings: by default 20 failures within 10 s, 5 s open.
        public init(
            failures: Int = 20, window: MediaTime = MediaTime(seconds: 10), coolDown: MediaTime = MediaTime(seconds: 5)
        ) {
            self.failures = failures
            self.window = window
            self.coolDown = coolDown
        }
    }

    /// The largest tag template accepted, in bytes.
    public static let maximumTemplateBytes = 4096

    /// The VAST tag URL template: the ads of every break the server fills (and of VMAP breaks whose
    /// source gives none).
    public var vast: AdTagTemplate?
    /// The VMAP URL template (VOD only): the ad breaks of the asset, each filled late from its own
    /// ad source (IAB VMAP 1.0).
    public var vmap: AdTagTemplate?
    /// The planned length of a VMAP break (VMAP gives none): the VAST answer fills up to it.
    public var vmapBreakDuration: MediaTime
    /// Who fires impressions.
    public var tracking: Tracking
    /// How many wrappers are followed (IAB recommends at most 5).
    public var maximumWrapperDepth: Int
    /// The most requests in flight to each ad server.
    public var maximumConcurrent = 64
    /// The most requests started per second to each ad server (`maxPerSecond`): when set, the
    /// rate, a hard cap that is never learned; nil (the default): the rate is learned within
    /// ``rateLearning``'s bounds.
    public var maximumPerSecond: Int?
    /// Where each ad server's learned rate starts and the bounds it stays within
    /// (`AdServerRateLearner`), while ``maximumPerSecond`` is not set (`rateLearning`, refused
    /// together with `maxPerSecond`).
    public var rateLearning = RateLearningSettings()

    /// Whether the ad servers' rate is learned: ``maximumPerSecond`` is not set.
    public var learnsRate: Bool { maximumPerSecond == nil }

    /// The requests a second to pace the decisions made ahead at, and to size the retrieval windows
    /// and preload hints by: `maxPerSecond` when set; else the rate the ad server's gate learned so
    /// far (`learned`, nil before the gate saw a request), or the learning's initial rate. The one
    /// rule of the rate to pace at (`AdServerGates.pacingRate` reads the gate for it).
    public func pacingRate(learned: Int?) -> Int {
        if let maximumPerSecond { return maximumPerSecond }
        return max(1, min(learned ?? rateLearning.initial, rateLearning.maximum))
    }
    /// Each ad server's circuit breaker.
    public var breaker = Breaker()
    /// The inventory ad that fills a break the ad server did not fill in time (failed, timed out,
    /// shed, breaker open); nil: the target's whole inventory.
    public var slate: String?
    /// The most fill segments (the pod's, then the slate's repeated) one live break writes into a
    /// viewer's stitched media playlist (`maxFillSegments`, 1 to ``fillSegmentBounds``'s upper
    /// bound, default `LiveStitcher.defaultMaximumFillSegments`): a slate of short segments padding
    /// a long break stops there and the rest of the break is left empty (docs/stitching.md). It bounds
    /// a stitched playlist's size: about 150 bytes a segment.
    public var maximumFillSegments = LiveStitcher.defaultMaximumFillSegments
    /// The values ``maximumFillSegments`` may take: 1 to 10,000 (a stitched playlist of at most
    /// about 1.5 MB of fill).
    public static let fillSegmentBounds: ClosedRange<Int64> = 1...10_000
    /// The preload hints written for its live breaks (`preload`).
    public var preload = PreloadSettings()
    /// Whether the breaks of a live channel are decided before its viewers ask, and how far ahead.
    public var prefetch = PrefetchSettings()

    /// Creates settings.
    public init(
        vast: String?, vmap: String? = nil, vmapBreakDuration: MediaTime = MediaTime(seconds: 30),
        tracking: Tracking = .client, maximumWrapperDepth: Int = 5
    ) {
        self.vast = vast.map { AdTagTemplate($0, serverUA: "hlsi") }
        self.vmap = vmap.map { AdTagTemplate($0, serverUA: "hlsi") }
        self.vmapBreakDuration = vmapBreakDuration
        self.tracking = tracking
        self.maximumWrapperDepth = maximumWrapperDepth
    }

    /// `{"vast", "vmap", "vmapBreakDuration", "tracking", "maxWrapperDepth", "maxConcurrent",
    /// "maxPerSecond" or "rateLearning", "breaker", "slate", "maxFillSegments", "preload"}`
    /// (`maxPerSecond` when set, `rateLearning` when learned within other bounds than the defaults,
    /// the others when not the defaults).
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "tracking": .string(tracking.rawValue), "maxWrapperDepth": .integer(Int64(maximumWrapperDepth)),
        ]
        if let vast { fields["vast"] = .string(vast.template) }
        if let vmap {
            fields["vmap"] = .string(vmap.template)
            fields["vmapBreakDuration"] = .seconds(vmapBreakDuration)
        }
        if maximumConcurrent != 64 { fields["maxConcurrent"] = .integer(Int64(maximumConcurrent)) }
        if let maximumPerSecond {
            fields["maxPerSecond"] = .integer(Int64(maximumPerSecond))
        } else if rateLearning != RateLearningSettings() {
            fields["rateLearning"] = rateLearning.jsonValue
        }
        if breaker != Breaker() {
            fields["breaker"] = .object([
                "failures": .integer(Int64(breaker.failures)), "window": .seconds(breaker.window),
                "coolDown": .seconds(breaker.coolDown),
            ])
        }
        if let slate { fields["slate"] = .string(slate) }
        if maximumFillSegments != LiveStitcher.defaultMaximumFillSegments {
            fields["maxFillSegments"] = .integer(Int64(maximumFillSegments))
        }
        if preload != PreloadSettings() { fields["preload"] = preload.jsonValue }
        if let prefetch = prefetch.jsonValue { fields["prefetch"] = prefetch }
        return .object(fields)
    }

    /// Reads settings: `vast` and/or `vmap`, http(s) URL templates of at most 4 KiB (at least one;
    /// `vmap` only for a VOD asset), a VMAP break duration from 1 to 600 s (default 30), `client` or
    /// `server` or `relay` tracking, a wrapper depth from 0 to 10; per ad server at most 1 to 10,000
    /// requests in flight (`maxConcurrent`, default 64) and 1 to 100,000 per second (`maxPerSecond`, a
    /// hard cap; not set, the rate is learned, within the bounds `rateLearning` gives or its
    /// defaults, ``RateLearningSettings``), a
    /// breaker `{"failures": 1-10000, "window": 1-600 s, "coolDown": 1-600 s}`
    /// (default 20, 10, 5), a `slate` (an inventory ad's ID), `maxFillSegments` (1 to 10,000, default
    /// 1,000: ``maximumFillSegments``), `preload` (``PreloadSettings``) and `prefetch`
    /// (``PrefetchSettings``).
    public static func decode(
        _ value: JSONValue, path: String = "", allowsVMAP: Bool = true
    ) throws(APIError) -> AdServerSettings {
        var reader = try JSONObjectReader(value, path: path)
        let vast = try template("vast", in: &reader)
        let vmap = try template("vmap", in: &reader)
        if vmap != nil, !allowsVMAP {
            throw reader.error("vmap", "VMAP places the breaks of a VOD asset; a live channel takes vast only")
        }
        guard vast != nil || vmap != nil else {
            throw reader.error("vast", "give the URL template of a VAST ad server (vast), of a VMAP (vmap), or both")
        }
        var breakDuration = MediaTime(seconds: 30)
        if let seconds = try reader.seconds("vmapBreakDuration") {
            guard seconds >= MediaTime(seconds: 1), seconds <= MediaTime(seconds: 600) else {
                throw reader.error("vmapBreakDuration", "expected 1 to 600 seconds")
            }
            breakDuration = seconds
        }
        var tracking = Tracking.client
        if let text = try reader.string("tracking") {
            guard let value = Tracking(rawValue: text) else {
                throw reader.error(
                    "tracking", "expected \"client\", \"server\" or \"relay\", found \"\(text)\"")
            }
            tracking = value
        }
        let depth = try reader.integer("maxWrapperDepth", in: 0...10) ?? 5
        var settings = AdServerSettings(
            vast: vast, vmap: vmap, vmapBreakDuration: breakDuration, tracking: tracking, maximumWrapperDepth: depth)
        settings.maximumConcurrent = try reader.integer("maxConcurrent", in: 1...10_000) ?? 64
        if let perSecond = try reader.integer("maxPerSecond", in: 1...100_000) {
            settings.maximumPerSecond = perSecond
            if reader.take("rateLearning") != nil {
                throw reader.error(
                    "rateLearning", "maxPerSecond fixes the ad server's rate; rateLearning applies only without it")
            }
        } else if let learning = reader.take("rateLearning") {
            settings.rateLearning = try RateLearningSettings.decode(learning, path: reader.at("rateLearning"))
        }
        if var breaker = try reader.object("breaker") {
            settings.breaker.failures = try breaker.integer("failures", in: 1...10_000) ?? 20
            for (key, path) in [("window", \Breaker.window), ("coolDown", \Breaker.coolDown)] {
                guard let seconds = try breaker.seconds(key) else { continue }
                guard seconds >= MediaTime(seconds: 1), seconds <= MediaTime(seconds: 600) else {
                    throw breaker.error(key, "expected 1 to 600 seconds")
                }
                settings.breaker[keyPath: path] = seconds
            }
            try breaker.finish()
        }
        if let slate = try reader.string("slate") {
            guard JSONObjectReader.isIdentifier(slate) else {
                throw reader.error("slate", "\"\(slate)\" is not an ad ID: use 1 to 64 of A-Z a-z 0-9 - _ .")
            }
            settings.slate = slate
        }
        if let fill = reader.take("maxFillSegments") {
            guard case .integer(let count) = fill, fillSegmentBounds.contains(count) else {
                throw reader.error(
                    "maxFillSegments",
                    "expected a whole number from \(fillSegmentBounds.lowerBound) to \(fillSegmentBounds.upperBound), found \(fill): the most ad and slate segments one live break writes into a stitched playlist (docs/stitching.md)"
                )
            }
            settings.maximumFillSegments = Int(count)
        }
        if let preload = reader.take("preload") {
            settings.preload = try PreloadSettings.decode(preload, path: reader.at("preload"))
        }
        if let prefetch = reader.take("prefetch") {
            settings.prefetch = try PrefetchSettings.decode(prefetch, path: reader.at("prefetch"))
        }
        try reader.finish()
        return settings
    }

    /// An http(s) URL template of at most 4 KiB at `key`, if there is one.
    private static func template(_ key: String, in reader: inout JSONObjectReader) throws(APIError) -> String? {
        guard let text = try reader.string(key) else { return nil }
        guard text.utf8.count <= maximumTemplateBytes else {
            throw reader.error(key, "the URL template is longer than \(maximumTemplateBytes) bytes")
        }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
            HTTPOrigin.of(text) != nil,
            !text.contains(where: { $0.isWhitespace || $0 == "\"" })
        else {
            throw reader.error(
                key, "expected an http(s) URL template such as https://ads.example/\(key)?cb=[CACHEBUSTING]")
        }
        return text
    }
}
