import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import PlaybackCoordination

/// The server's routes: the web page, content, ads, and the admin API.
struct Routes {
    /// Answers the requests under a content path.
    let content: ContentService
    /// The server's state (its version keys the fast lane's answers).
    let state: ServerState
    let configuration: ServerConfiguration
    /// The wall clock.
    let now: @Sendable () -> DateTime
    /// The relay of `tracking: relay` beacons.
    let beaconRelay: BeaconRelay
    /// Sends the tracking requests the server makes itself; nil without an ad-decision client.
    let dispatcher: TrackingDispatcher?
    let admin: AdminAPI
    let mailbox: HandoffMailbox
    /// The counts served on `GET /metrics`; the server passes the one its content library records into.
    let metrics: ServerMetrics
    /// Answers for files, with the bytes of the most used kept in memory.
    let files: FileResponder
    /// The fast lane's playlist answers kept by request target while they hold.
    let answers = AnswerCache()
    /// The fast lane's answers for files, kept by request target without their bodies: the head
    /// written once, given again while the state has its version and the file is the one found
    /// (`stat`), the body from the ``FileResponder`` (apart from the playlists', so that a channel's
    /// rolling segments do not drop those).
    let fileAnswers = AnswerCache(limit: 4096)
    /// The stitched form of the targets' playlists, and its ad segments' beacons.
    let stitched: StitchedService
    /// What a content request does besides its answer, for both lanes.
    let effects: RequestEffects

    /// The routes of `library`'s contents (their collaborators taken from the composition root).
    init(library: ContentLibrary, admin: AdminAPI, mailbox: HandoffMailbox, metrics: ServerMetrics = ServerMetrics()) {
        content = library.content
        state = library.state
        configuration = library.configuration
        now = library.now
        beaconRelay = library.beaconRelay
        dispatcher = library.dispatcher
        self.admin = admin
        self.mailbox = mailbox
        self.metrics = metrics
        files = FileResponder(logger: library.logger, cache: library.fileBodies)
        stitched = StitchedService(library: library, fetcher: library.vmapPlans.fetcher)
        effects = RequestEffects(
            sessions: library.sessions,
            addresses: ViewerAddress(
                trusted: library.configuration.trustedProxies.compactMap(ViewerAddress.Network.init)))
    }

    /// The answers to content requests known at once (``ContentService/answer(_:query:userAgent:viewerIP:)``
    /// gives them as ``Pending/now(_:)``), for the ``RequestGuard`` to give on the connection's
    /// event loop: what the `/**` route below answers them, fields and body (both made by
    /// ``http(_:)`` and ``FileResponder/whole(path:identity:name:contentType:cacheControl:)``);
    /// `hlsi_fast_answers_total` counts those written. A query on anything but an asset list (a
    /// looped segment's `shift`) is left to the route.
    func fastLane(serverName: String) -> FastLane {
        let content = content
        let state = state
        let now = now
        let files = files
        let metrics = metrics
        let kept = answers
        let keptFiles = fileAnswers
        let effects = effects
        // With `stitchedUserAgents`, a playlist's form depends on the User-Agent, which the fast
        // lane does not see: the route answers playlists.
        let byUserAgent = !configuration.stitchedUserAgents.patterns.isEmpty
        return FastLane(serverName: serverName, answered: { metrics.fastAnswered() }) { target, viewer in
            if byUserAgent, URI(target).path.hasSuffix(".m3u8") { return nil }
            // Only playlists without a query are kept: other targets skip the lookup, lock and clock.
            if target.hasSuffix(".m3u8"),
                let entry = kept.entry(target, version: state.version, now: now())
            {
                effects.record(entry.mounted, query: [:], viewer: viewer)
                return entry.answer
            }
            // A file answered before, the same file now: its kept head, its body as kept. Only
            // targets without a query are kept (asset lists skip the lookup and the state's lock);
            // the version is read before the answer is made, so one kept is never newer than it.
            let version = target.utf8.contains(UInt8(ascii: "?")) ? nil : state.version
            if let version, let entry = keptFiles.entry(target, version: version, now: now()),
                case .file(let path, let identity) = entry.answer.body, FileBodyCache.identity(of: path) == identity,
                let body = files.body(path: path, identity: identity)
            {
                effects.record(entry.mounted, query: [:], viewer: viewer)
                var answer = entry.answer
                if case .bytes(let bytes) = body { answer.body = .bytes(bytes) }
                return answer
            }
            let uri = URI(target)
            let query = uri.queryDictionary
            guard let mounted = content.mounted(uri.path), query.isEmpty || mounted.rest == "asset-list.json",
                let response =
                    (try? content.answer(
                        mounted, query: query, userAgent: viewer.userAgent,
                        viewerIP: effects.decisionAddress(mounted, viewer)))?.known
            else { return nil }
            effects.record(mounted, query: query, viewer: viewer)
            var answer: FastLane.Answer
            var fileIdentity: FileBodyCache.Identity?
            let http = Self.http(response)
            switch http {
            case .memory(let fields, let body):
                answer = FastLane.Answer(fields: fields, body: .bytes(body))
                answer.fields[.contentLength] = String(body.readableBytes)
            case .file(let path):
                guard let identity = FileBodyCache.identity(of: path),
                    let whole = files.whole(
                        path: path, identity: identity, name: uri.path, contentType: response.contentType,
                        cacheControl: response.cacheControl
                    ).known
                else { return nil }
                fileIdentity = identity
                switch whole.body {
                case .bytes(let body): answer = FastLane.Answer(fields: whole.fields, body: .bytes(body))
                case .file(let identity):
                    answer = FastLane.Answer(fields: whole.fields, body: .file(path: path, identity: identity))
                }
            case .stream:
                return nil
            }
            HTTPSemanticsMiddleware<ServerRequestContext>.addPublicFields(to: &answer.fields)
            if let reuse = response.reuse, query.isEmpty, case .bytes = answer.body {
                var made = answer
                made.written = answer.written(allocator: ByteBufferAllocator())
                kept.keep(AnswerCache.Entry(answer: made, mounted: mounted, reuse: reuse), for: target)
            } else if case .file(let path) = http, let version, let identity = fileIdentity {
                var made = answer
                made.written = answer.written(allocator: ByteBufferAllocator())
                made.body = .file(path: path, identity: identity)
                keptFiles.keep(
                    AnswerCache.Entry(answer: made, mounted: mounted, reuse: .init(version: version, until: nil)),
                    for: target)
            }
            return answer
        }
    }

    /// `X-PLAYBACK-SESSION-ID`: the field in which a player sends the ID of its playback session.
    static let sessionField = HTTPField.Name("X-PLAYBACK-SESSION-ID")!

    /// A content answer as HTTP, for both lanes.
    enum HTTPAnswer {
        /// A `200` with these fields (without `Content-Length`) and this body in memory.
        case memory(HTTPFields, ByteBuffer)
        /// A file, answered by the ``FileResponder``.
        case file(String)
        /// A `200` with these fields and a body streamed from elsewhere.
        case stream(HTTPFields, ResponseBody)
    }

    /// What `response` is answered with: the one place its fields are made.
    static func http(_ response: ContentResponse) -> HTTPAnswer {
        switch response.body {
        case .bytes(let bytes):
            return .memory(
                Response.fields(bytes, contentType: response.contentType, cacheControl: response.cacheControl),
                ByteBuffer(bytes: bytes))
        case .rendered(let entry):
            var headers = HTTPFields()
            headers[.contentType] = response.contentType
            headers[.cacheControl] = response.cacheControl
            headers[.eTag] = entry.entityTag
            return .memory(headers, entry.body)
        case .file(let path):
            return .file(path)
        case .stream(let body):
            // A body streamed from an upstream origin: its type is the server's, and it never
            // runs as a page of this origin (``UpstreamMediaType``).
            var headers = HTTPFields()
            headers[.contentType] = response.contentType
            headers[.cacheControl] = response.cacheControl
            for field in UpstreamMediaType.securityFields {
                if let name = HTTPField.Name(field.name) { headers[name] = field.value }
            }
            return .stream(headers, body)
        }
    }

    func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: HTTPSemanticsMiddleware())
        let files = files
        @Sendable func file(
            _ path: String, _ type: String, _ cache: String, _ request: Request, _ context: ServerRequestContext
        ) async throws -> Response {
            try await files.respond(
                path: path, name: request.uri.path, contentType: type, cacheControl: cache, request: request,
                context: context)
        }
        let localHLSJS = configuration.hlsjs.flatMap { $0.contains("://") ? nil : $0 }
        let page = DemoPage.html(
            configuration: configuration, hlsjs: localHLSJS == nil ? configuration.hlsjs : "/assets/hls.mjs")
        let pageDirectory = DemoPage.directory
        router.get("/") { _, _ in
            Response.bytes(
                Array(page.utf8), contentType: "text/html; charset=utf-8", cacheControl: CachePolicy.revalidate)
        }
        router.get("/favicon.ico") { _, _ in Response(status: .noContent) }
        router.get("/page/:file") { request, context in
            let name = context.parameters.get("file") ?? ""
            guard let pageDirectory, let path = SafePath(name), !name.hasPrefix(".") else {
                throw APIError.notFound(request.uri.path)
            }
            let type = name.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
            return try await file(path.file(in: pageDirectory), type, CachePolicy.revalidate, request, context)
        }
        if let localHLSJS {
            router.get("/assets/hls.mjs") { request, context in
                try await file(localHLSJS, "text/javascript", CachePolicy.revalidate, request, context)
            }
        }
        let adDirectory = configuration.adDirectory
        router.get("/ads/**") { request, context in
            guard let adDirectory else { throw APIError.notFound(request.uri.path) }
            guard let path = SafePath(request.uri.path.dropFirst("/ads/".count)) else {
                throw APIError.badRequest(code: .badPath, path: request.uri.path, "the path is not allowed")
            }
            let adFile = path.file(in: adDirectory)
            return try await file(adFile, ContentResponse.contentType(of: adFile), CachePolicy.media, request, context)
        }
        let creativeCache = configuration.creativeCache
        router.get("/creatives/**") { request, context in
            let rest = request.uri.path.dropFirst("/creatives/".count)
            guard let creativeCache, let slash = rest.firstIndex(of: "/"),
                CreativeConditioner.isKey(rest[..<slash]), let path = SafePath(rest)
            else { throw APIError.notFound(request.uri.path) }
            let creativeFile = path.file(in: creativeCache)
            return try await file(
                creativeFile, ContentResponse.contentType(of: creativeFile), CachePolicy.media, request, context)
        }
        // `tracking: relay`: a beacon this server wrote into an asset list, fired by a player.
        let relay = beaconRelay
        let dispatcher = dispatcher
        let effects = effects
        let viewers = effects.addresses
        let service = self.content
        router.get("/beacon/**") { request, context -> Response in
            let address = viewers.resolve(
                peer: context.remoteAddress?.ipAddress,
                forwardedFor: request.headers.filter { $0.name.canonicalName == "x-forwarded-for" }.map(\.value))
            let path = request.uri.path.dropFirst(BeaconRelay.prefix.count)
            var headers = HTTPFields()
            headers[.cacheControl] = CachePolicy.noStore
            // HEAD checks the URL and its expiry and changes nothing: it neither counts nor relays
            // (RFC 9110 §9.3.2).
            if request.method == .head {
                guard let beacon = relay.verify(path) else { throw APIError.notFound(request.uri.path) }
                guard !relay.isExpired(beacon) else {
                    throw APIError(
                        status: 410, code: .beaconExpired, path: request.uri.path,
                        "the beacon URL expired; it is not passed on")
                }
                return Response(status: .noContent, headers: headers)
            }
            switch relay.receive(path, address: address) {
            case .unknown: throw APIError.notFound(request.uri.path)
            case .expired:
                metrics.beaconDropped(reason: "expired")
                throw APIError(
                    status: 410, code: .beaconExpired, path: request.uri.path,
                    "the beacon URL expired; it is not passed on")
            case .overBudget:
                metrics.beaconDropped(reason: "budget")
                throw APIError(
                    status: 429, code: .beaconBudget, path: request.uri.path,
                    "too many beacons from this address or viewer this minute; it is not passed on")
            case .repeated: metrics.beaconDropped(reason: "repeated")
            case .relay(let beacon):
                metrics.beaconSeen(type: beacon.type)
                dispatcher?.send([beacon.url], kind: "relayed")
            }
            return Response(status: .noContent, headers: headers)
        }
        // The stitched form's ad segments: the beacons due fire, the viewer is sent to the segment.
        let stitched = stitched
        let byUserAgent = !configuration.stitchedUserAgents.patterns.isEmpty
        router.get("/stitched/**") { request, _ -> Response in
            // What a stitched subtitle playlist lists while an ad plays: no subtitles.
            if request.uri.path == StitchedService.emptySubtitlesPath {
                var headers = HTTPFields()
                headers[.contentType] = StitchSubtitles.mediaType
                headers[.cacheControl] = CachePolicy.media
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: StitchSubtitles.emptyDocument)))
            }
            // What a stitched fMP4 subtitle playlist lists while an ad plays: an empty segment.
            if request.uri.path == StitchedEmptySegment.path {
                let segment = try StitchedEmptySegment.segment(
                    query: request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) })
                var headers = HTTPFields()
                headers[.contentType] = StitchedEmptySegment.mediaType
                headers[.cacheControl] = CachePolicy.media
                return Response(
                    status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: segment)))
            }
            guard let found = stitched.beacons.request(request.uri.path.dropFirst(StitchedBeacons.prefix.count)) else {
                throw APIError.notFound(request.uri.path)
            }
            for (type, urls) in found.fire {
                metrics.beaconSeen(type: type)
                if !urls.isEmpty { dispatcher?.send(urls, kind: "stitched") }
            }
            var headers = HTTPFields()
            headers[.location] = found.location
            headers[.cacheControl] = CachePolicy.noStore
            return Response(status: .found, headers: headers)
        }
        registerConsole(on: router)
        admin.register(on: router.group("admin/v1"))
        registerHandoff(on: router)
        registerMetrics(on: router)
        @Sendable func content(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
            guard let mounted = service.mounted(request.uri.path) else { throw APIError.notFound(request.uri.path) }
            let viewer = RequestViewer(
                session: request.headers[Self.sessionField], userAgent: request.headers[.userAgent],
                peer: context.remoteAddress?.ipAddress,
                forwardedFor: request.headers.filter { $0.name.canonicalName == "x-forwarded-for" }.map(\.value))
            let viewerIP = effects.decisionAddress(mounted, viewer)
            let query = request.queryDictionary
            let userAgent = viewer.userAgent
            let response: ContentResponse
            if stitched.wants(mounted, query: query, userAgent: userAgent) {
                response = try await stitched.answer(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP)
            } else {
                response = try await service.get(mounted, query: query, userAgent: userAgent, viewerIP: viewerIP)
            }
            effects.record(mounted, query: query, viewer: viewer)
            switch Self.http(response) {
            case .memory(var headers, let body):
                // One URL, two forms: a cache keeps them apart by the User-Agent.
                if byUserAgent, mounted.rest.hasSuffix(".m3u8"), query[StitchedRequest.formParameter] == nil {
                    headers[.vary] = "User-Agent"
                }
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
            case .file(let path):
                return try await file(path, response.contentType, response.cacheControl, request, context)
            case .stream(let headers, let body):
                return Response(status: .ok, headers: headers, body: body)
            }
        }
        router.get("/**", use: content)
        // HEAD of an asset list checks the request and the break, but decides nothing: no viewer
        // attempt is counted, no ad server asked, no impression sent (RFC 9110 §9.3.2). Its length
        // is not known without deciding, so it has no Content-Length. Any other HEAD is the GET's.
        router.head("/**") { request, context in
            guard let mounted = service.mounted(request.uri.path), mounted.rest == "asset-list.json" else {
                return try await content(request, context).createHeadResponse()
            }
            let checked = try await service.assetListHead(mounted, query: request.queryDictionary)
            var response = Response(status: .ok)
            response.headers[.contentType] = checked.contentType
            response.headers[.cacheControl] = checked.cacheControl
            response.headers[.contentLength] = nil
            return response
        }
        return router
    }

    /// `GET /metrics`: ``ServerMetrics`` in the Prometheus text format, never stored. With an admin
    /// token it needs `Authorization: Bearer <adminToken>` (``BearerTokenMiddleware``, as the admin
    /// API); without one it is open only when the server listens on a loopback address, and refused
    /// with 403 otherwise.
    func registerMetrics(on router: Router<ServerRequestContext>) {
        let metrics = metrics
        let group = router.group("metrics")
        if let token = configuration.adminToken, !token.isEmpty {
            group.add(middleware: BearerTokenMiddleware(token: token))
        } else if !ServerConfiguration.isLoopback(configuration.host) {
            group.get { _, _ -> Response in
                throw APIError(
                    status: 403, code: .forbidden,
                    "/metrics needs an admin token when the server listens on an address that is not loopback")
            }
            return
        }
        group.get { _, _ in
            metrics.recordHeap()
            return Response.bytes(
                Array(metrics.renderText().utf8), contentType: ServerMetrics.contentType,
                cacheControl: CachePolicy.noStore)
        }
    }

    /// `POST /handoff/NAME` stores a session (``PlaybackSession`` JSON, checked); `GET
    /// /handoff/NAME?wait=S` takes it, waiting up to S seconds (at most 60): 200 with the session,
    /// or 204 when none came.
    func registerHandoff(on router: Router<ServerRequestContext>) {
        let mailbox = mailbox
        let limit = configuration.limits.handoffBodyBytes
        @Sendable func name(_ context: ServerRequestContext) throws -> String {
            let name = context.parameters.get("name") ?? ""
            guard JSONObjectReader.isIdentifier(name) else {
                throw APIError.badRequest(
                    code: .badName, path: "name", "\"\(name)\" is not a name: use 1 to 64 of A-Z a-z 0-9 - _ .")
            }
            return name
        }
        router.post("/handoff/:name") { request, context in
            let name = try name(context)
            let body = try await request.collectBody(upTo: limit)
            let session: PlaybackSession
            do throws(CoordinationError) {
                session = try PlaybackSession(json: Array(buffer: body))
            } catch {
                throw APIError.badRequest(
                    code: APIError.Code(rawValue: error.code.rawValue) ?? .sessionSchema, path: error.path,
                    error.message)
            }
            try mailbox.put(name, session.text)
            return Response.json(
                .object(["handoff": .string(name), "url": .string(session.url)]), status: .accepted)
        }
        router.get("/handoff/:name") { request, context in
            let name = try name(context)
            var wait = 0.0
            if let text = request.uri.queryParameters.get("wait") {
                guard let seconds = Double(text), seconds >= 0, seconds <= 60 else {
                    throw APIError.badRequest(
                        code: .badWait, path: "wait", "expected 0 to 60 seconds, found \"\(text)\"")
                }
                wait = seconds
            }
            // HEAD says whether a session waits, without taking it or waiting.
            if request.method == .head {
                return Response(status: mailbox.contains(name) ? .ok : .noContent)
            }
            guard let session = await mailbox.take(name, wait: .milliseconds(Int64(wait * 1000))) else {
                return Response(status: .noContent)
            }
            return Response.bytes(
                Array(session.utf8), contentType: ContentResponse.jsonType, cacheControl: CachePolicy.noStore)
        }
    }
}
