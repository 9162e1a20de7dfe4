/// An error at a place in a JSON document: a stable code, the JSON path, and what is wrong.
///
/// Every error of the project's JSON input (asset lists, the admin API and the server's
/// configuration, hand-off sessions, coordination messages, schedule files) conforms, so they are
/// rendered one way in text (``description``, and ``rendered(source:)`` for a command line) and one
/// way in JSON (``errorJSON``).
public protocol JSONPathError: Error, CustomStringConvertible {
    /// The type of the stable code: a string, or an enum of them whose description is the code
    /// (the server's `APIError.Code`).
    associatedtype Code: CustomStringConvertible & Sendable = String
    /// The stable code, such as `json-schema`, `session-schema` or `asset-list-json`.
    var code: Code { get }
    /// The JSON path, such as `events[1].tag`; empty for the whole document.
    var path: String { get }
    /// What is wrong.
    var message: String { get }

    /// The error for a problem at `path` found by a ``JSONReader`` or `JSONValue.parse(_:code:)`.
    static func jsonProblem(code: Code, path: String, message: String) -> Self
}

extension JSONPathError {
    /// `path: message`, or the message alone for the whole document.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }

    /// The text form for a command line: `source: error: [code] path: message`.
    public func rendered(source: String) -> String { "\(source): error: [\(code)] \(description)" }

    /// The JSON form: `{"code": …, "path": …, "message": …}` (no `path` for the whole document).
    public var errorJSON: JSONValue {
        var fields: [String: JSONValue] = ["code": .string(code.description), "message": .string(message)]
        if !path.isEmpty { fields["path"] = .string(path) }
        return .object(fields)
    }
}
