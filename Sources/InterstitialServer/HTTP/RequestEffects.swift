/// What a content request does besides its answer, in one place for both lanes (the ``FastLane``
/// and the `/**` route, ``Routes``), each calling it once it has the answer:
///
/// - a live channel's media playlist request marks its viewer seen (``ViewerSessions``: the
///   audience of preload hints, and its activity, by which the decisions made ahead are for it once
///   it plays: ``ViewerActivity``), by its session: `X-PLAYBACK-SESSION-ID`, else `_HLS_primary_id`;
/// - with the viewer's device fields (``DeviceFields``: its user agent and address, the address
///   from the connection's peer and, behind trusted proxies, `X-Forwarded-For`: ``ViewerAddress``),
///   which the decisions made ahead for that session send to the ad server.
///
/// And which requests tell an ad server the viewer's address (``decisionAddress(_:_:)``): asset
/// lists only, in both lanes.
struct RequestEffects: Sendable {
    /// Where the viewers seen are kept.
    let sessions: ViewerSessions
    /// How the viewer's address is found from the peer and `X-Forwarded-For`.
    let addresses: ViewerAddress

    /// Effects on `sessions`, with the proxies `addresses` trusts.
    init(sessions: ViewerSessions, addresses: ViewerAddress) {
        self.sessions = sessions
        self.addresses = addresses
    }

    /// The viewer's address (``ViewerAddress/resolve(peer:forwardedFor:)``); nil without an IP peer.
    func address(of viewer: RequestViewer) -> String? {
        addresses.resolve(peer: viewer.peer, forwardedFor: viewer.forwardedFor)
    }

    /// The address an ad server may be told for a request of `mounted`: the viewer's for an asset
    /// list (the only answer an ad server decides), nil for anything else.
    func decisionAddress(_ mounted: ContentLibrary.Mounted, _ viewer: RequestViewer) -> String? {
        mounted.rest == "asset-list.json" ? address(of: viewer) : nil
    }

    /// Records what the request of `mounted` (with `query`) by `viewer` says, once it is answered:
    /// for a live channel's playlist, its session seen with its device fields. Nothing for anything
    /// else, nor for a session ``ViewerSessions`` does not accept (no address is looked up then).
    func record(_ mounted: ContentLibrary.Mounted, query: [String: String], viewer: RequestViewer) {
        guard mounted.target.kind == .live, mounted.rest.hasSuffix(".m3u8"),
            let session = viewer.session ?? query["_HLS_primary_id"], sessions.accepts(session)
        else { return }
        sessions.seen(
            session, on: mounted.target, device: DeviceFields(userAgent: viewer.userAgent, ip: address(of: viewer)))
    }
}
