import Foundation
import HLSInterstitials
import Hummingbird
import HummingbirdCore
import NIOCore

extension Response {
    /// A JSON response, never stored: the one place the server writes a JSON answer (the admin
    /// API, hand-off, errors: ``APIError/response(from:context:)``). The body is `value` as
    /// ``JSONValue`` writes it (keys sorted), and a line end.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = ContentResponse.jsonType
        headers[.cacheControl] = CachePolicy.noStore
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.description + "\n")))
    }

    /// A response with bytes, tagged with their ``EntityTag`` unless it must not be stored (an
    /// `If-None-Match` that names the tag gets `304`: ``HTTPSemanticsMiddleware``).
    static func bytes(_ bytes: [UInt8], contentType: String, cacheControl: String) -> Response {
        Response(
            status: .ok, headers: fields(bytes, contentType: contentType, cacheControl: cacheControl),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The fields of ``bytes(_:contentType:cacheControl:)``.
    static func fields(_ bytes: [UInt8], contentType: String, cacheControl: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = cacheControl
        if cacheControl != CachePolicy.noStore { headers[.eTag] = EntityTag.of(bytes).header }
        return headers
    }
}

extension URI {
    /// The query parameters, percent-decoded; the last of a repeated name wins.
    var queryDictionary: [String: String] {
        var result: [String: String] = [:]
        for (key, value) in queryParameters { result[String(key)] = String(value) }
        return result
    }
}

extension Request {
    /// The query parameters, percent-decoded; the last of a repeated name wins.
    var queryDictionary: [String: String] { uri.queryDictionary }

    /// The body, at most `limit` bytes; a larger one is a 413.
    func collectBody(upTo limit: Int) async throws(APIError) -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError(status: 413, code: .bodyTooLarge, "the request body is larger than \(limit) bytes")
        }
        do {
            return try await body.collect(upTo: limit)
        } catch {
            throw APIError(status: 413, code: .bodyTooLarge, "the request body is larger than \(limit) bytes")
        }
    }

    /// The body as JSON, at most `limit` bytes.
    func jsonBody(context: some RequestContext, limit: Int) async throws(APIError) -> JSONValue {
        let buffer = try await collectBody(upTo: limit)
        if buffer.readableBytes == 0 { return .object([:]) }
        return try JSONValue.parse(buffer.readableBytesView, code: .jsonSyntax, as: APIError.self)
    }
}
