import HLSInterstitials
import HLSPlaylist

/// Where a playlist the server puts breaks into comes from: the files of a directory content
/// (``FileOrigin``), a directory's live channel looped (``LoopOrigin``), or an upstream origin
/// (``UpstreamOrigin``). An origin says what serving its playlist takes (``PlaylistWork``); the
/// ``PlaylistPipeline`` does the rest, the same for every origin.
protocol PlaylistOrigin: Sendable {
    /// What serving this origin's playlist takes for `request`.
    func work(_ request: PlaylistRequest) -> PlaylistWork
}

/// One playlist request as the ``PlaylistPipeline`` serves it.
struct PlaylistRequest: Sendable {
    /// The content and the playlist's path under it.
    var mounted: ContentLibrary.Mounted
    /// The playlist's path under its content.
    var path: SafePath
    /// What the request is planned on, read once.
    var input: PlanningInput
    /// The start of the absolute URLs written in.
    var base: String
    /// The planners, for what depends on the target's settings (preload hints).
    var planners: BreakPlanners
    /// The wall clock.
    var now: @Sendable () -> DateTime

    /// What the playlist rendered for this request is kept by: the content, the path, the state's
    /// version, the public base, and a live window's last media `sequence`.
    func renderedKey(sequence: Int64? = nil) -> RenderedPlaylistCache.Key {
        RenderedPlaylistCache.Key(
            content: mounted.content.id, path: path.text, version: input.version, sequence: sequence, publicBase: base)
    }
}

/// What serving an origin's playlist takes.
enum PlaylistWork: Sendable {
    /// Nothing to place breaks in or to plan on: this answer, as it is.
    case answer(ContentResponse)
    /// A directory's playlist without media segments, served unchanged and kept (its file does
    /// not change while the server runs).
    case unchanged(ParseResult)
    /// Plan, serve, render and keep (``PlaylistJob``).
    case render(PlaylistJob)
}

/// A playlist to put breaks into: what it is kept by, how it is answered, and its source.
struct PlaylistJob: Sendable {
    /// What the rendered playlist is kept by (``RenderedPlaylistCache``); nil: rendered for each
    /// request and answered as plain bytes.
    var key: RenderedPlaylistCache.Key?
    /// The preload hints' inputs; nil: no hints.
    var preload: BreakPlanner.Preload? = nil
    /// Whether the playlist is a live one (its caching), and its target duration.
    var live: Bool
    var targetDuration: UInt64? = nil
    /// How long a kept answer stays the answer to its request (the fast lane's ``AnswerCache``).
    var reuse: ContentResponse.Reuse? = nil
    /// Whether a playlist may be kept only once the breaks VMAP places are settled (a VOD asset).
    var waitsForVMAP = false
    /// The playlist to render and what it is planned on (a live window is made only when needed).
    var source: @Sendable () async throws(APIError) -> PlaylistSource
}

/// The playlist the served breaks are written into, and what its breaks are planned on.
struct PlaylistSource: Sendable {
    /// The parsed playlist.
    var result: ParseResult
    /// The timeline its breaks are placed on.
    var timeline: BreakPlanner.Timeline
    /// The media playlist whose SCTE-35 signals become breaks (``SignalReader``); nil: none read.
    var signalled: MediaPlaylist? = nil
    /// The IDs of the date ranges it has (no preload hint takes one).
    var occupied: Set<String> = []
    /// Whether its SCTE-35 markers are left out.
    var removingSignals = false
}
