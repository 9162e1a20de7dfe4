extension RequestHeadReader {
    /// Why a request is refused: the status and reason of the answer, a stable code, and what is wrong.
    struct Refusal: Error, Hashable, Sendable {
        /// The stable codes of refused requests, written in the JSON error body. docs/http.md lists
        /// them with the API's (`APIError.Code` has a case of the same name for each).
        enum Code: String, Hashable, Sendable, CaseIterable {
            /// 400: the request line is not `METHOD SP target SP HTTP/1.x`.
            case badRequestLine = "bad-request-line"
            /// 400: a header or trailer field is not `name: value`.
            case badHeader = "bad-header"
            /// 400: a line of the request head does not end with CRLF.
            case badLineEnding = "bad-line-ending"
            /// 400: the body's framing is ambiguous or malformed.
            case badFraming = "bad-framing"
            /// 408: the request head did not arrive in time.
            case headerTimeout = "header-timeout"
            /// 408: the request body did not arrive in time.
            case bodyTimeout = "body-timeout"
            /// 414: the request line is too long.
            case requestLineTooLong = "request-line-too-long"
            /// 431: the header fields are too large or too many.
            case headersTooLarge = "headers-too-large"
            /// 503: the server or this peer has as many connections as it may.
            case tooManyConnections = "too-many-connections"
        }

        /// The HTTP status.
        var status: Int
        /// The status's reason phrase.
        var reason: String
        /// The stable code for the JSON error body.
        var code: Code
        /// What is wrong, for the JSON error body.
        var message: String

        /// 400: the request is malformed (code `bad-request-line`, `bad-header`, `bad-line-ending` or `bad-framing`).
        static func badRequest(_ code: Code, _ message: String) -> Refusal {
            Refusal(status: 400, reason: "Bad Request", code: code, message: message)
        }

        /// 431: the header (or trailer) fields are over a limit.
        static func headersTooLarge(_ message: String) -> Refusal {
            Refusal(
                status: 431, reason: "Request Header Fields Too Large", code: .headersTooLarge, message: message)
        }
    }
}
