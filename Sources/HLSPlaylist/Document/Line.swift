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

extension LineContent {
    /// Checks that the content writes as exactly one line of the playlist grammar (§4.1): no line
    /// break or other control character inside it, a tag name of `EXT` and `[A-Z0-9-]`, an attribute
    /// list that ``AttributeList/checkWritable()`` accepts, and a URI line that does not start with `#`.
    ///
    /// Content read by the parser is kept verbatim and never checked; content built in code is
    /// checked by ``PlaylistDocument/insert(_:at:)`` and ``PlaylistDocument/append(_:)``.
    ///
    /// - Throws: ``AttributeSyntaxError`` (`tag-value` for a tag or comment, `segment-uri` for a URI
    ///   line) naming the offending character and its byte offset.
    public func checkWritable() throws(AttributeSyntaxError) {
        switch self {
        case .blank: return
        case .comment(let text):
            if text.hasPrefix("EXT") {
                throw AttributeSyntaxError(
                    rule: Rule.tagValue.id, text: text, offset: 0, character: "E",
                    message:
                        "a comment cannot start with EXT (it would be a tag); §4.1: \"Lines that start with the character '#' are either comments or tags. Tags begin with #EXT.\""
                )
            }
            try Self.checkOneLine(text, rule: Rule.tagValue)
        case .uri(let text):
            guard !text.isEmpty, !text.hasPrefix("#") else {
                throw AttributeSyntaxError(
                    rule: Rule.segmentURI.id, text: text, offset: 0, character: text.unicodeScalars.first,
                    message:
                        "a URI line cannot be empty or start with '#'; §4.1: \"Each line is a URI, is blank, or starts with the character '#'.\""
                )
            }
            try Self.checkOneLine(text, rule: Rule.segmentURI)
        case .tag(let tag):
            let name = tag.name.rawValue
            guard name.hasPrefix("EXT"), name.utf8.allSatisfy(AttributeGrammar.isAttributeNameByte) else {
                let offset =
                    name.utf8.firstIndex { !AttributeGrammar.isAttributeNameByte($0) }
                    .map { name.utf8.distance(from: name.utf8.startIndex, to: $0) } ?? 0
                throw AttributeSyntaxError(
                    rule: Rule.tagValue.id, text: name, offset: offset, character: nil,
                    message:
                        "a tag name is EXT followed by [A-Z], [0-9] and '-', found '\(Diagnostic.clipped(name))'; §4.1: \"Tags begin with #EXT.\""
                )
            }
            switch tag.value {
            case .none, .integer, .byteRange, .dateTime: return
            case .extinf(_, let title): try Self.checkOneLine(title, rule: Rule.tagValue)
            case .enumerated(let value): try AttributeGrammar.checkUnquoted(value)
            case .attributes(let list): try list.checkWritable()
            case .text(let text): try Self.checkOneLine(text, rule: Rule.tagValue)
            }
        }
    }

    /// Refuses CR, LF and the other control characters but tab.
    private static func checkOneLine(_ text: String, rule: Rule) throws(AttributeSyntaxError) {
        let forbidden = { (scalar: Unicode.Scalar) in scalar.value != 0x09 && AttributeGrammar.isControl(scalar) }
        if let (offset, scalar) = AttributeGrammar.firstScalar(in: text, where: forbidden) {
            throw AttributeSyntaxError(
                rule: rule.id, text: text, offset: offset, character: scalar,
                message:
                    "a line cannot contain \(scalar.diagnosticName) (at byte \(offset)); §4.1: \"Each line is a URI, is blank, or starts with the character '#'.\""
            )
        }
    }
}
