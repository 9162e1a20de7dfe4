import Hummingbird

/// What every answer gets beyond its route: errors as JSON, cross-origin access for the public
/// routes, `405` for a method a public route does not answer, and `304 Not Modified` for a GET or
/// HEAD whose `If-None-Match` names the answer's ``EntityTag``.
///
/// Every error thrown behind it, Hummingbird's own included (the router's 404), is answered here
/// with the one JSON error body (``APIError/init(answering:path:)``). Public routes (everything
/// but `/admin/` and `/metrics`) carry `Access-Control-Allow-Origin: *`, errors included, so that
/// players on other origins can read playlists, asset lists, segments and their errors; a CORS
/// preflight (`OPTIONS`) is answered here. The admin API has no CORS: a page on another origin
/// cannot drive it from a browser.
struct HTTPSemanticsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The request fields a cross-origin player may send: `X-PLAYBACK-SESSION-ID` too, so that a web
    /// player on another origin can name its session on its playlist requests (``RequestEffects``:
    /// the viewers decisions are made ahead for).
    static var allowedHeaders: String { "Range, If-None-Match, If-Range, Content-Type, X-PLAYBACK-SESSION-ID" }
    /// The response fields a cross-origin player may read.
    static var exposedHeaders: String { "Content-Length, Content-Range, Accept-Ranges, ETag, Date, Age" }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        let isPublic = Self.isPublic(path)
        var response: Response
        if isPublic, request.method == .options {
            response = preflight(request)
        } else if isPublic, !Self.methods(of: path).contains(request.method) {
            response = try APIError(
                status: 405, code: .methodNotAllowed, path: path,
                "\(path) answers \(Self.allow(path)), not \(request.method.rawValue)"
            ).response(from: request, context: context)
            response.headers[.allow] = Self.allow(path)
        } else {
            do {
                response = try await next(request, context)
            } catch {
                response = try APIError(answering: error, path: path).response(from: request, context: context)
            }
        }
        if request.method == .get || request.method == .head,
            response.status == .ok || response.status == .partialContent,
            let tag = response.headers[.eTag], Self.notModified(request, tag: tag)
        {
            var headers = HTTPFields()
            headers[.eTag] = tag
            headers[.cacheControl] = response.headers[.cacheControl]
            response = Response(status: .notModified, headers: headers, body: ResponseBody())
            response.headers[.contentLength] = nil
        }
        // An answer that names no caching (a 204, a HEAD of a hand-off) is not stored.
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = CachePolicy.noStore }
        if isPublic { Self.addPublicFields(to: &response.headers) }
        return response
    }

    /// Whether `path` is public: answered to any origin (everything but the admin API and `/metrics`).
    static func isPublic(_ path: String) -> Bool {
        !path.hasPrefix("/admin/") && path != "/admin" && path != "/metrics"
    }

    /// The methods a public path answers: GET, HEAD and OPTIONS, and POST on `/handoff/NAME`.
    static func methods(of path: String) -> [HTTPRequest.Method] {
        path.hasPrefix("/handoff/") ? [.get, .head, .post, .options] : [.get, .head, .options]
    }

    /// The `Allow` field of a public path.
    static func allow(_ path: String) -> String {
        methods(of: path).map(\.rawValue).joined(separator: ", ")
    }

    /// The fields every answer on a public route carries: cross-origin access.
    static func addPublicFields(to fields: inout HTTPFields) {
        fields[.accessControlAllowOrigin] = "*"
        fields[.accessControlExposeHeaders] = exposedHeaders
    }

    /// Whether one of the request's `If-None-Match` fields matches `tag`.
    static func notModified(_ request: Request, tag: String) -> Bool {
        let values = request.headers[values: .ifNoneMatch]
        guard !values.isEmpty, let tags = EntityTag.parseList(tag[...]), let ours = tags.first else { return false }
        return ours.matches(ifNoneMatch: values.joined(separator: ", ")[...])
    }

    /// `204` for an `OPTIONS` request: the methods of the path, and for a CORS preflight the
    /// origins, fields and methods allowed.
    func preflight(_ request: Request) -> Response {
        let methods = Self.allow(request.uri.path)
        var headers = HTTPFields()
        headers[.allow] = methods
        if request.headers[.accessControlRequestMethod] != nil {
            headers[.accessControlAllowMethods] = methods
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = "600"
        }
        headers[.cacheControl] = CachePolicy.noStore
        return Response(status: .noContent, headers: headers)
    }
}
