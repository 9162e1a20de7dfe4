/// An error at a place in a document: a stable code, where (a JSON path, or the line and column of a
/// text file), and what is wrong.
///
/// The project's one located error type: ``JSONError``, ``InsertionError``,
/// ``DateRangeScheduleError``, ``StringsTableError`` and the coordination module's
/// `CoordinationError` are this type with their own enum of codes.
public struct LocatedJSONError<Code: CustomStringConvertible & Hashable & Sendable>: JSONPathError, Hashable, Sendable {
    /// The stable code.
    public var code: Code
    /// The JSON path (such as `DATERANGES[2].X-SCHEDULE-OFFSET`) or the option name; empty for the
    /// whole document or for a place given by ``line`` and ``column``.
    public var path: String
    /// The line (from 1) of a text file (a `.strings` file); nil for JSON.
    public var line: Int?
    /// The column (from 1, in Unicode scalars) of a text file; nil for JSON.
    public var column: Int?
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(code: Code, path: String = "", line: Int? = nil, column: Int? = nil, _ message: String) {
        self.code = code
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// The error for a problem at `path` found by a ``JSONReader`` or ``JSONValue/parse(_:code:as:)``.
    public static func jsonProblem(code: Code, path: String, message: String) -> Self {
        Self(code: code, path: path, message)
    }

    /// `line:column: message`, `path: message`, or the message alone.
    public var description: String {
        if let line, let column { return "\(line):\(column): \(message)" }
        return path.isEmpty ? message : "\(path): \(message)"
    }

    /// The text form for a command line: `source:line:column: error: [code] message`, or
    /// `source: error: [code] path: message`.
    public func rendered(source: String) -> String {
        if let line, let column { return "\(source):\(line):\(column): error: [\(code)] \(message)" }
        return "\(source): error: [\(code)] \(description)"
    }
}
