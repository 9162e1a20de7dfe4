import HLSInterstitials
import HLSPlaylist

/// A media playlist of a directory's live channel, looped (``LiveLoop``): its window now, kept for
/// the window (the same for every time with its last segment), the state's version and the preload
/// hints' length.
struct LoopOrigin: PlaylistOrigin {
    /// The channel's loop of this playlist.
    var loop: LiveLoop
    /// The playlist looped.
    var playlist: MediaPlaylist

    /// The window now, with its signals read; a kept one is reused until the window moves on,
    /// unless it has preload hints (they change with the audience, not the state).
    func work(_ request: PlaylistRequest) -> PlaylistWork {
        let at = request.now()
        let content = request.mounted.content
        let preload = request.planners.preload(
            request.mounted.target, request.input, targetDuration: playlist.targetDuration)
        var key = request.renderedKey(sequence: loop.range(at: at).upperBound)
        key.hintLength = preload?.length
        let reuse =
            preload == nil
            ? loop.nextChange(after: at).map { ContentResponse.Reuse(version: request.input.version, until: $0) } : nil
        let loop = loop
        let file = request.path.text
        // A looped window never ends (no EXT-X-ENDLIST), whatever its source file has.
        return .render(
            PlaylistJob(
                key: key, preload: preload, live: true, targetDuration: playlist.targetDuration, reuse: reuse,
                source: {
                    let window = loop.window(at: at, signals: content.signalInserter)
                    let result = PlaylistParser.parse(window.text, options: ParseOptions(file: file))
                    var source = PlaylistSource(
                        result: result,
                        timeline: .live(
                            epoch: content.epoch, window: window.start..<window.end, lookahead: content.lookahead),
                        removingSignals: content.removesSignals)
                    if case .media(let looped) = result.playlist {
                        source.signalled = looped
                        source.occupied = Set(looped.dateRanges.map(\.id))
                    }
                    return source
                }))
    }
}
