/// Why a coordination message or a hand-off session could not be read: a stable code, the JSON path
/// and what is wrong.
///
/// Rendered as every JSON error of the project (`JSONPathError`): `events[1].tag: expected a
/// string, found a number`, and `session.json: error: [session-schema] events[1].tag: …` on a command
/// line.
public struct CoordinationError: Error, Hashable, Sendable {
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

}
