import Crypto
import HLSInterstitials
import HLSPlaylist

/// A playlist of an upstream content, as fetched: rendered for every request (they change with
/// the upstream origin), but a live one's kept by the origin's bytes, so that its signals are
/// recognized and its breaks planned once per origin answer and state, not once per viewer.
struct UpstreamOrigin: PlaylistOrigin {
    /// The playlist fetched.
    var result: ParseResult
    /// Dates the segments of live playlists without `EXT-X-PROGRAM-DATE-TIME`.
    var tracker: ProgramDateTimeTracker

    /// Served as it is without media segments, or live without dates; else rendered.
    func work(_ request: PlaylistRequest) -> PlaylistWork {
        let mounted = request.mounted
        guard case .media(let playlist) = result.playlist, !playlist.segments.isEmpty else {
            return .answer(PlaylistRenderer.unchanged(result, kind: mounted.target.kind))
        }
        let result = result
        switch mounted.target.kind {
        case .vod:
            return .render(
                PlaylistJob(
                    key: nil, live: false,
                    source: { PlaylistSource(result: result, timeline: PlaylistRenderer.vodTimeline(playlist).0) }))
        case .live:
            var source = result
            if !playlist.segments.contains(where: { $0.programDateTime != nil }) {
                source = tracker.dated(result, key: mounted.content.id + "/" + request.path.text, now: request.now())
            }
            let sourceBytes = source.document.write()
            guard case .media(let dated) = source.playlist,
                let timeline = PlaylistRenderer.liveTimeline(dated, content: mounted.content)
            else { return .answer(.playlist(sourceBytes, live: true, targetDuration: playlist.targetDuration)) }
            let preload = request.planners.preload(
                mounted.target, request.input, targetDuration: dated.targetDuration, ended: dated.hasEndList)
            var key = request.renderedKey()
            key.source = Array(SHA256.hash(data: sourceBytes))
            key.hintLength = preload?.length
            let planned = PlaylistSource(
                result: source, timeline: timeline, signalled: dated, occupied: Set(dated.dateRanges.map(\.id)),
                removingSignals: mounted.content.removesSignals)
            return .render(
                PlaylistJob(
                    key: key, preload: preload, live: true, targetDuration: playlist.targetDuration,
                    source: { planned }))
        }
    }
}
