/// Why a strings table (a skip control label table) could not be read: a stable code, where
/// (line and column for a `.strings` file, a JSON path for JSON and `.xcstrings`) and what is wrong.
public typealias StringsTableError = LocatedJSONError<StringsTableErrorCode>

/// The stable codes of ``StringsTableError``.
public enum StringsTableErrorCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
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
