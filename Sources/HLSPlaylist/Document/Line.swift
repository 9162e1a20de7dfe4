/// How a line ends.
public enum LineTerminator: String, Hashable, Sendable, Codable {
    /// `\n`.
    case lf
    /// `\r\n`.
    case crlf
    /// The last line of a file that does not end with a newline.
    case none

    /// The bytes of the terminator.
    public var bytes: [UInt8] {
        switch self {
        case .lf: [0x0A]
        case .crlf: [0x0D, 0x0A]
        case .none: []
        }
    }
}

/// What a line holds.
public enum LineContent: Hashable, Sendable {
    /// An empty line, or one of whitespace only.
    case blank
    /// A comment: a line starting with `#` but not `#EXT`. The text after `#`.
    case comment(String)
    /// A tag: a line starting with `#EXT`.
    case tag(Tag)
    /// A URI line.
    case uri(String)

    /// The tag, if the line is one.
    public var tag: Tag? {
        if case .tag(let tag) = self { return tag }
        return nil
    }

    /// The canonical text of the line (without terminator).
    public var text: String {
        switch self {
        case .blank: ""
        case .comment(let text): "#" + text
        case .tag(let tag): tag.description
        case .uri(let uri): uri
        }
    }
}

/// One line of a playlist document.
///
/// A parsed line remembers where its bytes are in the source, and is written back verbatim
/// until its content is changed; a changed or new line is written canonically.
public struct Line: Hashable, Sendable {
    /// The content. Changing it makes the line be written canonically.
    public var content: LineContent {
        didSet { sourceRange = nil }
    }
    /// How the line ends.
    public var terminator: LineTerminator
    /// Where the line's bytes (without terminator) are in the document's source, while unchanged.
    package var sourceRange: Range<Int>?

    /// A new line, written canonically.
    public init(_ content: LineContent, terminator: LineTerminator = .lf) {
        self.content = content
        self.terminator = terminator
        self.sourceRange = nil
    }

    package init(content: LineContent, terminator: LineTerminator, sourceRange: Range<Int>) {
        self.content = content
        self.terminator = terminator
        self.sourceRange = sourceRange
    }

    /// Whether the line is still the source text (it will be written verbatim).
    public var isVerbatim: Bool { sourceRange != nil }
}
