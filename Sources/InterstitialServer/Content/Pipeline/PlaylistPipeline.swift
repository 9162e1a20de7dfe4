import HLSInterstitials
import HLSPlaylist

/// The one path of a playlist the server puts breaks into: plan → serve → render → keep.
///
/// Parameterised by origin (``PlaylistOrigin``: a directory's files, a live loop, an upstream
/// origin), which says what the playlist is kept by and gives its source, and by form
/// (``PlaylistForm``: tags or a schedule, by the content's `interstitials`), which writes the
/// served breaks in. For every origin and form the pipeline:
/// 1. answers a playlist kept for what it depends on at once (``Pending/now(_:)``);
/// 2. else, later: plans the breaks on the request's ``PlanningInput`` (``BreakPlanners``), with the
///    signals read (``SignalReader``);
/// 3. decides their first serving (``FirstServings``);
/// 4. writes them in (the form);
/// 5. keeps the playlist when what was served depends on the state alone (``RenderedPlaylistCache``).
///
/// The stitched form plugs in as another ``PlaylistForm`` (see there).
final class PlaylistPipeline: Sendable {
    private let planners: BreakPlanners
    private let servings: FirstServings
    private let signals: SignalReader
    private let rendered: RenderedPlaylistCache
    private let schedule: ScheduleForm
    private let now: @Sendable () -> DateTime

    /// A pipeline that plans with `planners`, reads signals with `signals`, decides first servings
    /// with `servings`, keeps playlists in `rendered`, writes schedules' documents to `schedules`,
    /// and reads the wall clock `now`.
    init(
        planners: BreakPlanners, servings: FirstServings, signals: SignalReader, rendered: RenderedPlaylistCache,
        schedules: ScheduleDocuments, now: @escaping @Sendable () -> DateTime
    ) {
        self.planners = planners
        self.servings = servings
        self.signals = signals
        self.rendered = rendered
        schedule = ScheduleForm(documents: schedules)
        self.now = now
    }

    /// The form `content`'s playlists are written in.
    func form(of content: ServerConfiguration.Content) -> any PlaylistForm {
        switch content.interstitials {
        case .tags: TagForm()
        case .schedule: schedule
        }
    }

    /// The playlist at `path` of `mounted` from `origin`, with its breaks in, planned on `input`:
    /// known at once when kept (or served as it is), else found later.
    func serve(
        _ origin: some PlaylistOrigin, mounted: ContentLibrary.Mounted, path: SafePath, input: PlanningInput
    ) -> Pending<ContentResponse> {
        let request = PlaylistRequest(
            mounted: mounted, path: path, input: input, base: planners.publicBase, planners: planners, now: now)
        switch origin.work(request) {
        case .answer(let response):
            return .now(response)
        case .unchanged(let result):
            return unchanged(result, mounted: mounted, path: path)
        case .render(let job):
            if let key = job.key, let entry = rendered.entry(key) {
                let response = ContentResponse.playlist(entry, live: job.live, targetDuration: job.targetDuration)
                guard let reuse = job.reuse else { return .now(response) }
                return .now(response.reused(version: reuse.version, until: reuse.until))
            }
            return .later { [self] () async throws(APIError) -> ContentResponse in
                try await render(job, request)
            }
        }
    }

    /// Plans, serves, writes and keeps `job`'s playlist.
    private func render(_ job: PlaylistJob, _ request: PlaylistRequest) async throws(APIError) -> ContentResponse {
        let source = try await job.source()
        let mounted = request.mounted
        var planner = planners.planner(
            for: mounted.content, target: mounted.target, input: request.input, base: request.base)
        planner.preload = job.preload
        var fromPrimary = false
        if let signalled = source.signalled {
            fromPrimary = await signals.signals(signalled, source.result, content: mounted.content, into: &planner)
        }
        let served = await servings.served(planner, source.timeline, occupied: source.occupied)
        let bytes = try form(of: mounted.content).write(served, into: source, mounted: mounted)
        guard let key = job.key else {
            return .playlist(bytes, live: job.live, targetDuration: job.targetDuration)
        }
        let entry = RenderedPlaylistCache.Entry(bytes)
        // Breaks from the primary's signals depend on more than this playlist: not kept.
        if served.isPure, !fromPrimary,
            !job.waitsForVMAP || planners.isVMAPSettled(mounted.content, input: request.input)
        {
            rendered.keep(entry, for: key)
        }
        return .playlist(entry, live: job.live, targetDuration: job.targetDuration)
    }

    /// A directory's playlist without media segments: its file does not change while the server
    /// runs, nor does what is served of it; kept once written.
    private func unchanged(
        _ result: ParseResult, mounted: ContentLibrary.Mounted, path: SafePath
    ) -> Pending<ContentResponse> {
        let key = RenderedPlaylistCache.Key(
            content: mounted.content.id, path: path.text, version: 0, sequence: nil, publicBase: "")
        let live = mounted.target.kind == .live
        if let kept = rendered.entry(key) { return .now(Self.unchanged(kept, result, live: live)) }
        return .later { [rendered] () throws(APIError) -> ContentResponse in
            let entry = RenderedPlaylistCache.Entry(result.document.write())
            rendered.keep(entry, for: key)
            return Self.unchanged(entry, result, live: live)
        }
    }

    /// The answer for a playlist served unchanged, cached as its kind says.
    private static func unchanged(
        _ entry: RenderedPlaylistCache.Entry, _ result: ParseResult, live: Bool
    ) -> ContentResponse {
        guard case .media(let empty) = result.playlist else { return .playlist(entry, live: live) }
        return .playlist(entry, live: !empty.hasEndList, targetDuration: empty.targetDuration)
    }
}
