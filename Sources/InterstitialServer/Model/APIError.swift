import HLSInterstitials

/// A request the server refuses, with the HTTP status, a stable code, the JSON path or query
/// parameter at fault, and a message that says why.
///
/// Rendered as `{"error": {"status": 400, "code": "json-schema", "path": "cadence.every", "message": "…"}}`.
public struct APIError: Error, Hashable, Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The stable code, such as `json-schema`, `not-found`, `unauthorized` or `served-break`.
    public var code: Code
    /// Where the problem is: a JSON path, a query parameter or a URL path; empty when it is the whole request.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(status: Int, code: Code, path: String = "", _ message: String) {
        self.statusCode = status
        self.code = code
        self.path = path
        self.message = message
    }

    /// 400 Bad Request.
    public static func badRequest(code: Code, path: String = "", _ message: String) -> APIError {
        APIError(status: 400, code: code, path: path, message)
    }

    /// 404 Not Found.
    public static func notFound(_ what: String) -> APIError {
        APIError(status: 404, code: .notFound, "\(what) does not exist")
    }

    /// 409 Conflict.
    public static func conflict(code: Code, _ message: String) -> APIError {
        APIError(status: 409, code: code, message)
    }

    /// The JSON body: `JSONPathError.errorJSON` with the status, under `error`.
    public var jsonValue: JSONValue {
        guard case .object(var fields) = errorJSON else { return errorJSON }
        fields["status"] = .integer(Int64(statusCode))
        return .object(["error": .object(fields)])
    }
}

extension APIError {
    /// An ``InsertionError`` of a break's interstitial fields, as a 400 with its path under `prefix`.
    init(_ error: InsertionError, prefix: String = "") {
        let path = [prefix, error.path].filter { !$0.isEmpty }.joined(separator: ".")
        self.init(status: 400, code: .invalidInterstitial, path: path, error.message)
    }
}
