import Foundation
import HLSPlaylist
import Testing

/// Issue 14: no input traps or wraps time, no built tag breaks the line grammar, and the parser's cost
/// and output stay linear in the input.
@Suite("Robustness: time bounds, tag injection, linear cost")
struct RobustnessTests {
    // MARK: Time

    @Test("MediaTime arithmetic saturates at the Int64 bounds instead of wrapping")
    func mediaTimeSaturates() {
        let big = MediaTime(seconds: 8_999_999_999)
        #expect(big + big == .max)
        #expect(-big - big == .min)
        #expect(MediaTime.min - MediaTime(seconds: 1) == .min)
        #expect(MediaTime.max + MediaTime(nanoseconds: 1) == .max)
        #expect(-MediaTime.min == .max)
        #expect(MediaTime.max - MediaTime.min == .max)
        #expect(MediaTime(seconds: Int.max) == .max)
        #expect(MediaTime(seconds: Int.min) == .min)
        #expect(big.checkedAdding(big) == nil)
        #expect(big.checkedAdding(MediaTime(seconds: 1)) == MediaTime(seconds: 9_000_000_000))
        #expect(MediaTime.min.checkedSubtracting(MediaTime(seconds: 1)) == nil)
    }

    struct SecondsCase: Sendable, CustomTestStringConvertible {
        var seconds: Double
        var nanoseconds: Int64
        var testDescription: String { "\(seconds)" }
    }

    @Test(
        "MediaTime(seconds:) never traps and is exact for integral and nine-digit values",
        arguments: [
            SecondsCase(seconds: 8_999_999_999, nanoseconds: 8_999_999_999_000_000_000),
            SecondsCase(seconds: 6.006, nanoseconds: 6_006_000_000),
            SecondsCase(seconds: 0.1, nanoseconds: 100_000_000),
            SecondsCase(seconds: -2.5, nanoseconds: -2_500_000_000),
            SecondsCase(seconds: 1234.123456789, nanoseconds: 1_234_123_456_789),
            SecondsCase(seconds: .nan, nanoseconds: 0),
            SecondsCase(seconds: .infinity, nanoseconds: .max),
            SecondsCase(seconds: -.infinity, nanoseconds: .min),
            SecondsCase(seconds: 1e300, nanoseconds: .max),
            SecondsCase(seconds: -1e300, nanoseconds: .min),
            SecondsCase(seconds: 9_223_372_036.9, nanoseconds: .max),
        ])
    func mediaTimeFromDouble(_ input: SecondsCase) {
        #expect(MediaTime(seconds: input.seconds).nanoseconds == input.nanoseconds)
    }

    @Test("8999999999 s is written as 8999999999, not 8999999999.000000512")
    func exactDescription() {
        #expect(MediaTime(seconds: 8_999_999_999.0).description == "8999999999")
        #expect(AttributeValue.decimal(MediaTime(seconds: 8_999_999_999.0)).rawValue == "8999999999")
    }

    @Test(
        "the checked form refuses what the user bound does not hold",
        arguments: [.nan, .infinity, 1e300, 8_999_999_999, -4e8])
    func checkedSeconds(_ value: Double) {
        #expect(MediaTime(exactlySeconds: value) == nil)
    }

    @Test("the checked form accepts values inside the user bound")
    func checkedSecondsAccepts() {
        #expect(MediaTime(exactlySeconds: 315_360_000) == MediaTime.userInputLimit)
        #expect(MediaTime(exactlySeconds: -2.5) == MediaTime(decimal: "-2.5"))
        #expect(MediaTime(exactlySeconds: 0) == .zero)
    }

    @Test("DateTime + MediaTime saturates; adding(_:) is checked; 2000 + 8999999999 s is not in 1700")
    func dateArithmetic() throws {
        let epoch = try #require(DateTime(iso8601: "2000-01-01T00:00:00.000Z"))
        let later = epoch + MediaTime(seconds: 8_999_999_999)
        #expect(later > epoch)
        #expect(later.nanosecondsSinceEpoch == Int64.max)
        #expect(epoch.adding(MediaTime(seconds: 8_999_999_999)) == nil)
        #expect(epoch.adding(MediaTime(seconds: 10)) == DateTime(iso8601: "2000-01-01T00:00:10.000Z"))
        #expect((DateTime(nanosecondsSinceEpoch: .min + 5) - MediaTime(seconds: 1)).nanosecondsSinceEpoch == Int64.min)
        #expect(epoch.isWithinUserInputBounds)
        #expect(!later.isWithinUserInputBounds)
        // Extreme dates still print (no trap in the offset arithmetic).
        var extreme = DateTime(nanosecondsSinceEpoch: .max, utcOffsetSeconds: 3600)
        #expect(extreme.iso8601.hasPrefix("2262-"))
        extreme = DateTime(nanosecondsSinceEpoch: .min, utcOffsetSeconds: -3600)
        #expect(extreme.iso8601.hasPrefix("1677-"))
        #expect(DateTime(Date.distantFuture).nanosecondsSinceEpoch == Int64.max)
        #expect(DateTime(iso8601: "2262-04-11T23:47:16.854775807Z")! - DateTime(nanosecondsSinceEpoch: .min) == .max)
    }

    @Test("a segment of 9223372036.854775807 s does not trap the target-duration check")
    func hugeSegment() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:9223372036.854775807,\na.ts\n#EXTINF:6,\nb.ts\n"
        let result = PlaylistParser.parse(text)
        #expect(result.diagnostics.contains { $0.rule == "target-duration" })
        #expect(result.document.writeString() == text)
    }

    // MARK: Building cannot break the grammar

    static let injections = [
        "a\"\n#EXTINF:2,\nhttp://evil.invalid/seg.m4s\n#X:\"b",
        "a\",DURATION=999,X-Z=\"b",
        "line\rbreak",
        "nul\u{0}byte",
        "c1\u{85}control",
    ]

    @Test("quoted(_:) refuses a quote, CR, LF or a control character, naming it and its offset", arguments: injections)
    func quotedRefuses(_ text: String) {
        #expect(throws: AttributeSyntaxError.self) { try AttributeValue.quoted(text) }
        do {
            _ = try AttributeValue.quoted(text)
        } catch {
            #expect(error.rule == "attribute-quoted-string")
            let offset = text.utf8.firstIndex { $0 == 0x22 || $0 == 0x0A || $0 == 0x0D || $0 == 0 || $0 == 0xC2 }
            #expect(error.offset == offset.map { text.utf8.distance(from: text.utf8.startIndex, to: $0) })
            #expect(error.message.contains("at byte \(error.offset)"))
        }
    }

    @Test("quoted(_:) accepts ordinary text, tabs and UTF-8")
    func quotedAccepts() throws {
        #expect(try AttributeValue.quoted("a b\tc é ✓").rawValue == "\"a b\tc é ✓\"")
        #expect(try AttributeValue.quoted("").rawValue == "\"\"")
    }

    @Test(
        "enumerated strings refuse quotes, commas, whitespace, controls and emptiness",
        arguments: ["", "A B", "A,B", "A\"", "A\nB", "A\tB", "\u{7F}"])
    func enumeratedRefuses(_ text: String) {
        #expect(throws: AttributeSyntaxError.self) { try AttributeValue.enumerated(text) }
    }

    @Test(
        "enumerated-string-list entries refuse what would change the list or break the quoted-string",
        arguments: ["A,B", "A\"", "A\nB", "A\rB", "\u{7F}"])
    func enumeratedListRefuses(_ text: String) {
        #expect(throws: AttributeSyntaxError.self) { try AttributeValue.enumeratedList(["OK", text]) }
    }

    @Test("enumerated-string-list entries that are merely invalid (empty, spaced) write back as read")
    func enumeratedListKeepsInvalidEntries() throws {
        #expect(try AttributeValue.enumeratedList(["OUT", "", "IN X"]).rawValue == "\"OUT,,IN X\"")
    }

    @Test(
        "raw values must be a whole quoted-string or a clean unquoted value",
        arguments: ["\"a", "\"a\"b\"", "a,b", "1,X=2", "\"a\nb\"", "", "a b", "\"\r\""])
    func rawValueRefuses(_ text: String) {
        #expect(throws: AttributeSyntaxError.self) { try AttributeValue(rawValue: text) }
    }

    @Test(
        "attribute names are [A-Z0-9-]; client names start with X-",
        arguments: ["", "x-lower", "X-A B", "X-A=1", "X-\n#EXTINF", "X-É"])
    func namesRefused(_ name: String) {
        #expect(throws: AttributeSyntaxError.self) { try Attribute.checkName(name) }
        #expect(throws: AttributeSyntaxError.self) { try Attribute.checkClientName(name) }
    }

    @Test("checkClientName needs X- and more")
    func clientNames() throws {
        try Attribute.checkClientName("X-COM-EXAMPLE-1")
        #expect(throws: AttributeSyntaxError.self) { try Attribute.checkClientName("X-") }
        #expect(throws: AttributeSyntaxError.self) { try Attribute.checkClientName("DURATION") }
        try Attribute.checkName("DURATION")
    }

    @Test("checkWritable refuses a parsed value that would not write a well-formed tag")
    func checkWritable() throws {
        let result = PlaylistParser.parse("#EXTM3U\n#EXT-X-DATERANGE:ID=\"a\",X-A=\"unterminated\n")
        let tag = try #require(result.document.lines[1].content.tag)
        let attributes = try #require(tag.value.attributes)
        #expect(throws: AttributeSyntaxError.self) { try attributes.checkWritable() }
        let clean: AttributeList = try [("ID", .quoted("a")), ("X-B", .enumerated("1"))]
        try clean.checkWritable()
    }

    @Test("AttributeValue decoding is checked like init(rawValue:)")
    func decodingChecked() throws {
        let decoder = JSONDecoder()
        #expect(throws: DecodingError.self) {
            try decoder.decode([AttributeValue].self, from: Data(#"["a\",DURATION=1"]"#.utf8))
        }
        #expect(try decoder.decode([AttributeValue].self, from: Data(#"["\"ok\""]"#.utf8))[0].quotedString == "ok")
    }

    // MARK: The parser reports what building refuses

    struct ReportCase: Sendable, CustomTestStringConvertible {
        var line: String
        var rule: RuleID
        var column: Int
        var testDescription: String { line }
    }

    @Test(
        "the parser reports bad quoted-strings, value characters and names at the offending byte",
        arguments: [
            // `#EXT-X-DATERANGE:` is 17 bytes, so the list starts at column 18.
            ReportCase(line: "#EXT-X-DATERANGE:ID=\"a\"b\",X-A=1", rule: "attribute-quoted-string", column: 23),
            ReportCase(line: "#EXT-X-DATERANGE:ID=\"a\",X-A=\"x\ry\"", rule: "attribute-quoted-string", column: 31),
            ReportCase(line: "#EXT-X-DATERANGE:ID=\"a\",X-A=ab\"c", rule: "attribute-value-character", column: 31),
            ReportCase(line: "#EXT-X-DATERANGE:ID=\"a\",X-A=a\tb", rule: "attribute-value-character", column: 30),
            ReportCase(line: "#EXT-X-DATERANGE:ID=\"a\",x-low=1", rule: "attribute-name", column: 25),
            ReportCase(line: "#EXT-X-DATERANGE:ID=\"a\",X-É=1", rule: "attribute-name", column: 27),
        ])
    func parserReports(_ input: ReportCase) throws {
        let text = "#EXTM3U\n" + input.line + "\n"
        let result = PlaylistParser.parse(text)
        let found = try #require(result.diagnostics.first { $0.rule == input.rule }, "\(result.diagnostics)")
        #expect(found.severity == .error)
        #expect(found.location.line == 2)
        #expect(found.location.column == input.column)
        #expect(result.document.writeString() == text)
    }

    @Test("the new rules are in the catalog")
    func catalog() {
        let ids = Set(Rule.playlistRules.map(\.id))
        for id: RuleID in [
            "attribute-name", "attribute-quoted-string", "attribute-value-character", "diagnostic-limit",
        ] {
            #expect(ids.contains(id))
        }
    }

    // MARK: Linear cost, bounded output (nothing is timed)

    @Test("200,000 duplicate attributes give one duplicate diagnostic with the count")
    func manyDuplicates() throws {
        let count = 200_000
        var line = "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2026-01-01T00:00:00.000Z\""
        line.reserveCapacity(count * 8)
        for _ in 0..<count { line += ",X-A=1" }
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n" + line
            + "\n#EXTINF:6,\na.ts\n"
        let result = PlaylistParser.parse(text)
        let duplicates = result.diagnostics.filter { $0.rule == "attribute-duplicate" }
        #expect(duplicates.count == 1)
        #expect(duplicates.first?.message.contains("appears \(count) times") == true)
        #expect(result.document.writeString() == text)
    }

    @Test("diagnostics are capped per line and per file; the cap keeps the severity")
    func capped() throws {
        // 200,000 distinct bad names on one line.
        var line = "#EXT-X-DATERANGE:ID=\"a\""
        for index in 0..<200_000 { line += ",x\(index)=1" }
        let result = PlaylistParser.parse("#EXTM3U\n" + line + "\n")
        let onLine = result.diagnostics.filter { $0.location.line == 2 }
        #expect(onLine.count <= Diagnostic.maximumPerLine + 1)
        let summary = try #require(onLine.first { $0.rule == "diagnostic-limit" })
        #expect(summary.severity == .error)
        #expect(summary.message.hasPrefix("199980 more diagnostics on this line"))
        // Many lines with errors: at most maximumPerFile, then one summary.
        let many = "#EXTM3U\n" + String(repeating: "#EXT-X-DATERANGE:x=1\n", count: 3000)
        let capped = PlaylistParser.parse(many).diagnostics
        #expect(capped.count == Diagnostic.maximumPerFile + 1)
        #expect(capped.last?.rule == "diagnostic-limit")
        #expect(capped.last?.severity == .error)
        #expect(capped.containsErrors)
    }

    @Test("rendering shows a bounded window with the caret on the right character")
    func renderWindow() throws {
        let line = String(repeating: "A", count: 100_000) + "!" + String(repeating: "B", count: 100_000)
        let diagnostic = Diagnostic(.error, "x", at: SourceLocation(file: "f", line: 1, column: 100_001), "m")
        let rendered = diagnostic.render(sourceLine: line)
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines[1].count <= Diagnostic.renderedLineWidth + 2)
        #expect(lines[1].hasPrefix("…") && lines[1].hasSuffix("…"))
        let caret = try #require(lines[2].firstIndex(of: "^"))
        let column = lines[2].distance(from: lines[2].startIndex, to: caret)
        #expect(Array(lines[1])[column] == "!")
        // Short lines are shown whole, tabs as spaces, as before.
        let short = Diagnostic(.error, "x", at: SourceLocation(file: "f", line: 1, column: 3), "m")
        #expect(short.render(sourceLine: "a\tbc") == short.description + "\na bc\n  ^")
        // From a document, the same.
        let document = PlaylistParser.parse("#EXTM3U\n" + line + "\n").document
        let located = Diagnostic(.error, "x", at: SourceLocation(file: "f", line: 2, column: 100_001), "m")
        #expect(located.render(in: document).split(separator: "\n").dropFirst() == lines.dropFirst())
    }

    @Test("a window starting inside a multi-byte character keeps the caret aligned")
    func renderUTF8() throws {
        let line = String(repeating: "é", count: 200) + "!" + String(repeating: "é", count: 200)
        let column = 400 + 1
        let rendered = Diagnostic(.error, "x", at: SourceLocation(file: "f", line: 1, column: column), "m")
            .render(sourceLine: line)
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        let caret = try #require(lines[2].firstIndex(of: "^"))
        #expect(Array(lines[1])[lines[2].distance(from: lines[2].startIndex, to: caret)] == "!")
    }

    @Test("a window inside a long run of invalid UTF-8 stays bounded (found by the fuzzer)")
    func renderInvalidUTF8() {
        let bytes =
            Array("#EXTM3U\n#EXT-X-DATERANGE:ID=\"a".utf8) + [UInt8](repeating: 0xBC, count: 5000) + Array("\"\n".utf8)
        let result = PlaylistParser.parse(bytes)
        for column in [1, 20, 2000, 5100] {
            let diagnostic = Diagnostic(.error, "x", at: SourceLocation(file: "f", line: 2, column: column), "m")
            let rendered = diagnostic.render(in: result.document)
            #expect(rendered.utf8.count <= diagnostic.description.utf8.count + 3 * Diagnostic.renderedLineWidth + 140)
        }
    }

    @Test("the rendered output of 200,000 bad attributes stays bounded")
    func renderedOutputBounded() {
        var line = "#EXT-X-DATERANGE:ID=\"a\""
        for index in 0..<200_000 { line += ",x\(index)=\"v\"" }
        let result = PlaylistParser.parse("#EXTM3U\n" + line + "\n")
        let output = result.diagnostics.map { $0.render(in: result.document) }.joined(separator: "\n")
        #expect(output.utf8.count < 40 * 1024)
    }

    static let unwritableLines: [LineContent] = [
        .uri("seg.ts\n#EXT-X-ENDLIST"),
        .uri("#EXT-X-ENDLIST"),
        .uri(""),
        .comment("note\r#EXTINF:2,"),
        .comment("EXT-X-ENDLIST"),
        .tag(Tag("EXT-X-FOO\n#EXT-X-ENDLIST")),
        .tag(Tag("X-NOT-EXT")),
        .tag(Tag(.extinf, .extinf(duration: MediaTime(seconds: 2), title: "t\nevil.ts"))),
        .tag(Tag(.playlistType, .enumerated("VOD\n#EXT-X-ENDLIST"))),
        .tag(Tag("EXT-X-FOO", .text("a\nb"))),
        .tag(Tag(.dateRange, attributes: [("X-A\n#EXT-X-ENDLIST", .integer(1))])),
    ]

    @Test("a document refuses to insert a line that would break the line grammar", arguments: unwritableLines)
    func documentRefusesInjectedLines(_ content: LineContent) throws {
        var document = PlaylistParser.parse("#EXTM3U\n#EXTINF:6,\na.ts\n").document
        let before = document.write()
        #expect(throws: AttributeSyntaxError.self) { try document.insert(content, at: 1) }
        #expect(throws: AttributeSyntaxError.self) { try document.append(content) }
        #expect(document.write() == before, "nothing was inserted")
    }

    @Test("a document inserts well-formed lines: tags, URIs, comments, blanks")
    func documentInsertsWellFormedLines() throws {
        var document = PlaylistParser.parse("#EXTM3U\n#EXTINF:6,\na.ts\n").document
        try document.append(.tag(Tag(.extinf, .extinf(duration: MediaTime(seconds: 2), title: "title\twith tab"))))
        try document.append(.uri("https://example.com/b.ts?x=1"))
        try document.append(.comment(" a note"))
        try document.append(.blank)
        try document.append(.tag(Tag(.dateRange, attributes: [("ID", try .quoted("a")), ("X-N", .integer(1))])))
        try document.append(.tag(Tag(.endList)))
        // Each added content is one line when read back.
        #expect(PlaylistParser.parse(document.write()).document.lines.count == document.lines.count)
        #expect(document.lines.count == 9)
    }
}
