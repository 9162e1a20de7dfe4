import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Serves primary content with its breaks: playlists with interstitial date ranges, media files,
/// asset lists, and the integrated timeline of VOD assets.
final class ContentLibrary: Sendable {
    struct Mounted: Sendable {
        var content: ServerConfiguration.Content
        var target: Target
        var rest: String
    }

    let configuration: ServerConfiguration
    let state: ServerState
    let inventory: any AdInventory
    let client: HTTPClient
    let logger: Logger
    let now: @Sendable () -> DateTime
    private let parsed = NIOLockedValueBox<[String: ParseResult]>([:])
    private let loops = NIOLockedValueBox<[String: LiveLoop]>([:])
    private let rendered = NIOLockedValueBox<[String: [UInt8]]>([:])
    private let tracker = ProgramDateTimeTracker()
    /// Requests in progress per upstream origin.
    private let upstreamRequests = NIOLockedValueBox<[String: Int]>([:])
    /// The start of the absolute URLs written (``ServerConfiguration/publicBase(boundPort:)``).
    private let base: NIOLockedValueBox<String>

    init(
        configuration: ServerConfiguration, state: ServerState, inventory: any AdInventory, client: HTTPClient,
        logger: Logger, now: @escaping @Sendable () -> DateTime
    ) {
        self.configuration = configuration
        self.state = state
        self.inventory = inventory
        self.client = client
        self.logger = logger
        self.now = now
        base = NIOLockedValueBox(configuration.publicBase(boundPort: configuration.port))
    }

    /// Records the port the server is bound to (the configured one may be 0), for absolute URLs.
    func serverBound(port: Int) {
        base.withLockedValue { $0 = configuration.publicBase(boundPort: port) }
    }

    /// The `scheme://host[:port]` absolute URLs start with; it comes from the configuration, never
    /// from a request.
    var publicBase: String { base.withLockedValue { $0 } }

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

    /// Answers a GET under a content path.
    func get(_ mounted: Mounted, query: [String: String]) async throws(APIError) -> ContentResponse {
        switch mounted.rest {
        case "asset-list.json": return try await assetList(mounted, query: query)
        case "timeline.json" where mounted.target.kind == .vod:
            return .json(try await timeline(mounted).json)
        case "timeline.svg" where mounted.target.kind == .vod:
            let schedule = try await timeline(mounted).schedule
            return ContentResponse(
                body: .bytes(Array(TimelinePicture.svg(schedule, title: mounted.content.path).utf8)),
                contentType: "image/svg+xml", cacheControl: "no-cache")
        default: break
        }
        guard let path = SafePath(mounted.rest) else {
            throw APIError.badRequest(code: "bad-path", path: mounted.rest, "the path is not allowed")
        }
        let isPlaylist = path.text.hasSuffix(".m3u8")
        switch mounted.content.origin {
        case .directory(let directory):
            let file = path.file(in: directory)
            guard isPlaylist else {
                guard Self.isFile(file) else { throw APIError.notFound(mounted.content.path + "/" + path.text) }
                return ContentResponse(
                    body: .file(file), contentType: ContentResponse.contentType(of: file), cacheControl: "max-age=3600")
            }
            let result = try playlist(file: file, name: mounted.content.path + "/" + path.text)
            return try await render(result, mounted: mounted, path: path)
        case .upstream(let entry):
            let url = Self.upstreamURL(entry: entry, path: path, query: query)
            switch try await fetch(url, playlist: isPlaylist) {
            case .file(let body, let type):
                return ContentResponse(
                    body: .stream(body), contentType: type.isEmpty ? ContentResponse.contentType(of: path.text) : type,
                    cacheControl: "max-age=60")
            case .playlist(let result):
                return try await render(result, mounted: mounted, path: path, upstream: true)
            }
        }
    }

    // MARK: Playlists

    private func render(
        _ result: ParseResult, mounted: Mounted, path: SafePath, upstream: Bool = false
    ) async throws(APIError) -> ContentResponse {
        guard case .media(let playlist) = result.playlist else {
            return .playlist(result.document.write(), live: mounted.target.kind == .live)
        }
        guard !playlist.segments.isEmpty else { return .playlist(result.document.write(), live: !playlist.hasEndList) }
        let planner = planner(for: mounted)
        switch mounted.target.kind {
        case .vod:
            let (timeline, _) = Self.vodTimeline(playlist)
            return .playlist(try insert(await served(planner, timeline), into: result), live: false)
        case .live where upstream:
            var source = result
            if !playlist.segments.contains(where: { $0.programDateTime != nil }) {
                source = tracker.dated(result, key: mounted.content.id + "/" + path.text, now: now())
            }
            guard case .media(let dated) = source.playlist, let first = dated.segments.first?.date,
                let last = dated.segments.last, let lastDate = last.date
            else { return .playlist(source.document.write(), live: true) }
            let timeline = BreakPlanner.Timeline.live(
                epoch: mounted.content.epoch, window: first..<(lastDate + last.duration),
                lookahead: mounted.content.lookahead)
            return .playlist(try insert(await served(planner, timeline), into: source), live: true)
        case .live:
            guard let loop = loop(for: mounted.content, path: path, playlist: playlist) else {
                throw APIError(status: 500, code: "live-loop", "\(path.text) cannot be looped")
            }
            let at = now()
            let sequence = loop.range(at: at).upperBound
            let (state, version) = state.versioned
            let key = "\(mounted.content.id)|\(path.text)|\(sequence)|\(version)"
            if let bytes = rendered.withLockedValue({ $0[key] }) { return .playlist(bytes, live: true) }
            let window = loop.window(at: at)
            let result = PlaylistParser.parse(window.text, options: ParseOptions(file: path.text))
            let timeline = BreakPlanner.Timeline.live(
                epoch: mounted.content.epoch, window: window.start..<window.end, lookahead: mounted.content.lookahead)
            var planner = planner
            planner.state = state
            let bytes = try insert(await served(planner, timeline), into: result)
            rendered.withLockedValue { cache in
                if cache.count > 512 { cache.removeAll(keepingCapacity: true) }
                cache[key] = bytes
            }
            return .playlist(bytes, live: true)
        }
    }

    /// The date ranges to serve from `planner` on `timeline`, with the first serving of new ones
    /// decided: a request that loses the race to another plans again with the values decided first.
    /// A value served for the first time is recorded before it is answered (at most
    /// ``ServerLimits/servedRecordTimeout``: a stuck database delays a new break, it does not stop
    /// playback).
    private func served(
        _ planner: BreakPlanner, _ timeline: BreakPlanner.Timeline
    ) async -> [BreakPlanner.Planned] {
        var planner = planner
        for _ in 0..<4 {
            let planned = planner.plan(timeline)
            let target = planner.target
            let entries = planned.compactMap { entry in
                entry.firstServing.map { (ServedKey(target, entry.event.identifier), $0) }
            }
            if let unsettled = state.claimServed(entries) {
                let timeout = configuration.limits.servedRecordTimeout.duration
                if !(await state.awaitRecorded(unsettled, timeout: timeout)) {
                    logger.warning(
                        "served \(unsettled.count) new date ranges of \(target) before the store recorded them")
                }
                return planned
            }
            planner.state = state.snapshot
        }
        return planner.plan(timeline)
    }

    private func insert(_ planned: [BreakPlanner.Planned], into result: ParseResult) throws(APIError) -> [UInt8] {
        let output: InterstitialInserter.Output
        do {
            output = try InterstitialInserter.insert(events: planned.map(\.event), into: result)
        } catch {
            throw APIError(status: 502, code: "playlist", "cannot add interstitials: \(error.message)")
        }
        return output.document.write()
    }

    func planner(for mounted: Mounted) -> BreakPlanner {
        let publicBase = publicBase
        return BreakPlanner(
            target: mounted.target, state: state.snapshot, assetListURI: mounted.content.path + "/asset-list.json",
            adURI: { ad in ad.uri.contains("://") ? ad.uri : publicBase + ad.uri })
    }

    /// The VOD timeline of a media playlist (dates added from the default epoch when it has none).
    static func vodTimeline(_ playlist: MediaPlaylist) -> (BreakPlanner.Timeline, MediaPlaylist) {
        let (dated, _) = InterstitialInserter.dated(playlist)
        let first = playlist.segments[0]
        let duration = dated.segments[dated.segments.count - 1].endTime - first.startTime
        let frozen = dated
        return (.vod(duration: duration, dateAt: { frozen.date(at: first.startTime + $0) }), dated)
    }

    private func playlist(file: String, name: String) throws(APIError) -> ParseResult {
        if let result = parsed.withLockedValue({ $0[file] }) { return result }
        guard Self.isFile(file), let data = FileManager.default.contents(atPath: file) else {
            throw APIError.notFound(name)
        }
        let result = PlaylistParser.parse(Array(data), options: ParseOptions(file: name))
        parsed.withLockedValue { $0[file] = result }
        return result
    }

    /// The loop of a media playlist of a directory's live channel (cached).
    private func loop(for content: ServerConfiguration.Content, path: SafePath, playlist: MediaPlaylist) -> LiveLoop? {
        guard case .directory(let directory) = content.origin else { return nil }
        let key = path.file(in: directory)
        if let loop = loops.withLockedValue({ $0[key] }) { return loop }
        // Every rendition loops with the length of the entry's first variant, so their dates agree.
        let reference = directoryReference(content)?.playlist ?? playlist
        let length = reference.segments[reference.segments.count - 1].endTime - reference.segments[0].startTime
        guard
            let loop = LiveLoop(
                source: playlist, loopDuration: length, epoch: content.epoch, windowSegments: content.windowSegments)
        else { return nil }
        loops.withLockedValue { $0[key] = loop }
        return loop
    }

    /// The entry of a directory's content if it is a media playlist, or else its first variant's, with
    /// its path; `nil` when there is none with segments.
    private func directoryReference(
        _ content: ServerConfiguration.Content
    ) -> (path: SafePath, playlist: MediaPlaylist)? {
        guard case .directory(let directory) = content.origin, let entryPath = SafePath(content.entry),
            let entry = try? playlist(file: entryPath.file(in: directory), name: content.entry)
        else { return nil }
        switch entry.playlist {
        case .media(let media) where !media.segments.isEmpty: return (entryPath, media)
        case .multivariant(let master):
            guard let uri = master.variants.first?.uri, let path = SafePath(uri),
                case .media(let media)? = try? playlist(file: path.file(in: directory), name: uri).playlist,
                !media.segments.isEmpty
            else { return nil }
            return (path, media)
        default: return nil
        }
    }

    // MARK: Asset lists

    private func assetList(
        _ mounted: Mounted, query: [String: String]
    ) async throws(APIError)
        -> ContentResponse
    {
        let request: AssetListQuery
        do {
            request = try AssetListQuery(
                parameters: query, maximumPrimaryIDLength: configuration.limits.viewerIDBytes)
        } catch {
            throw APIError.badRequest(code: error.code, path: error.parameter, error.message)
        }
        let id = request.interstitialID
        let offset = request.startOffset ?? .zero
        let viewer = request.primaryID
        let timeline = try await referenceTimeline(mounted)
        let planner = planner(for: mounted)
        guard let planned = planner.lookup(id: id, timeline), planned.source?.usesServerAssetList ?? true,
            let duration = BreakPlanner.fillDuration(of: planned.event)
        else { throw APIError.notFound("break \"\(id)\" of \(mounted.target)") }
        let attempt = state.attempt(viewer: viewer, target: mounted.target, id: id)
        let once = planned.event.willPlayOnce
        var ads: [Ad] = []
        if !(once && attempt > 0) {
            ads = await candidates(for: mounted.target, breakID: id)
        }
        let publicBase = publicBase
        let list = AdDecision.assetList(
            duration: duration, startOffset: offset, ads: ads, viewer: viewer, breakID: id, attempt: attempt,
            skipControl: planned.source?.assetListSkipControl,
            url: { ad in
                InsertionRequest.addingInterstitialID(id, to: ad.uri.contains("://") ? ad.uri : publicBase + ad.uri)
            })
        logger.info(
            "asset list",
            metadata: [
                "target": "\(mounted.target)", "break": "\(id)", "viewer": "\(viewer ?? "-")",
                "attempt": "\(attempt)", "offset": "\(offset)", "ads": "\(list.assets.count)",
            ])
        return .json(list.encoded())
    }

    /// The inventory's candidates, or none when it fails or misses the deadline.
    private func candidates(for target: Target, breakID: String) async -> [Ad] {
        let inventory = inventory
        let deadline = configuration.assetListDeadline
        let logger = logger
        return await withTaskGroup(of: [Ad]?.self) { group in
            group.addTask {
                do {
                    return try await inventory.candidates(for: target, breakID: breakID)
                } catch {
                    logger.warning("the ad inventory failed for \(breakID) of \(target); the break is empty: \(error)")
                    return []
                }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(0, deadline.nanoseconds)))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            guard let ads = first else {
                logger.warning(
                    "the ad inventory missed the \(deadline) s deadline for \(breakID) of \(target); the break is empty"
                )
                return []
            }
            return ads
        }
    }

    /// The timeline breaks of `mounted` are placed on, from its entry's first variant (VOD) or now (live).
    private func referenceTimeline(_ mounted: Mounted) async throws(APIError) -> BreakPlanner.Timeline {
        switch mounted.target.kind {
        case .live:
            let at = now()
            let content = mounted.content
            return .live(
                epoch: content.epoch, window: (at - MediaTime(seconds: 60))..<at, lookahead: content.lookahead)
        case .vod:
            let media = try await referenceMedia(mounted)
            return Self.vodTimeline(media).0
        }
    }

    private func referenceMedia(_ mounted: Mounted) async throws(APIError) -> MediaPlaylist {
        func load(_ path: String) async throws(APIError) -> ParseResult {
            guard let safe = SafePath(path) else { throw APIError.notFound(path) }
            switch mounted.content.origin {
            case .directory(let directory): return try playlist(file: safe.file(in: directory), name: path)
            case .upstream(let entry):
                let url = Self.upstreamURL(entry: entry, path: safe, query: [:])
                guard case .playlist(let result) = try await fetch(url, playlist: true) else {
                    throw APIError(status: 502, code: "upstream-not-playlist", "\(url) is not a playlist")
                }
                return result
            }
        }
        let entry = try await load(mounted.content.entry)
        switch entry.playlist {
        case .media(let media) where !media.segments.isEmpty: return media
        case .multivariant(let master):
            if let uri = master.variants.first?.uri, case .media(let media) = try await load(uri).playlist,
                !media.segments.isEmpty
            {
                return media
            }
        default: break
        }
        throw APIError(status: 502, code: "playlist", "\(mounted.content.path) has no media playlist with segments")
    }

    // MARK: Timeline

    private func timeline(
        _ mounted: Mounted
    ) async throws(APIError)
        -> (schedule: InterstitialSchedule, json: String)
    {
        let media = try await referenceMedia(mounted)
        let (timeline, dated) = Self.vodTimeline(media)
        let events = planner(for: mounted).plan(timeline).map(\.event)
        let schedule = InterstitialSchedule.resolve(ScheduleInput(primary: dated, events: events, isLive: false))
        return (schedule, schedule.jsonDocument)
    }

    // MARK: Upstream

    static func upstreamURL(entry: String, path: SafePath, query: [String: String]) -> String {
        var base = entry
        if let queryStart = base.firstIndex(of: "?") { base = String(base[..<queryStart]) }
        if let slash = base.lastIndex(of: "/") { base = String(base[...slash]) }
        var url = base + path.text
        let pairs = query.sorted { $0.key < $1.key }.map { key, value in
            "\(Self.escape(key))=\(Self.escape(value))"
        }
        if !pairs.isEmpty { url += "?" + pairs.joined(separator: "&") }
        return url
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+")))
            ?? text
    }

    /// What an upstream origin answered.
    enum Upstream: Sendable {
        /// A playlist, read whole and checked.
        case playlist(ParseResult)
        /// Another file, streamed, with its Content-Type.
        case file(ResponseBody, String)
    }

    /// Fetches an upstream resource from an allowed origin, within the limits: one of the origin's
    /// request slots (503 when none is free), the whole-response timeout and size cap of a playlist
    /// (`playlist`, or a response whose type says it is one), or the head and chunk timeouts, the
    /// transfer timeout and the size cap of a streamed file. Failures are 502, 503 or 504 with the reason.
    func fetch(_ url: String, playlist: Bool) async throws(APIError) -> Upstream {
        guard let origin = ServerConfiguration.origin(of: url), configuration.allowedOrigins.contains(origin) else {
            throw APIError(status: 502, code: "upstream-origin", "\(url) is not on an allowed origin")
        }
        let limits = configuration.limits
        let slot = try takeSlot(origin)
        let started = ContinuousClock.now
        let client = client
        do {
            let response = try await client.execute(
                HTTPClientRequest(url: url), timeout: .nanoseconds(limits.upstreamTimeout.nanoseconds))
            guard response.status == .ok else {
                throw APIError(status: 502, code: "upstream-status", "\(url) answered \(response.status.code)")
            }
            let type = response.headers.first(name: "content-type") ?? ""
            let length = response.headers.first(name: "content-length").flatMap { Int($0) }
            guard playlist || type.lowercased().contains("mpegurl") else {
                if let length, length > limits.upstreamFileBytes {
                    throw APIError(
                        status: 502, code: "upstream-too-large",
                        "\(url) is \(length) bytes, more than the \(limits.upstreamFileBytes) allowed")
                }
                return .file(stream(response.body, length: length, url: url, slot: slot), type)
            }
            defer { slot.release() }
            if let length, length > limits.upstreamPlaylistBytes {
                throw APIError(
                    status: 502, code: "upstream-too-large",
                    "the playlist \(url) is \(length) bytes, more than the \(limits.upstreamPlaylistBytes) allowed")
            }
            let remaining = limits.upstreamTimeout.duration - (ContinuousClock.now - started)
            let body = try await withTimeLimit(remaining) {
                try await response.body.collect(upTo: limits.upstreamPlaylistBytes)
            }
            return .playlist(try Self.checkedPlaylist(Array(buffer: body), url: url, contentType: type))
        } catch let error as APIError {
            slot.release()
            throw error
        } catch let error as NIOTooManyBytesError {
            _ = error
            slot.release()
            throw APIError(
                status: 502, code: "upstream-too-large",
                "the playlist \(url) is larger than the \(limits.upstreamPlaylistBytes) bytes allowed")
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            slot.release()
            throw APIError(status: 504, code: "upstream-timeout", "\(url) did not answer in time")
        } catch is TimeLimitExceeded {
            slot.release()
            throw APIError(
                status: 504, code: "upstream-timeout", "\(url) did not answer whole within \(limits.upstreamTimeout) s")
        } catch {
            slot.release()
            throw APIError(status: 502, code: "upstream-failed", "\(url) failed: \(error)")
        }
    }

    /// An upstream playlist, if it is one: `#EXTM3U` first, UTF-8, a media or multivariant
    /// playlist whose structure parses; else 502 with the reason.
    static func checkedPlaylist(_ bytes: [UInt8], url: String, contentType: String) throws(APIError) -> ParseResult {
        do {
            try PlaylistLoader.checkPlaylistContent(bytes, location: url, contentType: contentType)
        } catch {
            throw APIError(status: 502, code: "upstream-not-playlist", "\(url): \(error.message)")
        }
        let result = PlaylistParser.parse(bytes, options: ParseOptions(file: url, playlistURL: url))
        let fatal: Set<RuleID> = [
            Rule.playlistHeader.id, Rule.playlistEncoding.id, Rule.playlistKind.id, Rule.segmentURI.id,
            Rule.streamURI.id, Rule.tagMissing.id,
        ]
        if let problem = result.diagnostics.first(where: { $0.severity == .error && fatal.contains($0.rule) }) {
            throw APIError(
                status: 502, code: "upstream-not-playlist", "\(url) is not a usable playlist: \(problem.message)")
        }
        return result
    }

    /// The body of an upstream file, passed on chunk by chunk: cut off beyond
    /// ``ServerLimits/upstreamFileBytes`` or ``ServerLimits/upstreamTransferTimeout`` (a stalled
    /// upstream is cut by the HTTP client's read timeout, ``ServerLimits/upstreamTimeout``).
    private func stream(
        _ body: HTTPClientResponse.Body, length: Int?, url: String, slot: UpstreamSlot
    ) -> ResponseBody {
        let limits = configuration.limits
        let deadline = ContinuousClock.now + limits.upstreamTransferTimeout.duration
        let logger = logger
        return ResponseBody(contentLength: length) { writer in
            defer { slot.release() }
            var received = 0
            do {
                for try await chunk in body {
                    received += chunk.readableBytes
                    guard received <= limits.upstreamFileBytes else {
                        throw APIError(
                            status: 502, code: "upstream-too-large",
                            "\(url) is larger than the \(limits.upstreamFileBytes) bytes allowed")
                    }
                    guard ContinuousClock.now < deadline else {
                        throw APIError(
                            status: 504, code: "upstream-timeout",
                            "\(url) took longer than \(limits.upstreamTransferTimeout) s")
                    }
                    try await writer.write(chunk)
                }
            } catch {
                logger.warning("cut off the upstream body of \(url) after \(received) bytes: \(error)")
                throw error
            }
            try await writer.finish(nil)
        }
    }

    /// Takes one of the origin's ``ServerLimits/upstreamConcurrency`` request slots, or fails with 503.
    private func takeSlot(_ origin: String) throws(APIError) -> UpstreamSlot {
        let limit = configuration.limits.upstreamConcurrency
        let counts = upstreamRequests
        let taken = counts.withLockedValue { counts in
            guard counts[origin, default: 0] < limit else { return false }
            counts[origin, default: 0] += 1
            return true
        }
        guard taken else {
            throw APIError(
                status: 503, code: "upstream-busy", "\(limit) requests to \(origin) are in progress; try again soon")
        }
        return UpstreamSlot {
            counts.withLockedValue { counts in
                counts[origin, default: 1] -= 1
                if counts[origin] == 0 { counts[origin] = nil }
            }
        }
    }

    static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}

extension ContentLibrary {
    /// The date of a live channel's live edge at `now` (where a break triggered now starts).
    func liveEdge(of channel: ServerConfiguration.Content, at now: DateTime) -> DateTime {
        guard let (path, media) = directoryReference(channel),
            let loop = loop(for: channel, path: path, playlist: media)
        else { return now }
        return loop.window(at: now).end
    }
}

/// One request's hold on an upstream origin's slots, released once (explicitly, or when dropped).
final class UpstreamSlot: Sendable {
    private let onRelease: NIOLockedValueBox<(@Sendable () -> Void)?>

    init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = NIOLockedValueBox(onRelease) }

    func release() {
        let action = onRelease.withLockedValue { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { release() }
}
