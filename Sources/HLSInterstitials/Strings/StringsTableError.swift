/// Why a strings table (a skip control label table) could not be read: a stable code, where
/// (line and column for a `.strings` file, a JSON path for JSON and `.xcstrings`) and what is wrong.
public struct StringsTableError: JSONPathError, Hashable, Sendable {
    /// The stable codes.
    public enum Code: String, Sendable, Hashable, CustomStringConvertible {
        /// The input is larger than ``LocalizedStringsTable/maximumBytes``.
        case tooLarge = "strings-too-large"
        /// More entries than ``LocalizedStringsTable/maximumEntries``, or a key or value longer
        /// than ``LocalizedStringsTable/maximumTextLength``.
        case tooMany = "strings-too-many"
        /// The bytes are not UTF-8 (or UTF-16 with a byte order mark).
        case encoding = "strings-encoding"
        /// A `.strings` file breaks the `"key" = "value";` syntax.
        case syntax = "strings-syntax"
        /// The JSON does not parse.
        case json = "strings-json"
        /// The JSON parses but a value has the wrong type.
        case schema = "strings-schema"
        /// The file could not be read, or its name ends in none of `.strings`, `.xcstrings`, `.json`.
        case file = "strings-file"

        /// The code.
        public var description: String { rawValue }
    }

    /// The stable code.
    public var code: Code
    /// The JSON path (JSON and `.xcstrings`); empty for a `.strings` file or the whole document.
    public var path: String
    /// The line (from 1) of a `.strings` file; nil for JSON.
    public var line: Int?
    /// The column (from 1, in Unicode scalars) of a `.strings` file; nil for JSON.
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

    /// The error for a problem at a JSON path.
    public static func jsonProblem(code: Code, path: String, message: String) -> StringsTableError {
        StringsTableError(code: code, path: path, message)
    }

    /// `line:column: message`, `path: message`, or the message alone.
    public var description: String {
        if let line, let column { return "\(line):\(column): \(message)" }
        return path.isEmpty ? message : "\(path): \(message)"
    }

    /// The text form for a command line: `file:line:column: error: [code] message`, or
    /// `file: error: [code] path: message` for JSON.
    public func rendered(source: String) -> String {
        if let line, let column { return "\(source):\(line):\(column): error: [\(code)] \(message)" }
        return "\(source): error: [\(code)] \(path.isEmpty ? message : "\(path): \(message)")"
    }
}
