import Foundation
import HLSInterstitials
import Hummingbird
import NIOCore

extension Response {
    /// A JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.description + "\n")))
    }

    /// A response with bytes.
    static func bytes(_ bytes: [UInt8], contentType: String, cacheControl: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = cacheControl
        headers[.accessControlAllowOrigin] = "*"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

extension Request {
    /// The query parameters, percent-decoded; the last of a repeated name wins.
    var queryDictionary: [String: String] {
        var result: [String: String] = [:]
        for (key, value) in uri.queryParameters { result[String(key)] = String(value) }
        return result
    }

    /// `http://host[:port]` as the client addressed the server, from the Host header.
    func baseURL(fallback: String) throws(APIError) -> String {
        guard let authority = head.authority, !authority.isEmpty else { return fallback }
        guard authority.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x2F && $0 != 0x5C }) else {
            throw APIError.badRequest(code: "bad-host", path: "Host", "the Host header is not a host[:port]")
        }
        return "http://\(authority)"
    }

    /// The body as JSON, at most `limit` bytes.
    func jsonBody(context: some RequestContext, limit: Int) async throws(APIError) -> JSONValue {
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: limit)
        } catch {
            throw APIError(status: 413, code: "body-too-large", "the request body is larger than \(limit) bytes")
        }
        if buffer.readableBytes == 0 { return .object([:]) }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(buffer: buffer))
        } catch {
            throw APIError.badRequest(code: "json-syntax", "the request body is not valid JSON")
        }
    }
}
