/// Why `insert` refused a request: the input, the JSON path or option, and the reason.
public struct InsertionError: JSONPathError, Hashable, Sendable {
    /// The stable code, such as `insert-request` (a bad request) or `insert-playlist` (a playlist
    /// that cannot take interstitials).
    public var code: String
    /// Where: a JSON path (`interstitials[1].duration`) or an option name (`--asset-uri`); may be empty.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(code: String, path: String = "", _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// The error for a problem at a JSON path.
    public static func jsonProblem(code: String, path: String, message: String) -> InsertionError {
        InsertionError(code: code, path: path, message)
    }
}
