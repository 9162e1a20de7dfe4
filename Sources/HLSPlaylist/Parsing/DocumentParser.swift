#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Phase one of parsing: splits bytes into lines, classifies them and reads each known tag's
/// value. Never fails: malformed text becomes diagnostics and is kept verbatim.
struct DocumentParser {
    private let file: String
    private var collector: DiagnosticCollector
    /// Whether diagnostics are dropped (when a parsed line is read again).
    private let silent: Bool
    /// Where the text of the last line classified is, without the blanks around it.
    private(set) var contentRange = 0..<0

    /// The diagnostics, at most ``Diagnostic/maximumPerLine`` per line plus a summary of the rest.
    var diagnostics: [Diagnostic] { collector.finished() }

    init(file: String, silent: Bool = false) {
        self.file = file
        self.collector = DiagnosticCollector(file: file)
        self.silent = silent
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let hash = UInt8(ascii: "#")
    private static let colon = UInt8(ascii: ":")
    private static let comma = UInt8(ascii: ",")
    private static let equals = UInt8(ascii: "=")
    private static let quote = UInt8(ascii: "\"")

    /// Reads `source` line by line into the interpreter's document, and hands each line's content
    /// to the interpreter.
    mutating func parse(_ source: [UInt8], into interpreter: inout PlaylistInterpreter) {
        var startsWithHeader = false
        source.withUnsafeBufferPointer { buffer in
            let count = buffer.count
            var start = 0
            var lineIndex = 0
            var byteOrderMark = Self.byteOrderMarkLength(buffer, lineStart: 0)
            if byteOrderMark > 0 {
                report(
                    .playlistEncoding, line: 0, column: 1,
                    "the playlist starts with a byte order mark; \(Rule.playlistEncoding.reference)")
            }
            while start < count {
                let index: Int
                if let found = memchr(buffer.baseAddress! + start, 0x0A, count - start) {
                    index = buffer.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                } else {
                    index = count
                }
                var end = index
                let terminator: LineTerminator
                if index < count {
                    if end > start, buffer[end - 1] == 0x0D {
                        end -= 1
                        terminator = .crlf
                    } else {
                        terminator = .lf
                    }
                } else {
                    terminator = .none
                }
                let special = Self.containsSpecialBytes(buffer, start, end)
                if special { checkEncoding(buffer, start + byteOrderMark, end, lineIndex) }
                if !special, byteOrderMark == 0, let timing = Self.plainTiming(buffer, start, end) {
                    // EXTINF or EXT-X-PROGRAM-DATE-TIME as the general path would read it, with
                    // nothing to report: no tag value is made.
                    interpreter.document.lines.appendParsed(
                        start..<end, terminator: terminator, content: Self.content(buffer, start, end))
                    interpreter.consumeTiming(timing, buffer, line: lineIndex)
                } else if let content = classifyUnlessURI(buffer, start + byteOrderMark, end, lineIndex) {
                    if lineIndex == 0 { startsWithHeader = content.tag?.name.known == .extm3u }
                    interpreter.document.lines.appendParsed(start..<end, terminator: terminator, content: content)
                    interpreter.consume(content, line: lineIndex, uriRange: nil)
                } else {
                    let range = contentRange
                    interpreter.document.lines.appendParsed(
                        start..<end, terminator: terminator,
                        content: .uri(String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)))
                    interpreter.consumeURI(buffer, range, line: lineIndex)
                }
                byteOrderMark = 0
                start = index + 1
                lineIndex += 1
            }
        }
        if !startsWithHeader {
            report(
                .playlistHeader, line: 0, column: 1, "the first line must be #EXTM3U; \(Rule.playlistHeader.reference)")
        }
    }

    /// The content of the line `[start, end)`, which the parser has read before (its diagnostics
    /// were reported then), after the byte order mark on the first line.
    static func content(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> LineContent {
        var parser = DocumentParser(file: "", silent: true)
        return parser.classify(buffer, start + byteOrderMarkLength(buffer, lineStart: start), end, 0)
    }

    /// The length of the UTF-8 byte order mark a line starting at `lineStart` begins with: 3 for
    /// the first line of a source that starts with one, else 0.
    private static func byteOrderMarkLength(_ buffer: UnsafeBufferPointer<UInt8>, lineStart: Int) -> Int {
        lineStart == 0 && buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF ? 3 : 0
    }

    /// The value of a segment's EXTINF or EXT-X-PROGRAM-DATE-TIME line.
    enum Timing {
        /// EXTINF: the duration, and where the title is (empty when there is none).
        case duration(MediaTime, title: Range<Int>)
        /// EXT-X-PROGRAM-DATE-TIME.
        case programDateTime(DateTime)
    }

    private static let extinfPrefix = Array("#EXTINF:".utf8)
    private static let programDateTimePrefix = Array("#EXT-X-PROGRAM-DATE-TIME:".utf8)

    /// The timing a plain EXTINF or EXT-X-PROGRAM-DATE-TIME line `[start, end)` gives: one without
    /// blanks around it whose value ``classify(_:_:_:_:)`` would read without a diagnostic (a
    /// duration and a comma; a date with a zone and milliseconds). Nil for any other line.
    @inline(__always)
    static func plainTiming(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Timing? {
        let length = end - start
        guard length > 8, buffer[start + 4] == UInt8(ascii: "I") || buffer[start + 4] == UInt8(ascii: "-"),
            buffer[end - 1] != space, buffer[end - 1] != tab
        else { return nil }
        let base = buffer.baseAddress! + start
        if memcmp(base, extinfPrefix, 8) == 0 {
            let value = UnsafeBufferPointer(rebasing: buffer[(start + 8)..<end])
            guard case (let duration?, let comma?) = extinfValue(value) else { return nil }
            return .duration(duration, title: (start + 8 + comma + 1)..<end)
        }
        if length > 25, memcmp(base, programDateTimePrefix, 25) == 0,
            let date = DateTime.parse(UnsafeBufferPointer(rebasing: buffer[(start + 25)..<end])), isPrecise(date)
        {
            return .programDateTime(date)
        }
        return nil
    }

    /// An EXTINF value, `<duration>,[<title>]`: the duration (nil when it is not a
    /// decimal-floating-point), and where the comma is (nil when there is none).
    @inline(__always)
    private static func extinfValue(_ bytes: UnsafeBufferPointer<UInt8>) -> (MediaTime?, comma: Int?) {
        guard let base = bytes.baseAddress else { return (nil, nil) }
        let comma = find(Self.comma, base, 0, bytes.count)
        let duration = MediaTime.parse(UnsafeBufferPointer(rebasing: bytes[0..<comma]), allowSign: false)
        return (duration, comma < bytes.count ? comma : nil)
    }

    /// Whether a program date-time has a time zone and millisecond precision (§4.4.4.6's format).
    @inline(__always)
    private static func isPrecise(_ date: DateTime) -> Bool {
        date.utcOffsetSeconds != nil && date.fractionDigits >= 3
    }

    /// Whether `[start, end)` has a byte outside printable ASCII (a control character or UTF-8
    /// that needs checking), eight bytes at a time.
    @inline(__always)
    private static func containsSpecialBytes(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let base = UnsafeRawPointer(buffer.baseAddress!)
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func special(at offset: Int) -> Bool {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let below20 = (word &- ones &* 0x20) & ~word & highs
            let del = word ^ (ones &* 0x7F)
            let is7F = (del &- ones) & ~del & highs
            return (word & highs) | below20 | is7F != 0
        }
        while index + 8 <= end {
            if special(at: index) { return true }
            index += 8
        }
        // The last few bytes: one more word ending at `end`, overlapping bytes already checked.
        if index < end, end - start >= 8 { return special(at: end - 8) }
        while index < end {
            let byte = buffer[index]
            if (byte < 0x20 && byte != 0x09) || byte >= 0x7F { return true }
            index += 1
        }
        return false
    }

    /// The index of the first `byte` in `[start, end)`, or `end`.
    @inline(__always)
    private static func find(_ byte: UInt8, _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        guard start < end, let found = memchr(base + start, Int32(byte), end - start) else { return end }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private mutating func report(_ rule: Rule, line: Int, column: Int, _ message: @autoclosure () -> String) {
        if silent { return }
        let file = file
        collector.add(line: line + 1, severity: rule.severity) {
            rule.diagnostic(at: SourceLocation(file: file, line: line + 1, column: column), message())
        }
    }

    /// Reports control characters and invalid UTF-8 in a line (the slow path).
    private mutating func checkEncoding(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ line: Int) {
        var index = start
        while index < end {
            let byte = buffer[index]
            if byte < 0x80 {
                if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                    let name =
                        byte == 0x0D
                        ? "a carriage return without line feed"
                        : "control character U+00\(String(byte, radix: 16, uppercase: true).leftPadded(2))"
                    report(
                        .playlistEncoding, line: line, column: index - start + 1,
                        "\(name) is not allowed; \(Rule.playlistEncoding.reference)")
                    return
                }
                index += 1
                continue
            }
            let length: Int
            switch byte {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: length = 0
            }
            var valid = length > 0 && index + length <= end
            if valid {
                for offset in 1..<length where buffer[index + offset] & 0xC0 != 0x80 { valid = false }
            }
            if valid, length == 3 {
                let second = buffer[index + 1]
                if (byte == 0xE0 && second < 0xA0) || (byte == 0xED && second >= 0xA0) { valid = false }
            }
            if valid, length == 4 {
                let second = buffer[index + 1]
                if (byte == 0xF0 && second < 0x90) || (byte == 0xF4 && second >= 0x90) { valid = false }
            }
            guard valid else {
                report(
                    .playlistEncoding, line: line, column: index - start + 1,
                    "invalid UTF-8 byte 0x\(String(byte, radix: 16, uppercase: true)); \(Rule.playlistEncoding.reference)"
                )
                return
            }
            if byte == 0xC2, buffer[index + 1] <= 0x9F {
                report(
                    .playlistEncoding, line: line, column: index - start + 1,
                    "C1 control character is not allowed; \(Rule.playlistEncoding.reference)")
                return
            }
            index += length
        }
    }

    /// The content of the line `[lineStart, lineEnd)` (0-based `line`), read by its tag's
    /// definition; sets ``contentRange``.
    mutating func classify(
        _ buffer: UnsafeBufferPointer<UInt8>, _ lineStart: Int, _ lineEnd: Int, _ line: Int
    ) -> LineContent {
        classifyUnlessURI(buffer, lineStart, lineEnd, line)
            ?? .uri(String(decoding: UnsafeBufferPointer(rebasing: buffer[contentRange]), as: UTF8.self))
    }

    /// ``classify(_:_:_:_:)``, but nil for a URI line (its text is at ``contentRange``), so that
    /// no string need be made for it.
    mutating func classifyUnlessURI(
        _ buffer: UnsafeBufferPointer<UInt8>, _ lineStart: Int, _ lineEnd: Int, _ line: Int
    ) -> LineContent? {
        var start = lineStart
        var end = lineEnd
        while start < end, buffer[start] == Self.space || buffer[start] == Self.tab { start += 1 }
        while end > start, buffer[end - 1] == Self.space || buffer[end - 1] == Self.tab { end -= 1 }
        contentRange = start..<end
        if start == end { return .blank }
        if start != lineStart || end != lineEnd {
            report(
                .whitespace, line: line, column: start != lineStart ? 1 : end - lineStart + 1,
                "leading or trailing whitespace is ignored")
        }
        if buffer[start] != Self.hash { return nil }
        let isTag =
            end - start >= 4 && buffer[start + 1] == UInt8(ascii: "E") && buffer[start + 2] == UInt8(ascii: "X")
            && buffer[start + 3] == UInt8(ascii: "T")
        if !isTag {
            return .comment(String(decoding: UnsafeBufferPointer(rebasing: buffer[(start + 1)..<end]), as: UTF8.self))
        }
        // The name runs to the first colon or space. Known names have no spaces, so a known name
        // ending at the colon needs no search for a space (both searches are memchr calls).
        let base = buffer.baseAddress!
        let nameEnd = Self.find(Self.colon, base, start + 1, end)
        let known = TagDefinition.lookup(UnsafeBufferPointer(rebasing: buffer[(start + 1)..<nameEnd]))
        if known == nil {
            let space = Self.find(Self.space, base, start + 1, nameEnd)
            // `#EXT-X-ENDLIST extra`: a known tag followed by stray text is malformed; anything
            // else is an unknown tag whose name runs to the colon.
            if space < nameEnd,
                let definition = TagDefinition.lookup(UnsafeBufferPointer(rebasing: buffer[(start + 1)..<space]))
            {
                report(
                    .tagValue, line: line, column: space - lineStart + 1,
                    "unexpected text after #\(definition.name); the value follows a colon")
                let rest = String(decoding: UnsafeBufferPointer(rebasing: buffer[(space + 1)..<end]), as: UTF8.self)
                return .tag(Tag(definition.name, .text(rest)))
            }
        }
        let nameBytes = UnsafeBufferPointer(rebasing: buffer[(start + 1)..<nameEnd])
        let hasValue = nameEnd < end
        let valueStart = hasValue ? nameEnd + 1 : end
        let valueBytes = UnsafeBufferPointer(rebasing: buffer[valueStart..<end])
        let column = valueStart - lineStart + 1
        guard let definition = known else {
            let name = TagName(rawValue: String(decoding: nameBytes, as: UTF8.self))
            return .tag(Tag(name, hasValue ? .text(String(decoding: valueBytes, as: UTF8.self)) : .none))
        }
        return .tag(
            Tag(definition.name, parseValue(definition, valueBytes, hasValue: hasValue, line: line, column: column)))
    }

    private mutating func parseValue(
        _ definition: TagDefinition, _ bytes: UnsafeBufferPointer<UInt8>, hasValue: Bool, line: Int, column: Int
    ) -> TagValue {
        let name = definition.name.rawValue
        func malformed(_ message: String) -> TagValue {
            report(.tagValue, line: line, column: column, message)
            return hasValue ? .text(String(decoding: bytes, as: UTF8.self)) : .none
        }
        switch definition.form {
        case .none:
            return hasValue ? malformed("#\(name) takes no value") : .none
        case .integer:
            guard let value = Self.decimalInteger(bytes) else {
                return malformed(
                    "#\(name) needs a decimal-integer value, found '\(String(decoding: bytes, as: UTF8.self))'")
            }
            return .integer(value)
        case .extinf:
            let (duration, comma) = Self.extinfValue(bytes)
            guard let duration else {
                return malformed(
                    "#EXTINF needs a decimal-floating-point duration, found '\(String(decoding: bytes[0..<(comma ?? bytes.count)], as: UTF8.self))'"
                )
            }
            guard let comma else {
                report(
                    .tagValue, line: line, column: column + bytes.count,
                    "#EXTINF:<duration>,[<title>] needs a comma after the duration")
                return .extinf(duration: duration, title: "")
            }
            let title = comma + 1 < bytes.count ? String(decoding: bytes[(comma + 1)...], as: UTF8.self) : ""
            return .extinf(duration: duration, title: title)
        case .byteRange:
            guard let range = ByteRange(String(decoding: bytes, as: UTF8.self)) else {
                return malformed(
                    "#\(name) needs <n>[@<o>] with decimal-integers, found '\(String(decoding: bytes, as: UTF8.self))'")
            }
            return .byteRange(range)
        case .dateTime:
            guard let date = DateTime.parse(bytes) else {
                return malformed(
                    "#\(name) needs an ISO-8601 date-time, found '\(String(decoding: bytes, as: UTF8.self))'")
            }
            if !Self.isPrecise(date) {
                report(
                    .dateFormat, line: line, column: column,
                    "the date \(String(decoding: bytes, as: UTF8.self)) lacks a time zone or millisecond precision; \(Rule.dateFormat.quote)"
                )
            }
            return .dateTime(date)
        case .enumerated:
            let text = String(decoding: bytes, as: UTF8.self)
            guard AttributeValue(unchecked: text).enumeratedString != nil else {
                return malformed("#\(name) needs an enumerated-string, found '\(text)'")
            }
            return .enumerated(text)
        case .attributes:
            guard hasValue else { return malformed("#\(name) needs an attribute list") }
            return .attributes(parseAttributes(bytes, line: line, column: column))
        }
    }

    /// Parses an attribute list (§4.2), reporting syntax errors and repeated names with columns.
    ///
    /// One pass, linear in the length of the list: names seen are kept in a dictionary, and a name
    /// repeated many times is reported once, at its first repetition, with its count.
    /// Up to this many attributes, duplicates are found by comparing names rather than hashing them.
    private static let scannedAttributes = 16

    mutating func parseAttributes(_ bytes: UnsafeBufferPointer<UInt8>, line: Int, column: Int) -> AttributeList {
        var list: [Attribute] = []
        // Counts of each name, kept only once the list is long; short lists are scanned instead
        // (hashing every name costs more than comparing a dozen).
        var occurrences: [String: Int] = [:]
        var repeated: [(name: String, column: Int)] = []
        var index = 0
        let count = bytes.count
        while index < count {
            let nameStart = index
            while index < count, bytes[index] != Self.equals, bytes[index] != Self.comma { index += 1 }
            let nameBytes = UnsafeBufferPointer(rebasing: bytes[nameStart..<index])
            guard index < count, bytes[index] == Self.equals, !nameBytes.isEmpty else {
                report(
                    .attributeSyntax, line: line, column: column + nameStart,
                    "expected AttributeName=AttributeValue, found '\(Diagnostic.clipped(String(decoding: nameBytes, as: UTF8.self)))'"
                )
                index += 1
                continue
            }
            if let bad = nameBytes.firstIndex(where: { !AttributeGrammar.isAttributeNameByte($0) }) {
                report(
                    .attributeName, line: line, column: column + nameStart + bad,
                    "AttributeName '\(Diagnostic.clipped(String(decoding: nameBytes, as: UTF8.self)))' may only contain [A-Z], [0-9] and '-'"
                )
            }
            index += 1
            let valueStart = index
            if index < count, bytes[index] == Self.quote {
                index += 1
                var carriageReturn: Int?
                while index < count, bytes[index] != Self.quote {
                    if bytes[index] == 0x0D, carriageReturn == nil { carriageReturn = index }
                    index += 1
                }
                if index == count {
                    report(.attributeSyntax, line: line, column: column + valueStart, "unterminated quoted-string")
                } else {
                    index += 1
                    if index < count, bytes[index] != Self.comma {
                        report(
                            .attributeQuotedString, line: line, column: column + index - 1,
                            "the quoted-string contains '\"' (or ',' is missing after it); \(Rule.attributeQuotedString.quote)"
                        )
                        while index < count, bytes[index] != Self.comma { index += 1 }
                    }
                }
                if let carriageReturn {
                    report(
                        .attributeQuotedString, line: line, column: column + carriageReturn,
                        "the quoted-string contains a carriage return; \(Rule.attributeQuotedString.quote)")
                }
            } else {
                var badByte: Int?
                while index < count, bytes[index] != Self.comma {
                    if badByte == nil, AttributeGrammar.isForbiddenInUnquotedValue(bytes[index]) { badByte = index }
                    index += 1
                }
                if index == valueStart {
                    report(
                        .attributeSyntax, line: line, column: column + valueStart,
                        "missing value for attribute \(Diagnostic.clipped(String(decoding: nameBytes, as: UTF8.self)))"
                    )
                } else if let badByte {
                    let scalar = Unicode.Scalar(bytes[badByte])
                    report(
                        .attributeValueCharacter, line: line, column: column + badByte,
                        "the value of \(Diagnostic.clipped(String(decoding: nameBytes, as: UTF8.self))) contains \(scalar.diagnosticName), which an unquoted attribute value cannot have; \(Rule.attributeValueCharacter.quote)"
                    )
                }
            }
            let name = String(decoding: nameBytes, as: UTF8.self)
            let value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
            let seen: Int
            if list.count < Self.scannedAttributes {
                var earlier = 0
                for attribute in list where attribute.name == name { earlier += 1 }
                seen = earlier
            } else {
                if occurrences.isEmpty {
                    for attribute in list { occurrences[attribute.name, default: 0] += 1 }
                }
                seen = occurrences[name, default: 0]
                occurrences[name] = seen + 1
            }
            if seen == 1 { repeated.append((name, column + nameStart)) }
            list.append(Attribute(name: name, value: AttributeValue(unchecked: value)))
            if index < count {
                index += 1  // the comma
                if index == count {
                    report(
                        .attributeSyntax, line: line, column: column + index - 1,
                        "trailing comma at the end of the attribute list")
                }
            }
        }
        for (name, nameColumn) in repeated {
            var times = occurrences[name, default: 0]
            if occurrences.isEmpty {
                for attribute in list where attribute.name == name { times += 1 }
            }
            report(
                .attributeDuplicate, line: line, column: nameColumn,
                "attribute \(Diagnostic.clipped(name)) appears \(times == 2 ? "more than once" : "\(times) times"); \(Rule.attributeDuplicate.quote)"
            )
        }
        return AttributeList(list)
    }

    private static func decimalInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard (1...20).contains(bytes.count) else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
