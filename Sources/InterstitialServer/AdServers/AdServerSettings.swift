import AdDecisioning
import HLSInterstitials

/// How a target's breaks are filled by a VAST ad decision server instead of the stored inventory.
///
/// `{"vast": "https://ads.example/vast?dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]",
/// "tracking": "client", "maxWrapperDepth": 5}`: the tag URL template is filled per asset-list request
/// (``AdTagTemplate``: break ID and duration, the viewer's `_HLS_primary_id` as session, the content ID,
/// the viewer's user agent, a cache buster; unknown macros are left as VAST 4.3 §6.1 says).
public struct AdServerSettings: Hashable, Sendable {
    /// Who fires the impressions.
    public enum Tracking: String, Hashable, Sendable {
        /// The player, from the asset list's `X-AD-CREATIVE-SIGNALING` (SVTA2053-2).
        case client
        /// The server, when it answers the asset list (for players that cannot); the signaling then
        /// leaves impressions out so that none is counted twice.
        case server
    }

    /// The largest tag template accepted, in bytes.
    public static let maximumTemplateBytes = 4096

    /// The VAST tag URL template.
    public var vast: AdTagTemplate
    /// Who fires impressions.
    public var tracking: Tracking
    /// How many wrappers are followed (IAB recommends at most 5).
    public var maximumWrapperDepth: Int

    /// Creates settings.
    public init(vast: String, tracking: Tracking = .client, maximumWrapperDepth: Int = 5) {
        self.vast = AdTagTemplate(vast, serverUA: "hlsi")
        self.tracking = tracking
        self.maximumWrapperDepth = maximumWrapperDepth
    }

    /// `{"vast", "tracking", "maxWrapperDepth"}`.
    public var jsonValue: JSONValue {
        .object([
            "vast": .string(vast.template), "tracking": .string(tracking.rawValue),
            "maxWrapperDepth": .integer(Int64(maximumWrapperDepth)),
        ])
    }

    /// Reads settings: an http(s) tag URL of at most 4 KiB, `client` or `server` tracking, a wrapper
    /// depth from 0 to 10.
    public static func decode(_ value: JSONValue, path: String = "") throws(APIError) -> AdServerSettings {
        var reader = try JSONObjectReader(value, path: path)
        let vast = try reader.requiredString("vast")
        guard vast.utf8.count <= maximumTemplateBytes else {
            throw reader.error("vast", "the tag URL template is longer than \(maximumTemplateBytes) bytes")
        }
        let lowered = vast.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
            ServerConfiguration.origin(of: vast) != nil,
            !vast.contains(where: { $0.isWhitespace || $0 == "\"" })
        else {
            throw reader.error(
                "vast", "expected an http(s) URL template such as https://ads.example/vast?cb=[CACHEBUSTING]")
        }
        var tracking = Tracking.client
        if let text = try reader.string("tracking") {
            guard let value = Tracking(rawValue: text) else {
                throw reader.error("tracking", "expected \"client\" or \"server\", found \"\(text)\"")
            }
            tracking = value
        }
        let depth = try reader.integer("maxWrapperDepth", in: 0...10) ?? 5
        try reader.finish()
        return AdServerSettings(vast: vast, tracking: tracking, maximumWrapperDepth: depth)
    }
}
