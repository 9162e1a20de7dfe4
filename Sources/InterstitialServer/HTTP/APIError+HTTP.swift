import Hummingbird
import NIOCore

extension APIError: HTTPResponseError {
    /// The HTTP status.
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    /// The JSON error body (`Response.json(_:status:)`), with `WWW-Authenticate` on a 401.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = Response.json(jsonValue, status: status)
        if statusCode == 401 { response.headers[.wwwAuthenticate] = "Bearer realm=\"hlsi-admin\"" }
        return response
    }

    /// The error to answer for `error`, thrown while answering a request for `path`: an ``APIError``
    /// as it is; another HTTP error (Hummingbird's own, such as the router's 404) with its status and
    /// the code of that status; anything else a 500, whose message says nothing of the server's insides.
    init(answering error: any Error, path: String) {
        switch error {
        case let error as APIError:
            self = error
        case let error as any HTTPResponseError:
            let message = (error as? HTTPError)?.body
            switch error.status {
            case .notFound: self = .notFound(path)
            case .methodNotAllowed:
                self.init(status: 405, code: .methodNotAllowed, message ?? "\(path) does not answer this method")
            case .contentTooLarge:
                self.init(status: 413, code: .bodyTooLarge, message ?? "the request body is too large")
            case let status where status.code >= 500:
                self.init(status: status.code, code: .internalError, message ?? "the server failed to answer")
            case let status:
                self.init(status: status.code, code: .badRequest, message ?? "the request cannot be answered")
            }
        default:
            self.init(status: 500, code: .internalError, "the server failed to answer")
        }
    }
}
