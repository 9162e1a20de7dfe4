/// One linear pass over a document's bytes that enforces ``XMLLimits`` before the XML parser sees
/// any of them.
///
/// libxml2 (under Foundation's `XMLParser`) compares every attribute of an element with every
/// other, so one tag with 149,000 attributes costs seconds. The scan reads each byte once, follows
/// the tags (comments, CDATA sections, processing instructions and quoted attribute values, where a
/// `>` does not end a tag, are skipped whole) and refuses the document at the first byte over a
/// limit: bytes, elements, depth, attributes per element, name and attribute value lengths.
///
/// It also refuses what would let the parser read the bytes otherwise than the scan does, so that
/// every tag the parser sees was counted: a document type declaration (so no entity is ever
/// declared), an encoding other than UTF-8, ASCII, ISO-8859-n or Windows-1252, NUL bytes, a start
/// other than `<` or white space (UTF-16, UCS-4, EBCDIC), and tag syntax the parser would only
/// recover from (attributes not separated by white space, `<` in an attribute value). A processing
/// instruction without data is refused too: Foundation's parser crashes on it.
package enum XMLPreScanner {
    /// What a scan counted.
    package struct Summary: Hashable, Sendable {
        /// The start tags.
        package var elements: Int
        /// The deepest nesting reached.
        package var depth: Int
        /// The most attributes on one element.
        package var attributes: Int
        /// The offset the scan reached: the document's size when it passed. The scan moves only
        /// forward; besides it, only the XML declaration is read twice.
        package var steps: Int
    }

    /// Scans `bytes` within `limits`.
    ///
    /// - Throws: ``VASTError`` `vast-limit` (over a limit) or `vast-xml` (a refused construct),
    ///   with the byte offset and its line and column.
    package static func scan(_ bytes: [UInt8], limits: XMLLimits) throws(VASTError) -> Summary {
        var scanner = Scanner(bytes: bytes, limits: limits)
        try scanner.run()
        return Summary(
            elements: scanner.elements, depth: scanner.deepest, attributes: scanner.mostAttributes,
            steps: scanner.index)
    }
}

private let lessThan = UInt8(ascii: "<")
private let greaterThan = UInt8(ascii: ">")
private let slash = UInt8(ascii: "/")
private let equals = UInt8(ascii: "=")
private let quote = UInt8(ascii: "\"")
private let apostrophe = UInt8(ascii: "'")

/// The encodings whose bytes 0–127 are ASCII, so the scan and the parser see the same markup.
private let asciiCompatibleEncodings: Set<String> = [
    "utf-8", "utf8", "us-ascii", "ascii", "latin1", "latin-1", "iso-latin-1", "windows-1252", "cp1252",
]

private struct Scanner {
    let bytes: [UInt8]
    let limits: XMLLimits
    var index = 0
    var depth = 0
    var deepest = 0
    var elements = 0
    var mostAttributes = 0

    init(bytes: [UInt8], limits: XMLLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func run() throws(VASTError) {
        if bytes.count > limits.maximumBytes {
            throw failure(
                .limit, at: 0, "the document has \(bytes.count) bytes; at most \(limits.maximumBytes) are read")
        }
        if let nul = bytes.firstIndex(of: 0) {
            throw failure(.xml, at: nul, "a NUL byte; only UTF-8 (or ASCII-compatible) documents are read")
        }
        try start()
        while index < bytes.count {
            guard let next = find([lessThan], from: index) else {
                index = bytes.count
                return
            }
            index = next
            try markup()
        }
    }

    /// The byte order mark, the first byte and the XML declaration's encoding.
    mutating func start() throws(VASTError) {
        if hasPrefix([0xEF, 0xBB, 0xBF], at: 0) { index = 3 }
        guard index < bytes.count else { return }
        guard bytes[index] == lessThan || isSpace(bytes[index]) else {
            throw failure(
                .xml, at: index,
                "the document does not start with '<' or white space; only UTF-8 (or ASCII-compatible) documents "
                    + "are read")
        }
        guard hasPrefix(Array("<?xml".utf8), at: index), index + 5 < bytes.count, isSpace(bytes[index + 5]),
            let end = find(Array("?>".utf8), from: index + 5)
        else { return }
        guard let keyword = find(Array("encoding".utf8), from: index + 5, before: end) else { return }
        var position = skipSpace(from: keyword + 8)
        guard position < end, bytes[position] == equals else {
            throw failure(.xml, at: keyword, "the XML declaration's encoding has no value")
        }
        position = skipSpace(from: position + 1)
        guard position < end, bytes[position] == quote || bytes[position] == apostrophe,
            let close = find([bytes[position]], from: position + 1, before: end)
        else { throw failure(.xml, at: keyword, "the XML declaration's encoding is not quoted") }
        let name = String(decoding: bytes[(position + 1)..<close], as: UTF8.self)
        let lowered = name.lowercased()
        guard asciiCompatibleEncodings.contains(lowered) || isISO8859(lowered) else {
            throw failure(
                .xml, at: position + 1,
                "encoding '\(name.prefix(40))' is not read; UTF-8, US-ASCII, ISO-8859-n and Windows-1252 are")
        }
    }

    /// The markup at `index` (a `<`).
    mutating func markup() throws(VASTError) {
        let start = index
        guard index + 1 < bytes.count else { throw failure(.xml, at: start, "'<' at the end of the document") }
        switch bytes[index + 1] {
        case UInt8(ascii: "?"):
            // `<?target?>` reaches Foundation's XMLParser with no data, which it reads as a C string:
            // a NULL dereference that kills the process (swift-corelibs-foundation, Linux).
            var end = index + 2
            while end < bytes.count, !isSpace(bytes[end]), bytes[end] != UInt8(ascii: "?") { end += 1 }
            if hasPrefix(Array("?>".utf8), at: end) {
                throw failure(.xml, at: start, "a processing instruction without data ('<?target?>')")
            }
            index = try skip(past: "?>", from: index + 2, start: start, "a processing instruction")
        case UInt8(ascii: "!"):
            if hasPrefix(Array("<!--".utf8), at: index) {
                index = try skip(past: "-->", from: index + 4, start: start, "a comment")
            } else if hasPrefix(Array("<![CDATA[".utf8), at: index) {
                index = try skip(past: "]]>", from: index + 9, start: start, "a CDATA section")
            } else if hasPrefix(Array("<!DOCTYPE".utf8), at: index) {
                throw failure(
                    .xml, at: start,
                    "document type declarations are not accepted (no DTD, no entity declarations)")
            } else {
                throw failure(.xml, at: start, "'<!' starts neither a comment nor a CDATA section")
            }
        case slash:
            index += 2
            try name(of: "an end tag")
            index = skipSpace(from: index)
            guard index < bytes.count, bytes[index] == greaterThan else {
                throw failure(.xml, at: start, "an end tag that '>' does not close")
            }
            index += 1
            depth = max(0, depth - 1)
        default:
            try startTag()
        }
    }

    mutating func startTag() throws(VASTError) {
        let start = index
        elements += 1
        if elements > limits.maximumElements {
            throw failure(.limit, at: start, "more than \(limits.maximumElements) elements (maximumElements)")
        }
        if depth + 1 > limits.maximumDepth {
            throw failure(.limit, at: start, "elements nested deeper than \(limits.maximumDepth) (maximumDepth)")
        }
        index += 1
        let elementName = try name(of: "an element")
        var attributes = 0
        while true {
            let spaced = index < bytes.count && isSpace(bytes[index])
            index = skipSpace(from: index)
            guard index < bytes.count else { throw failure(.xml, at: start, "a start tag that '>' does not close") }
            switch bytes[index] {
            case greaterThan:
                index += 1
                depth += 1
                deepest = max(deepest, depth)
                return
            case slash:
                guard index + 1 < bytes.count, bytes[index + 1] == greaterThan else {
                    throw failure(.xml, at: index, "'/' in a start tag not followed by '>'")
                }
                index += 2
                deepest = max(deepest, depth + 1)
                return
            default:
                guard spaced else {
                    throw failure(.xml, at: index, "attributes of <\(elementName)> not separated by white space")
                }
                attributes += 1
                if attributes > limits.maximumAttributesPerElement {
                    throw failure(
                        .limit, at: index,
                        "<\(elementName)> has more than \(limits.maximumAttributesPerElement) attributes "
                            + "(maximumAttributesPerElement)")
                }
                mostAttributes = max(mostAttributes, attributes)
                try attribute(of: elementName)
            }
        }
    }

    /// One `name = "value"` of a start tag.
    mutating func attribute(of elementName: String) throws(VASTError) {
        let start = index
        let attributeName = try name(of: "an attribute")
        index = skipSpace(from: index)
        guard index < bytes.count, bytes[index] == equals else {
            throw failure(.xml, at: start, "attribute '\(attributeName)' of <\(elementName)> has no '=' and value")
        }
        index = skipSpace(from: index + 1)
        guard index < bytes.count, bytes[index] == quote || bytes[index] == apostrophe else {
            throw failure(.xml, at: start, "the value of attribute '\(attributeName)' is not quoted")
        }
        let delimiter = bytes[index]
        let valueStart = index + 1
        index = valueStart
        while index < bytes.count, bytes[index] != delimiter {
            if bytes[index] == lessThan {
                throw failure(.xml, at: index, "'<' in the value of attribute '\(attributeName)'")
            }
            index += 1
        }
        guard index < bytes.count else {
            throw failure(.xml, at: start, "the value of attribute '\(attributeName)' is not closed")
        }
        if index - valueStart > limits.maximumAttributeValueBytes {
            throw failure(
                .limit, at: valueStart,
                "the value of attribute '\(attributeName)' has more than \(limits.maximumAttributeValueBytes) bytes "
                    + "(maximumAttributeValueBytes)")
        }
        index += 1
    }

    /// Reads a name at `index`: the bytes up to white space or one of `<>/='"`.
    @discardableResult
    mutating func name(of what: String) throws(VASTError) -> String {
        let start = index
        while index < bytes.count, !isDelimiter(bytes[index]) {
            index += 1
            if index - start > limits.maximumNameBytes {
                throw failure(
                    .limit, at: start,
                    "the name of \(what) has more than \(limits.maximumNameBytes) bytes (maximumNameBytes)")
            }
        }
        guard index > start else { throw failure(.xml, at: start, "\(what) without a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    func skip(
        past terminator: String, from position: Int, start: Int, _ what: String
    ) throws(VASTError) -> Int {
        let pattern = Array(terminator.utf8)
        guard let end = find(pattern, from: position) else {
            throw failure(.xml, at: start, "\(what) that '\(terminator)' does not close")
        }
        return end + pattern.count
    }

    /// The first offset from `position` (before `limit`) where `pattern` starts.
    func find(_ pattern: [UInt8], from position: Int, before limit: Int? = nil) -> Int? {
        let end = min(limit ?? bytes.count, bytes.count)
        var offset = position
        while offset + pattern.count <= end {
            if bytes[offset] == pattern[0] && hasPrefix(pattern, at: offset) { return offset }
            offset += 1
        }
        return nil
    }

    func hasPrefix(_ pattern: [UInt8], at position: Int) -> Bool {
        guard position + pattern.count <= bytes.count else { return false }
        for (offset, byte) in pattern.enumerated() where bytes[position + offset] != byte { return false }
        return true
    }

    func skipSpace(from position: Int) -> Int {
        var offset = position
        while offset < bytes.count, isSpace(bytes[offset]) { offset += 1 }
        return offset
    }

    func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    func isDelimiter(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == lessThan || byte == greaterThan || byte == slash || byte == equals || byte == quote
            || byte == apostrophe
    }

    func isISO8859(_ name: String) -> Bool {
        for prefix in ["iso-8859-", "iso_8859-", "iso8859-"] where name.hasPrefix(prefix) {
            return Int(name.dropFirst(prefix.count)).map { (1...16).contains($0) } ?? false
        }
        return false
    }

    /// An error at byte `offset`, with its line and column (columns count characters, as the parser's do).
    func failure(_ code: VASTError.Code, at offset: Int, _ message: String) -> VASTError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(max(offset, 0), bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return VASTError(code, at: XMLLocation(line: line, column: column), byteOffset: offset, message)
    }
}
