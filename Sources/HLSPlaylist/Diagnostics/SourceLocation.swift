/// A place in a source file: path, 1-based line and 1-based column (in UTF-8 bytes).
public struct SourceLocation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The file path or URL the text came from.
    public var file: String
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, counted in UTF-8 bytes.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }
}
