import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist

import enum MediaTiming.DecodeTimeShift

/// Answers the requests under a content path: playlists (through the ``PlaylistPipeline``), media
/// files, asset lists (``AssetListService``), the schedules' documents (``ScheduleDocuments``) and
/// the timelines.
///
/// It routes a request to the part that does the work; each request is planned on one
/// ``PlanningInput`` (the state, its version and the target's ad-server settings, read once).
final class ContentService: Sendable {
    /// A request's content, its target and the path under the content.
    typealias Mounted = ContentLibrary.Mounted

    let configuration: ServerConfiguration
    /// Makes the requests' planners and what depends on the targets' settings.
    let planners: BreakPlanners
    /// Puts the breaks into playlists.
    let pipeline: PlaylistPipeline
    /// The documents of the Date Range Schedules written into playlists.
    let schedules: ScheduleDocuments
    private let assetLists: AssetListService
    private let sources: ContentSources
    private let upstream: UpstreamContent
    private let loops = LiveLoopCache()
    /// The bytes of the media files served most (shifted segments are read from there).
    private let fileBodies: FileBodyCache
    private let now: @Sendable () -> DateTime

    /// A service answering `configuration`'s contents with these parts.
    init(
        configuration: ServerConfiguration, planners: BreakPlanners, pipeline: PlaylistPipeline,
        schedules: ScheduleDocuments, assetLists: AssetListService, sources: ContentSources, upstream: UpstreamContent,
        fileBodies: FileBodyCache, now: @escaping @Sendable () -> DateTime
    ) {
        self.configuration = configuration
        self.planners = planners
        self.pipeline = pipeline
        self.schedules = schedules
        self.assetLists = assetLists
        self.sources = sources
        self.upstream = upstream
        self.fileBodies = fileBodies
        self.now = now
    }

    /// The content whose path is the longest prefix of `path`.
    func mounted(_ path: String) -> Mounted? {
        var best: Mounted?
        for (kind, list) in [(Target.Kind.vod, configuration.vod), (.live, configuration.live)] {
            for content in list where path.hasPrefix(content.path + "/") {
                if best.map({ $0.content.path.count < content.path.count }) ?? true {
                    best = Mounted(
                        content: content, target: Target(kind, content.id),
                        rest: String(path.dropFirst(content.path.count + 1)))
                }
            }
        }
        return best
    }

    /// Answers a GET under a content path: the one function that answers a content request, for
    /// both lanes.
    ///
    /// The answer is known at once (``Pending/now(_:)``) when it takes no waiting: a playlist of a
    /// directory content already rendered for what it depends on (``RenderedPlaylistCache``: the
    /// stored state's version, a live window's last segment, the preload hints' length), a media
    /// file of a directory content, or an asset list filled at once
    /// (``AssetListService/assetList(query:target:planner:timeline:publicBase:userAgent:viewerIP:profile:stitched:)``).
    /// Anything that must be loaded, planned, rendered or asked first is found later
    /// (``Pending/later(_:)``), with nothing done before. The ``FastLane`` gives the answers known
    /// at once on a connection's event loop; the `/**` route waits for the others.
    ///
    /// - Throws: the request's error when it is known without waiting (a bad path, a missing file,
    ///   a bad asset-list query).
    func answer(
        _ mounted: Mounted, query: [String: String], userAgent: String? = nil, viewerIP: String? = nil
    ) throws(APIError) -> Pending<ContentResponse> {
        if mounted.target.kind == .vod {
            let input = planners.input(for: mounted.target)
            if planners.needsVMAP(mounted, input: input) {
                return .later { [self] () async throws(APIError) -> ContentResponse in
                    try await planners.prepareVMAP(mounted, input: input)
                    return try await content(
                        mounted, query: query, userAgent: userAgent, viewerIP: viewerIP, input: input
                    ).resolve()
                }
            }
            return try content(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP, input: input)
        }
        return try content(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP, input: nil)
    }

    /// ``answer(_:query:userAgent:viewerIP:)``, waited for.
    func get(
        _ mounted: Mounted, query: [String: String], userAgent: String? = nil, viewerIP: String? = nil
    ) async throws(APIError) -> ContentResponse {
        try await answer(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP).resolve()
    }

    /// ``answer(_:query:userAgent:viewerIP:)`` once a VOD asset's VMAP breaks are known, planned on
    /// `input` when it was read already (else read here, once, when needed).
    private func content(
        _ mounted: Mounted, query: [String: String], userAgent: String?, viewerIP: String?, input: PlanningInput?
    ) throws(APIError) -> Pending<ContentResponse> {
        switch mounted.rest {
        case "asset-list.json":
            return try assetList(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP, input: input)
        case "timeline.json" where mounted.target.kind == .vod:
            return .later { [self] () async throws(APIError) -> ContentResponse in
                .json(try await timeline(mounted).jsonDocument)
            }
        case "timeline.json":
            return .later { [self] () async throws(APIError) -> ContentResponse in
                .json(try await liveTimeline(mounted).jsonDocument)
            }
        case PublishedSchedule.documentName:
            return try schedules.document(mounted, query: query) { [self] mounted, name throws(APIError) in
                try await servedPrimary(mounted, name: name)
            }
        case "timeline.svg" where mounted.target.kind == .vod:
            return .later { [self] () async throws(APIError) -> ContentResponse in
                let schedule = try await timeline(mounted)
                return ContentResponse(
                    body: .bytes(Array(TimelinePicture.svg(schedule, title: mounted.content.path).utf8)),
                    contentType: "image/svg+xml", cacheControl: CachePolicy.revalidate)
            }
        default: break
        }
        guard let path = SafePath(mounted.rest) else {
            throw APIError.badRequest(code: .badPath, path: mounted.rest, "the path is not allowed")
        }
        let isPlaylist = path.text.hasSuffix(".m3u8")
        switch mounted.content.origin {
        case .directory(let directory):
            let file = path.file(in: directory)
            guard isPlaylist else {
                // A file: the ``FileResponder`` answers it, a missing one or a folder with 404 (one
                // `stat`, made there).
                if mounted.target.kind == .live, let shift = query["shift"] {
                    let name = mounted.content.path + "/" + path.text
                    return .later { [self] () throws(APIError) -> ContentResponse in
                        try ShiftedSegment.response(file, by: shift, name: name, bodies: fileBodies)
                    }
                }
                return .now(Self.mediaFile(file))
            }
            let input = input ?? planners.input(for: mounted.target)
            if let result = sources.files.kept(file: file) {
                return playlist(result, mounted: mounted, path: path, input: input)
            }
            return .later { [self] () async throws(APIError) -> ContentResponse in
                let result = try await sources.source(mounted.content).playlist(path.text)
                return try await playlist(result, mounted: mounted, path: path, input: input).resolve()
            }
        case .upstream(let entry):
            return .later { [upstream] () async throws(APIError) -> ContentResponse in
                try await upstream.content(mounted, entry: entry, path: path, query: query)
            }
        }
    }

    /// A playlist of a directory content with its planned breaks in: a live channel's media
    /// playlist looped (``LoopOrigin``, its loop made once), any other from its file
    /// (``FileOrigin``).
    private func playlist(
        _ result: ParseResult, mounted: Mounted, path: SafePath, input: PlanningInput
    ) -> Pending<ContentResponse> {
        guard mounted.target.kind == .live, case .media(let playlist) = result.playlist, !playlist.segments.isEmpty
        else {
            return pipeline.serve(FileOrigin(result: result), mounted: mounted, path: path, input: input)
        }
        if let loop = loops.kept(for: mounted.content, path: path) {
            return pipeline.serve(
                LoopOrigin(loop: loop, playlist: playlist), mounted: mounted, path: path, input: input)
        }
        return .later { [self] () async throws(APIError) -> ContentResponse in
            guard let loop = await loop(for: mounted.content, path: path, playlist: playlist) else {
                throw APIError(status: 500, code: .liveLoop, "\(path.text) cannot be looped")
            }
            return try await pipeline.serve(
                LoopOrigin(loop: loop, playlist: playlist), mounted: mounted, path: path, input: input
            ).resolve()
        }
    }

    /// The asset list a request names (``AssetListService``), planned on `input` (read here when
    /// nil); `stitched`: asked for the stitched form, which fires the impressions itself as the
    /// viewer requests the ad's segments.
    func assetList(
        _ mounted: Mounted, query: [String: String], userAgent: String?, viewerIP: String?, stitched: Bool = false,
        input: PlanningInput? = nil
    ) throws(APIError) -> Pending<ContentResponse> {
        let input = input ?? planners.input(for: mounted.target)
        let planner = planners.planner(for: mounted.content, target: mounted.target, input: input)
        let base = planners.publicBase
        let timeline = planners.referenceTimeline(mounted)
        let profile: @Sendable () async -> ConditioningProfile? = { [planners] in
            await planners.conditioningProfile(mounted, input: input)
        }
        // A timeline known at once is used without a closure (the fast lane's path).
        if let known = timeline.known {
            return try assetLists.assetList(
                query: query, target: mounted.target, planner: planner, timeline: known, publicBase: base,
                userAgent: userAgent, viewerIP: viewerIP, profile: profile, stitched: stitched)
        }
        return try timeline.then { [assetLists] timeline throws(APIError) in
            try assetLists.assetList(
                query: query, target: mounted.target, planner: planner, timeline: timeline, publicBase: base,
                userAgent: userAgent, viewerIP: viewerIP, profile: profile, stitched: stitched)
        }
    }

    /// The answer to `HEAD` of an asset list: the request is checked and the break looked up as for
    /// `GET`, but nothing is decided (no viewer attempt counted, no ad server asked); the fields are
    /// those of the `GET`, with no body.
    ///
    /// - Throws: 400 for a bad request, 404 for a break that is not there or not filled by the server.
    func assetListHead(_ mounted: Mounted, query: [String: String]) async throws(APIError) -> ContentResponse {
        if mounted.target.kind == .vod {
            try await planners.prepareVMAP(mounted, input: planners.input(for: mounted.target))
        }
        let timeline = try await planners.referenceTimeline(mounted).resolve()
        try assetLists.check(
            query: query, target: mounted.target, planner: planners.planner(for: mounted), timeline: timeline)
        return .json([UInt8]())
    }

    /// A media file of a directory content, answered from the file system.
    private static func mediaFile(_ file: String) -> ContentResponse {
        ContentResponse(
            body: .file(file), contentType: ContentResponse.contentType(of: file), cacheControl: CachePolicy.media)
    }

    /// The loop of a media playlist of a directory's live channel (cached), with the length of the
    /// channel's primary.
    private func loop(
        for content: ServerConfiguration.Content, path: SafePath, playlist: MediaPlaylist
    ) async -> LiveLoop? {
        let source = sources.source(content)
        return await loops.loop(for: content, path: path, playlist: playlist) {
            try? await source.primary().playlist
        }
    }

    /// The date of a live channel's live edge at `now` (where a break triggered now starts).
    func liveEdge(of channel: ServerConfiguration.Content, at now: DateTime) async -> DateTime {
        guard case .directory = channel.origin, let (location, media) = try? await sources.source(channel).primary(),
            let path = SafePath(location),
            let loop = await loop(for: channel, path: path, playlist: media)
        else { return now }
        return loop.window(at: now).end
    }

    // MARK: Timeline

    /// The primary media playlist of `mounted` exactly as a player gets it now; 404 at `name` when
    /// an upstream's primary is not under its entry's directory.
    private func servedPrimary(_ mounted: Mounted, name: String) async throws(APIError) -> MediaPlaylist {
        let location = try await sources.source(mounted.content).primary().location
        var relative = location
        if case .upstream(let entry) = mounted.content.origin, let slash = entry.lastIndex(of: "/") {
            let directory = entry[...slash]
            guard location.hasPrefix(directory) else { throw APIError.notFound(name) }
            relative = String(location.dropFirst(directory.count))
        }
        let response = try await get(
            Mounted(content: mounted.content, target: mounted.target, rest: relative), query: [:])
        guard let bytes = response.bytes,
            case .media(let media) = PlaylistParser.parse(bytes).playlist
        else { throw APIError(status: 502, code: .playlist, "\(location) is not a media playlist") }
        return media
    }

    /// The schedule of a VOD asset's primary with its planned breaks.
    private func timeline(_ mounted: Mounted) async throws(APIError) -> InterstitialSchedule {
        let media = try await sources.source(mounted.content).primary().playlist
        let (timeline, dated) = PlaylistRenderer.vodTimeline(media)
        let events = planners.planner(for: mounted).plan(timeline).map(\.event)
        return InterstitialSchedule.resolve(ScheduleInput(primary: dated, events: events, isLive: false))
    }

    /// The schedule of a live channel's current window: its primary media playlist exactly as a
    /// player gets it now, resolved. Its `startDate` ties its times to the window's dates.
    private func liveTimeline(_ mounted: Mounted) async throws(APIError) -> InterstitialSchedule {
        var media = try await servedPrimary(mounted, name: mounted.content.path + "/timeline.json")
        if mounted.content.interstitials == .schedule {
            media = schedules.withPublished(media, content: mounted.content)
        }
        return InterstitialSchedule.resolve(
            ScheduleInput(primary: media, events: ScheduleInput.events(of: media), isLive: true))
    }
}
