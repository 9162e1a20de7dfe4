import HLSInterstitials
import HLSPlaylist

/// The playlists and files of upstream contents: fetched, their Date Range Schedules flattened
/// when the content asks (`flattenSchedules`), and their playlists served through the
/// ``PlaylistPipeline`` (``UpstreamOrigin``), one fetch and one rendering shared by the viewers
/// asking at about the same time.
struct UpstreamContent: Sendable {
    /// Fetches from the upstream origins.
    let upstream: UpstreamClient
    /// Writes upstream playlists' Date Range Schedules as plain date ranges (`flattenSchedules`).
    let scheduleFlattener: UpstreamScheduleFlattener
    /// Upstream playlists, fetched and rendered once for the viewers asking at about the same time.
    let sharedPlaylists: UpstreamPlaylistShare<ContentResponse>
    /// Dates live playlists without `EXT-X-PROGRAM-DATE-TIME`.
    let tracker: ProgramDateTimeTracker
    /// Puts the breaks into the playlists.
    let pipeline: PlaylistPipeline
    /// What requests are planned on.
    let planners: BreakPlanners

    /// A playlist or file of an upstream content at `entry`, fetched.
    func content(
        _ mounted: ContentLibrary.Mounted, entry: String, path: SafePath, query: [String: String]
    ) async throws(APIError) -> ContentResponse {
        let url = UpstreamClient.upstreamURL(entry: entry, path: path, query: query)
        let viewerQuery = !UpstreamQuery.forwarded(query, path: path).isEmpty
        if UpstreamQuery.isPlaylist(path) {
            // One fetch and one rendering per content and URL serve every viewer asking within a
            // second (two contents on one upstream have their own breaks).
            let key = mounted.content.id + "\n" + url
            return try await sharedPlaylists.playlist(key) { () async throws(APIError) -> ContentResponse in
                guard
                    case .playlist(let fetched) = try await upstream.fetch(
                        url, playlist: true, viewerQuery: viewerQuery)
                else {
                    throw APIError(status: 502, code: .upstreamFailed, "\(url) was not read whole")
                }
                return try await render(try await flattened(fetched, mounted: mounted, url: url), mounted, path)
            }
        }
        let type = try UpstreamMediaType.proxied(path.text, name: mounted.rest)
        switch try await upstream.fetch(url, playlist: false, viewerQuery: viewerQuery) {
        case .file(let body, _):
            return ContentResponse(body: .stream(body), contentType: type, cacheControl: CachePolicy.proxiedMedia)
        case .playlist(let fetched):
            return try await render(try await flattened(fetched, mounted: mounted, url: url), mounted, path)
        }
    }

    /// The fetched playlist with its breaks in, through the pipeline.
    private func render(
        _ result: ParseResult, _ mounted: ContentLibrary.Mounted, _ path: SafePath
    ) async throws(APIError) -> ContentResponse {
        try await pipeline.serve(
            UpstreamOrigin(result: result, tracker: tracker), mounted: mounted, path: path,
            input: planners.input(for: mounted.target)
        ).resolve()
    }

    /// `result`, fetched from `url`, with its Date Range Schedules written as plain date ranges
    /// when the content flattens them (`flattenSchedules`), else as it is.
    private func flattened(
        _ result: ParseResult, mounted: ContentLibrary.Mounted, url: String
    ) async throws(APIError) -> ParseResult {
        guard mounted.content.flattensSchedules else { return result }
        return try await scheduleFlattener.flatten(result, url: url)
    }
}
