import Foundation
import Hummingbird
import Logging

/// Answers a GET or HEAD for a file: `Content-Length`, an ``EntityTag`` from its size and
/// modification time, `Accept-Ranges: bytes`, and one byte range as `206 Partial Content`
/// (``RangeRequest``). `If-None-Match` is answered by ``HTTPSemanticsMiddleware`` (a file not yet
/// kept is read once before). Only regular files are answered (a device or a pipe is a 404).
///
/// Files up to ``FileBodyCache/fileLimit`` are answered from the ``FileBodyCache`` (one `stat` per
/// request, the body a slice of the kept bytes); larger ones are streamed from the file system.
struct FileResponder: Sendable {
    private let files: LocalFileSystem
    private let cache: FileBodyCache

    init(logger: Logger, cache: FileBodyCache = FileBodyCache()) {
        self.cache = cache
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)  // the file system logs its root at info
        files = LocalFileSystem(rootFolder: "/", threadPool: .singleton, logger: quiet)
    }

    /// A `200` for a whole file: its fields (with `Content-Length`) and body.
    struct Whole: Sendable {
        /// The body: bytes kept in memory, or the file itself (too large to keep, or changed while
        /// read), as it was found.
        enum Body: Sendable {
            case bytes(ByteBuffer)
            case file(FileBodyCache.Identity)
        }

        /// Its fields.
        var fields: HTTPFields
        /// Its body.
        var body: Body
    }

    /// The `200` for the whole file at `path`, found as `identity` (one `stat`): the one function
    /// both lanes answer it with. Known at once when its bytes are kept or it is too large to keep
    /// (sent from the file system); else found later, read and kept (``FileBodyCache``).
    ///
    /// - Throws: (later) the errors of ``openError(_:name:)`` for a file that cannot be opened.
    func whole(
        path: String, identity: FileBodyCache.Identity, name: String, contentType: String, cacheControl: String
    ) -> Pending<Whole> {
        let fields = {
            var fields = Self.fields(identity, contentType: contentType, cacheControl: cacheControl)
            fields[.contentLength] = String(identity.size)
            return fields
        }()
        if let body = cache.kept(path, identity: identity) { return .now(Whole(fields: fields, body: .bytes(body))) }
        if identity.size > cache.fileLimit { return .now(Whole(fields: fields, body: .file(identity))) }
        let cache = cache
        return .later { () throws(APIError) -> Whole in
            let body = try Self.opened(path, name: name) { () throws(FileBodyCache.OpenFailure) in
                try cache.bytes(of: path, identity: identity)
            }
            return Whole(fields: fields, body: body.map { .bytes($0) } ?? .file(identity))
        }
    }

    /// The body of the whole file at `path`, found as `identity`, when known at once: its bytes if
    /// kept, the file itself if too large to keep; nil when it must be read (``whole(path:identity:name:contentType:cacheControl:)``).
    func body(path: String, identity: FileBodyCache.Identity) -> Whole.Body? {
        if let body = cache.kept(path, identity: identity) { return .bytes(body) }
        return identity.size > cache.fileLimit ? .file(identity) : nil
    }

    /// A file's entity tag: its size and modification time, in whole seconds (as the file system's
    /// modification dates were taken before).
    private static func entityTag(_ identity: FileBodyCache.Identity) -> EntityTag {
        EntityTag.file(size: identity.size, modifiedNanoseconds: identity.modifiedSeconds * 1_000_000_000)
    }

    /// The fields every answer for a file has.
    private static func fields(
        _ identity: FileBodyCache.Identity, contentType: String, cacheControl: String
    ) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = cacheControl
        headers[.eTag] = entityTag(identity).header
        headers[.acceptRanges] = "bytes"
        return headers
    }

    /// The response for the file at the absolute `path`; a missing file or a folder is a 404 that
    /// names `name` (the request's path, not the file's). A file that exists but cannot be opened
    /// is a 503 `server-busy` with `Retry-After: 1` when the server is out of descriptors or memory
    /// (`EMFILE`, `ENFILE`, `ENOMEM`), a 403 `forbidden` when the server may not read it, a 404 when
    /// it went away meanwhile, and a 500 `file-unreadable` otherwise.
    func respond(
        path: String, name: String, contentType: String, cacheControl: String, request: Request,
        context: some RequestContext
    ) async throws -> Response {
        guard let identity = FileBodyCache.identity(of: path) else { throw APIError.notFound(name) }
        let size = identity.size
        let tag = Self.entityTag(identity)
        var headers = Self.fields(identity, contentType: contentType, cacheControl: cacheControl)
        var range = RangeRequest.evaluate(request.headers[.range].map { $0[...] }, size: size)
        // If-Range: the range only while the client's copy is this one (strong comparison).
        if range != .whole, let ifRange = request.headers[.ifRange], ifRange != tag.header { range = .whole }
        switch range {
        case .whole:
            let whole: Whole
            do throws(APIError) {
                whole = try await self.whole(
                    path: path, identity: identity, name: name, contentType: contentType, cacheControl: cacheControl
                ).resolve()
                if case .file = whole.body { try Self.checkOpen(path, name: name) }
            } catch {
                return try Self.errorResponse(error, request: request, context: context)
            }
            switch whole.body {
            case .bytes(let kept):
                return Response(status: .ok, headers: whole.fields, body: ResponseBody(byteBuffer: kept))
            case .file:
                return Response(
                    status: .ok, headers: whole.fields, body: try await files.loadFile(id: path, context: context))
            }
        case .partial(let bytes):
            // The kept bytes, or nil for a file streamed from the file system (checked to open first).
            let kept: ByteBuffer?
            do throws(APIError) {
                kept = try Self.opened(path, name: name) { () throws(FileBodyCache.OpenFailure) in
                    try cache.bytes(of: path, identity: identity)
                }
                if kept == nil { try Self.checkOpen(path, name: name) }
            } catch {
                return try Self.errorResponse(error, request: request, context: context)
            }
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
            headers[.contentLength] = String(bytes.count)
            if let kept,
                let slice = kept.getSlice(at: kept.readerIndex + bytes.lowerBound, length: bytes.count)
            {
                return Response(status: .partialContent, headers: headers, body: ResponseBody(byteBuffer: slice))
            }
            return Response(
                status: .partialContent, headers: headers,
                body: try await files.loadFile(id: path, range: bytes, context: context))
        case .unsatisfiable:
            var response = try APIError(
                status: 416, code: .rangeNotSatisfiable,
                "the range \"\(request.headers[.range] ?? "")\" starts past the end of the \(size) bytes"
            ).response(from: request, context: context)
            response.headers[.contentRange] = "bytes */\(size)"
            return response
        }
    }

    /// The response for an error opening a file: a 503 gets `Retry-After: 1`.
    private static func errorResponse(
        _ error: APIError, request: Request, context: some RequestContext
    ) throws -> Response {
        var response = try error.response(from: request, context: context)
        if error.status == 503 { response.headers[.retryAfter] = "1" }
        return response
    }

    /// `body`'s result, its failure to open the file as ``openError(_:name:)`` says.
    private static func opened<T>(
        _ path: String, name: String, _ body: () throws(FileBodyCache.OpenFailure) -> T
    ) throws(APIError) -> T {
        do throws(FileBodyCache.OpenFailure) {
            return try body()
        } catch {
            throw openError(error, name: name)
        }
    }

    /// Whether the file at `path` can be opened now, as ``openError(_:name:)`` says.
    private static func checkOpen(_ path: String, name: String) throws(APIError) {
        try opened(path, name: name) { () throws(FileBodyCache.OpenFailure) in try FileBodyCache.checkOpen(path) }
    }

    /// The error for a file that exists but cannot be opened; a 503 is answered with `Retry-After: 1`.
    static func openError(_ failure: FileBodyCache.OpenFailure, name: String) -> APIError {
        if failure.isExhaustion {
            APIError(
                status: 503, code: .serverBusy,
                "the server cannot open \(name) now (out of file descriptors or memory); retry")
        } else if failure.isMissing {
            APIError.notFound(name)
        } else if failure.isDenied {
            APIError(status: 403, code: .forbidden, "the server may not read \(name)")
        } else {
            APIError(status: 500, code: .fileUnreadable, "the server cannot read \(name) (errno \(failure.code))")
        }
    }
}
