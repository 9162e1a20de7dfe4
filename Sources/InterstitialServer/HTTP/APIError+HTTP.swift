import Hummingbird
import NIOCore

extension APIError: HTTPResponseError {
    /// The HTTP status.
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    /// The JSON error body.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        if statusCode == 401 { headers[.wwwAuthenticate] = "Bearer realm=\"hlsi-admin\"" }
        return Response(
            status: HTTPResponse.Status(code: statusCode), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: jsonValue.description + "\n")))
    }
}
