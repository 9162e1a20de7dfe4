/// A playlist as a sequence of lines that writes back byte for byte.
///
/// The round-trip law: for any input the parser accepts, `write(parse(x)) == x`. Lines that were
/// not changed are copied from the source bytes; changed and added lines are written canonically,
/// with the document's line terminator.
public struct PlaylistDocument: Sendable {
    /// The lines in order.
    public var lines: PlaylistLines
    /// Where the text came from (a path or URL), used in diagnostics.
    public var file: String
    /// The original bytes the verbatim lines refer to.
    package let source: [UInt8]

    /// A document parsed from `source` into `lines`.
    package init(lines: PlaylistLines, file: String, source: [UInt8]) {
        self.lines = lines
        self.file = file
        self.source = source
    }

    /// An empty document to build by hand.
    public init(file: String = "<memory>") {
        self.lines = PlaylistLines()
        self.file = file
        self.source = []
    }

    /// The terminator new lines get: the first line's, or LF.
    public var preferredTerminator: LineTerminator {
        for index in lines.indices where lines.terminator(at: index) != .none { return lines.terminator(at: index) }
        return .lf
    }

    /// Inserts a new line before `index`, with the document's terminator.
    ///
    /// Appending after a last line that has no final newline gives that line one and leaves the
    /// new last line without one, so the file keeps its shape.
    ///
    /// - Throws: ``AttributeSyntaxError`` when the content would not write as one line of the
    ///   grammar (``LineContent/checkWritable()``): a built line can never inject another.
    public mutating func insert(_ content: LineContent, at index: Int) throws(AttributeSyntaxError) {
        try content.checkWritable()
        let terminator = preferredTerminator
        if index == lines.count, let last = lines.indices.last, lines.terminator(at: last) == .none {
            lines[last].terminator = terminator
            lines.append(Line(content, terminator: .none))
        } else {
            lines.insert(Line(content, terminator: terminator), at: index)
        }
    }

    /// Appends a new line, checked as ``insert(_:at:)`` checks it.
    public mutating func append(_ content: LineContent) throws(AttributeSyntaxError) {
        try insert(content, at: lines.count)
    }

    /// The text of line `index` (0-based) as it will be written, without terminator.
    public func text(ofLine index: Int) -> String {
        String(decoding: lineBytes(index), as: UTF8.self)
    }

    /// The bytes of line `index` (0-based) as it will be written, without terminator; O(1) for
    /// unchanged lines.
    package func lineBytes(_ index: Int) -> ArraySlice<UInt8> {
        lines.bytes(at: index, documentSource: source)
    }

    /// The bytes of the document.
    public func write() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(source.count + 256)
        lines.write(into: &output, documentSource: source)
        return output
    }

    /// The document as text (invalid UTF-8 in verbatim lines is replaced by U+FFFD; use
    /// ``write()`` for the exact bytes).
    public func writeString() -> String { String(decoding: write(), as: UTF8.self) }

    /// The location of a column in line `index` (0-based).
    public func location(line index: Int, column: Int = 1) -> SourceLocation {
        SourceLocation(file: file, line: index + 1, column: column)
    }

    /// The location of attribute `name` in the attribute list of line `index` (0-based), or of the
    /// line's start when the attribute is not there.
    ///
    /// Only names at the start of the list or after a comma outside quotes count, so `DURATION`
    /// does not match inside `PLANNED-DURATION` or inside a quoted value.
    public func location(line index: Int, attribute name: String) -> SourceLocation {
        location(line: index, column: Self.column(of: name, in: lineBytes(index)) ?? 1)
    }

    /// The 1-based column of `name=` in an attribute-list line, or nil.
    package static func column(of name: String, in bytes: ArraySlice<UInt8>) -> Int? {
        let needle = Array(name.utf8) + [UInt8(ascii: "=")]
        let base = bytes.startIndex
        var inQuotes = false
        var atStart = true
        var index = bytes.firstIndex(of: UInt8(ascii: ":")).map { $0 + 1 } ?? base
        while index < bytes.endIndex {
            let byte = bytes[index]
            if atStart, !inQuotes, bytes[index...].starts(with: needle) { return index - base + 1 }
            if byte == UInt8(ascii: "\"") { inQuotes.toggle() }
            atStart = !inQuotes && byte == UInt8(ascii: ",")
            index += 1
        }
        return nil
    }
}
