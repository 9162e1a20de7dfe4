import Foundation
import HLSPlaylist
import Testing

/// The parser's fast paths (issue 17 goal 4) read exactly what the general paths read.
@Suite("Scanner fast paths: the same meaning and diagnostics as the general paths")
struct ScannerTests {
    static let fixtures = Fixtures.files("playlists") + Fixtures.files("invalid") + Fixtures.files("hostile")

    /// The parser surveys the lines (playlist kind, URI count) while reading them; interpreting a
    /// document again surveys its lines afresh. Both must give the same playlist and kind errors.
    @Test("interpreting a parsed document again gives the same playlist and kind diagnostics", arguments: fixtures)
    func surveyAgrees(_ url: URL) {
        let result = PlaylistParser.parse(Fixtures.bytes(url), options: ParseOptions(file: url.lastPathComponent))
        let again = PlaylistParser.interpret(result.document)
        #expect(again.playlist == result.playlist)
        let kinds = { (diagnostics: [Diagnostic]) in
            diagnostics.filter { $0.rule == "playlist-kind" }.map { "\($0.location) \($0.message)" }
        }
        #expect(kinds(again.diagnostics) == kinds(result.diagnostics))
    }

    @Test("a tag of the other kind is reported on every line it appears, after the first deciding tag")
    func misplacedTags() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-STREAM-INF:BANDWIDTH=1
            #EXTINF:6,
            a.ts
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="a"

            """
        let result = PlaylistParser.parse(text)
        let kinds = result.diagnostics.filter { $0.rule == "playlist-kind" }
        #expect(kinds.map(\.location.line) == [3, 6])
        #expect(kinds.first?.message == "#EXT-X-STREAM-INF is a Multivariant Playlist tag in a Media Playlist")
        #expect(result.playlist.media?.segments.count == 1)
    }

    /// Short attribute lists find duplicates by comparing names, long ones by counting them; the
    /// diagnostics (count, column of the second occurrence) must not depend on which.
    @Test("duplicate attributes are reported the same in short and long lists", arguments: [4, 15, 16, 17, 40])
    func duplicates(distinct: Int) throws {
        var attributes = ["ID=\"a\"", "START-DATE=\"2026-01-01T00:00:00.000Z\""]
        attributes += (0..<distinct).map { "X-A\($0)=1" }
        // X-A1 three times (its second copy lands before, at or after the switch to counting), X-A0 twice.
        attributes.insert("X-A1=2", at: min(attributes.count, 14))
        attributes += ["X-A1=3", "X-A0=4"]
        let prefix = "#EXT-X-DATERANGE:"
        let line = prefix + attributes.joined(separator: ",")
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n" + line + "\n#EXTINF:6,\na.ts\n"
        let result = PlaylistParser.parse(text)
        let found = result.diagnostics.filter { $0.rule == "attribute-duplicate" }
            .map { "\($0.location.line):\($0.location.column) \($0.message)" }
        /// The 1-based column of the `occurrence`-th (0-based) `name=` in the line.
        func column(_ name: String, _ occurrence: Int) -> Int {
            var offset = prefix.utf8.count
            var seen = 0
            for attribute in attributes {
                if attribute.hasPrefix(name + "=") {
                    if seen == occurrence { return offset + 1 }
                    seen += 1
                }
                offset += attribute.utf8.count + 1
            }
            return 0
        }
        let expected = [
            (column("X-A1", 1), "attribute X-A1 appears 3 times"),
            (column("X-A0", 1), "attribute X-A0 appears more than once"),
        ]
        .sorted { $0.0 < $1.0 }
        #expect(found.count == 2)
        for ((expectedColumn, message), diagnostic) in zip(expected, found) {
            #expect(diagnostic.hasPrefix("3:\(expectedColumn) \(message);"), "\(diagnostic)")
        }
        #expect(result.document.writeString() == text)
    }

    /// A tag name ends at the first colon or space; only a known name may end at a space.
    @Test("tag names end at a colon, or at a space after a known name")
    func tagNames() {
        let text = "#EXTM3U\n#EXT-X-ENDLIST extra:more\n#EXT-X-SOME THING:1\n#EXT-X-OTHER\n#EXTINF:6,\na.ts\n"
        let result = PlaylistParser.parse(text)
        let tags = result.document.lines.compactMap(\.content.tag)
        #expect(tags.map(\.name.rawValue) == ["EXTM3U", "EXT-X-ENDLIST", "EXT-X-SOME THING", "EXT-X-OTHER", "EXTINF"])
        #expect(tags[1].value == .text("extra:more"))
        #expect(tags[2].value == .text("1"))
        #expect(tags[3].value == TagValue.none)
        let stray = result.diagnostics.filter { $0.rule == "tag-value" }
        #expect(stray.map { "\($0.location.line):\($0.location.column)" } == ["2:15"])
        #expect(result.document.writeString() == text)
    }

    /// `YYYY-MM-DDThh:mm:ss` is read at fixed positions: any wrong byte among the first 19 refuses it.
    @Test("a date with any of its first 19 bytes wrong is refused", arguments: 0..<19)
    func fixedDatePositions(position: Int) {
        let valid = Array("2026-03-14T15:09:26.535Z".utf8)
        #expect(DateTime(iso8601: String(decoding: valid, as: UTF8.self)) != nil)
        for replacement in [UInt8(ascii: "x"), UInt8(ascii: "/"), UInt8(ascii: " ")] {
            var bytes = valid
            bytes[position] = replacement
            #expect(DateTime(iso8601: String(decoding: bytes, as: UTF8.self)) == nil)
        }
        #expect(DateTime(iso8601: String(decoding: valid[..<position], as: UTF8.self)) == nil)
    }

    @Test("dates read at fixed positions give the right instant")
    func fixedDateValues() throws {
        let date = try #require(DateTime(iso8601: "2026-03-14t15:09:26Z"))
        #expect(date == DateTime(iso8601: "2026-03-14T15:09:26.000Z"))
        #expect(date.nanosecondsSinceEpoch == 1_773_500_966 * 1_000_000_000)
    }

    @Test("quoted-string content is sliced as written, multi-byte characters included")
    func quotedContent() throws {
        #expect(try AttributeValue(rawValue: "\"été ☕️\"").quotedString == "été ☕️")
        #expect(try AttributeValue(rawValue: "\"\"").quotedString == "")
        #expect(try AttributeValue(rawValue: "ABC").quotedString == nil)
    }
}
