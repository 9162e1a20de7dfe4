import HLSInterstitials
import HLSPlaylist

/// A VOD playlist of a directory content, read from its file: kept by the state's version (its
/// file does not change while the server runs).
struct FileOrigin: PlaylistOrigin {
    /// The playlist as read.
    var result: ParseResult

    /// Unchanged without media segments; else rendered on its VOD timeline, kept by the state's
    /// version once the VMAP breaks are settled.
    func work(_ request: PlaylistRequest) -> PlaylistWork {
        guard case .media(let playlist) = result.playlist, !playlist.segments.isEmpty else {
            return .unchanged(result)
        }
        let result = result
        return .render(
            PlaylistJob(
                key: request.renderedKey(), live: false,
                reuse: ContentResponse.Reuse(version: request.input.version, until: nil), waitsForVMAP: true,
                source: { PlaylistSource(result: result, timeline: PlaylistRenderer.vodTimeline(playlist).0) }))
    }
}
