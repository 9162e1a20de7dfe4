/// Records who watches the live channels: each playlist request of a live channel by its
/// viewer's session (``ViewerSessions``), the one place both lanes record it, for the prefetcher
/// and the preload hints' audience.
struct PlaylistViewers: Sendable {
    /// The viewers seen on each live channel's playlists.
    let sessions: ViewerSessions

    /// Records a playlist request of a live channel by the viewer's session: the request's
    /// `X-PLAYBACK-SESSION-ID` (`session`), else its `_HLS_primary_id`.
    func saw(_ mounted: ContentLibrary.Mounted, session: String?, query: [String: String]) {
        guard mounted.target.kind == .live, mounted.rest.hasSuffix(".m3u8") else { return }
        sessions.seen(session ?? query["_HLS_primary_id"], on: mounted.target)
    }
}
