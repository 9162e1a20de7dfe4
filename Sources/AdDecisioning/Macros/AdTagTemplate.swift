import HLSPlaylist

/// The ad-decision request URL of a target, with macros filled per asset-list request.
///
/// The template uses VAST's `[MACRO]` syntax (VAST 4.1 §1.5 "VAST Ad Requests … based on macros").
/// Besides the VAST macros of ``VASTMacroValues`` it knows the server's own: `[BREAKID]` (the
/// interstitial's ID), `[BREAKDURATION]` (seconds, with a fraction when needed), `[SESSIONID]`
/// (`_HLS_primary_id`, the playback session) and `[CONTENTID]` (the asset). `[DEVICEIP]` and
/// `[DEVICEUA]` carry the viewer's address and user agent, as VAST 4.1 asks a server that requests
/// on a client's behalf; `[SERVERSIDE]` is 1 for that reason. Unknown macros stay as written.
public struct AdTagTemplate: Hashable, Sendable {
    /// What one ad-decision request is for.
    public struct Request: Hashable, Sendable {
        /// The interstitial's ID.
        public var breakID: String
        /// The break's planned duration.
        public var breakDuration: MediaTime?
        /// The playback session: the player's `_HLS_primary_id`.
        public var sessionID: String?
        /// The asset (content) ID.
        public var contentID: String?
        /// The viewer's IP address.
        public var viewerIP: String?
        /// The viewer's user agent.
        public var viewerUserAgent: String?
        /// Position: 1 pre-roll, 2 mid-roll, 3 post-roll.
        public var breakPosition: Int?
        /// The 8-digit cache buster.
        public var cacheBuster: String
        /// The time of the request.
        public var timestamp: DateTime
        /// Other macros, by name without brackets.
        public var custom: [String: [String]]

        /// Creates a request.
        public init(breakID: String, cacheBuster: String, timestamp: DateTime) {
            self.breakID = breakID
            self.cacheBuster = cacheBuster
            self.timestamp = timestamp
            self.custom = [:]
        }
    }

    /// The template as configured.
    public var template: String
    /// The server's user agent for `[SERVERUA]`.
    public var serverUA: String?

    /// The server's own macros, known in addition to VAST's.
    public static let serverMacros: Set<String> = ["BREAKID", "BREAKDURATION", "SESSIONID", "CONTENTID"]

    /// The macros whose value is the same for every viewer of a break (the break, the content, the
    /// server): a template that uses no other macro gives identical URLs that may share one request.
    public static let sharedMacros: Set<String> = [
        "BREAKID", "BREAKDURATION", "CONTENTID", "SERVERUA", "SERVERSIDE", "BREAKMAXDURATION", "BREAKPOSITION",
    ]

    /// Whether every viewer of a break gets the same URL: the template uses only ``sharedMacros``
    /// (none of `[SESSIONID]`, `[DEVICEIP]`, `[DEVICEUA]`, `[CACHEBUSTING]`, `[TIMESTAMP]`…).
    public var isShared: Bool {
        VASTMacros.names(in: template).allSatisfy { Self.sharedMacros.contains($0) }
    }

    /// Creates a template.
    public init(_ template: String, serverUA: String? = nil) {
        self.template = template
        self.serverUA = serverUA
    }

    /// The macros of the template that neither VAST nor the server knows (for a warning in the
    /// admin API; they are sent as written).
    public var unknownMacros: [String] {
        VASTMacros.names(in: template).filter {
            !VASTMacroValues.known.contains($0) && !Self.serverMacros.contains($0)
        }
    }

    /// The URL for `request`.
    public func url(for request: Request) -> String {
        var values = VASTMacroValues(cacheBusting: request.cacheBuster, timestamp: request.timestamp)
        values.deviceIP = request.viewerIP
        values.deviceUA = request.viewerUserAgent
        values.serverUA = serverUA
        values.serverSide = 1
        values.breakPosition = request.breakPosition
        if let duration = request.breakDuration {
            values.breakMaxDuration = Int(duration.seconds.rounded(.up))
        }
        var custom: [String: [String]] = ["BREAKID": [request.breakID]]
        custom["BREAKDURATION"] = request.breakDuration.map { [$0.description] }
        custom["SESSIONID"] = request.sessionID.map { [$0] } ?? ["-1"]
        custom["CONTENTID"] = request.contentID.map { [$0] } ?? ["-1"]
        values.custom = custom.merging(request.custom) { _, given in given }
        if request.breakDuration == nil { values.custom["BREAKDURATION"] = ["-1"] }
        return VASTMacros.fill(template, with: values)
    }
}
