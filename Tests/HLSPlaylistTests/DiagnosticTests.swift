import Foundation
import HLSPlaylist
import Testing

@Suite("Diagnostics: malformed input gets located errors")
struct DiagnosticTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        /// (rule, line, column) that must be reported.
        var expected: [(String, Int, Int)]
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "missing-header.m3u8", expected: [("playlist-header", 1, 1)]),
        Case(file: "duplicate-attribute.m3u8", expected: [("attribute-duplicate", 4, 74)]),
        Case(file: "bad-extinf.m3u8", expected: [("tag-value", 3, 9), ("segment-uri", 4, 1), ("tag-value", 5, 12)]),
        Case(file: "daterange-conflict.m3u8", expected: [("daterange-conflict", 7, 25)]),
        Case(file: "mixed-kinds.m3u8", expected: [("playlist-kind", 3, 1)]),
        Case(file: "target-duration.m3u8", expected: [("target-duration", 6, 1), ("tag-duplicate", 7, 1)]),
        Case(
            file: "attribute-syntax.m3u8",
            expected: [
                ("attribute-syntax", 2, 41), ("attribute-name", 4, 19), ("attribute-syntax", 4, 33),
                ("attribute-missing", 4, 1), ("attribute-enumeration", 6, 14), ("attribute-type", 7, 19),
                ("stream-uri", 7, 1), ("attribute-missing", 8, 1),
            ]),
        Case(file: "encoding.m3u8", expected: [("playlist-encoding", 3, 15), ("playlist-encoding", 5, 4)]),
        Case(
            file: "bom-and-more.m3u8",
            expected: [
                ("playlist-encoding", 1, 1), ("tag-value", 5, 15), ("variable-reference", 7, 1), ("segment-uri", 8, 1),
            ]),
    ]

    @Test("each malformed fixture reports its rules at the right place", arguments: cases)
    func located(_ testCase: Case) {
        let bytes = Fixtures.bytes(Fixtures.root.appendingPathComponent("invalid/\(testCase.file)"))
        let result = PlaylistParser.parse(bytes, options: ParseOptions(file: testCase.file))
        let found = result.diagnostics.map { "\($0.rule):\($0.location.line):\($0.location.column)" }
        for (rule, line, column) in testCase.expected {
            #expect(found.contains("\(rule):\(line):\(column)"), "missing \(rule) at \(line):\(column) in \(found)")
        }
        #expect(result.hasErrors)
        #expect(result.diagnostics.allSatisfy { $0.location.file == testCase.file })
        #expect(result.document.write() == bytes)
    }

    @Test(
        "valid fixtures have no errors",
        arguments: [
            "vod-basic.m3u8", "vod-crlf.m3u8", "interstitials-vod.m3u8", "multivariant-full.m3u8", "ll-hls-live.m3u8",
            "segments-keys-byterange.m3u8", "comments-and-blanks.m3u8", "daterange-update-live.m3u8",
            "no-final-newline.m3u8",
        ])
    func valid(_ name: String) {
        let result = PlaylistParser.parse(Fixtures.playlist(name))
        #expect(!result.hasErrors, "\(result.diagnostics)")
    }

    @Test("rendering: path:line:col: severity: [rule] message, the source line, a caret under the column")
    func rendering() {
        let diagnostic = Rule.attributeDuplicate.diagnostic(
            at: SourceLocation(file: "a.m3u8", line: 4, column: 12), "attribute DURATION appears more than once")
        let rendered = diagnostic.render(sourceLine: "#EXT-X-X:A=1,A=2")
        #expect(
            rendered == """
                a.m3u8:4:12: error: [attribute-duplicate] attribute DURATION appears more than once
                #EXT-X-X:A=1,A=2
                           ^
                """)
    }

    @Test("diagnostics encode as flat JSON objects")
    func json() throws {
        let diagnostic = Rule.whitespace.diagnostic(at: SourceLocation(file: "f", line: 2, column: 3), "m")
        let data = try JSONEncoder().encode(diagnostic)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["severity"] as? String == "warning")
        #expect(object?["rule"] as? String == "whitespace")
        #expect(object?["line"] as? Int == 2)
        #expect(try JSONDecoder().decode(Diagnostic.self, from: data) == diagnostic)
    }

    @Test("every rule has a stable unique ID, a summary and a reference")
    func catalog() {
        let ids = Rule.playlistRules.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(Rule.playlistRules.allSatisfy { !$0.summary.isEmpty && $0.reference.hasPrefix("§") })
    }

    @Test("variables: undefined references and duplicate definitions are errors")
    func variables() {
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\"\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"2\"\n#EXTINF:6,\n{$a}{$b}.ts\n"
        let result = PlaylistParser.parse(text)
        let rules = result.diagnostics.map { "\($0.rule):\($0.location.line)" }
        #expect(rules.contains("variable-reference:4"))
        #expect(rules.contains("variable-reference:6"))
        #expect(result.playlist.media?.segments.first?.uri == "1{$b}.ts")
    }

    @Test("a client attribute with an enumerated value is an error; unknown enumerated values ignore the tag")
    func valueTypes() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="a",START-DATE="2024-01-01T00:00:00.000Z",X-BAD=YES,END-ON-NEXT=NO,DURATION=-1
            #EXT-X-PLAYLIST-TYPE:LIVE
            #EXTINF:6,
            a.ts
            """
        let result = PlaylistParser.parse(text)
        let rules = result.diagnostics.map(\.rule.rawValue)
        #expect(rules.filter { $0 == "attribute-type" }.count == 3)
        #expect(rules.contains("attribute-enumeration"))
        #expect(result.playlist.media?.playlistType == nil)
    }
}
