import Hummingbird

/// What every answer gets beyond its route: cross-origin access for the public routes, and
/// `304 Not Modified` for a GET or HEAD whose `If-None-Match` names the answer's ``EntityTag``.
///
/// Public routes (everything but `/admin/` and `/metrics`) carry `Access-Control-Allow-Origin: *`, errors
/// included, so that players on other origins can read playlists, asset lists, segments and
/// their errors; a CORS preflight (`OPTIONS`) is answered here. The admin API has no CORS: a page
/// on another origin cannot drive it from a browser.
struct HTTPSemanticsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The request fields a cross-origin player may send.
    static var allowedHeaders: String { "Range, If-None-Match, If-Range, Content-Type" }
    /// The response fields a cross-origin player may read.
    static var exposedHeaders: String { "Content-Length, Content-Range, Accept-Ranges, ETag, Date, Age" }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        let isPublic = !path.hasPrefix("/admin/") && path != "/admin" && path != "/metrics"
        if isPublic, request.method == .options { return preflight(request) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError where isPublic {
            response = try error.response(from: request, context: context)
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
        if isPublic { Self.addPublicFields(to: &response.headers) }
        return response
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
        let methods = request.uri.path.hasPrefix("/handoff/") ? "GET, HEAD, POST, OPTIONS" : "GET, HEAD, OPTIONS"
        var headers = HTTPFields()
        headers[.allow] = methods
        headers[.accessControlAllowOrigin] = "*"
        if request.headers[.accessControlRequestMethod] != nil {
            headers[.accessControlAllowMethods] = methods
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = "600"
        }
        headers[.cacheControl] = CachePolicy.noStore
        return Response(status: .noContent, headers: headers)
    }
}
