/// What a content request says of its viewer, as each lane reads it from its own form of the
/// request: the ``FastLane`` from the head's bytes (``FastLane/viewer(in:fieldsStart:)``) and the
/// connection's peer, the `/**` route from Hummingbird's request and context. ``RequestEffects``
/// makes of it what the server records and tells ad servers.
struct RequestViewer: Hashable, Sendable {
    /// The `X-PLAYBACK-SESSION-ID` field, trimmed.
    var session: String?
    /// The `User-Agent` field.
    var userAgent: String?
    /// The connection's peer address (an IP address; nil for a Unix socket).
    var peer: String?
    /// The `X-Forwarded-For` field values, in order.
    var forwardedFor: [String]

    /// A viewer with these fields.
    init(session: String? = nil, userAgent: String? = nil, peer: String? = nil, forwardedFor: [String] = []) {
        self.session = session
        self.userAgent = userAgent
        self.peer = peer
        self.forwardedFor = forwardedFor
    }
}
