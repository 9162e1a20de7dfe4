/// A problem in a JSON document that belongs to no more specific error type.
public struct JSONError: JSONPathError, Hashable, Sendable {
    /// The stable code.
    public var code: String
    /// The JSON path; empty for the whole document.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(code: String, path: String = "", _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// The error for a problem at `path`.
    public static func jsonProblem(code: String, path: String, message: String) -> JSONError {
        JSONError(code: code, path: path, message)
    }
}
