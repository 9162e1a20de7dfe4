/// Why a coordination message or a hand-off session could not be read: a stable code, the JSON path
/// and what is wrong.
///
/// Rendered as `error: [session-schema] events[1].tag: expected a string, found a number`.
public struct CoordinationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code: `coordination-json` or `session-json` (not JSON), `coordination-schema` or
    /// `session-schema` (JSON of the wrong shape).
    public var code: String
    /// The JSON path, such as `location.offset`; empty for the whole document.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(code: String, path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// `error: [code] path: message`.
    public var description: String { "error: [\(code)] \(path.isEmpty ? "" : "\(path): ")\(message)" }
}
