import Foundation
import Hummingbird
import Logging

/// Answers a GET or HEAD for a file: `Content-Length`, an ``EntityTag`` from its size and
/// modification time, `Accept-Ranges: bytes`, and one byte range as `206 Partial Content`
/// (``RangeRequest``). `If-None-Match` is answered by ``HTTPSemanticsMiddleware``, before the file is
/// read.
struct FileResponder: Sendable {
    private let files: LocalFileSystem

    init(logger: Logger) {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)  // the file system logs its root at info
        files = LocalFileSystem(rootFolder: "/", threadPool: .singleton, logger: quiet)
    }

    /// The response for the file at the absolute `path`; a missing file or a folder is a 404 that
    /// names `name` (the request's path, not the file's).
    func respond(
        path: String, name: String, contentType: String, cacheControl: String, request: Request,
        context: some RequestContext
    ) async throws -> Response {
        guard let attributes = try await files.getAttributes(id: path), !attributes.isFolder else {
            throw APIError.notFound(name)
        }
        let size = attributes.size
        let tag = EntityTag.file(
            size: size, modifiedNanoseconds: Int64(attributes.modificationDate.timeIntervalSince1970) * 1_000_000_000)
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = cacheControl
        headers[.eTag] = tag.header
        headers[.acceptRanges] = "bytes"
        var range = RangeRequest.evaluate(request.headers[.range].map { $0[...] }, size: size)
        // If-Range: the range only while the client's copy is this one (strong comparison).
        if range != .whole, let ifRange = request.headers[.ifRange], ifRange != tag.header { range = .whole }
        switch range {
        case .whole:
            headers[.contentLength] = String(size)
            return Response(status: .ok, headers: headers, body: try await files.loadFile(id: path, context: context))
        case .partial(let bytes):
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
            headers[.contentLength] = String(bytes.count)
            return Response(
                status: .partialContent, headers: headers,
                body: try await files.loadFile(id: path, range: bytes, context: context))
        case .unsatisfiable:
            var response = try APIError(
                status: 416, code: "range-not-satisfiable",
                "the range \"\(request.headers[.range] ?? "")\" starts past the end of the \(size) bytes"
            ).response(from: request, context: context)
            response.headers[.contentRange] = "bytes */\(size)"
            return response
        }
    }
}
