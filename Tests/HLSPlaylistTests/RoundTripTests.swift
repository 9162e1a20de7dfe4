import Foundation
import HLSPlaylist
import Testing

@Suite("Round trip: write(parse(x)) == x")
struct RoundTripTests {
    static let corpus = Fixtures.files("playlists") + Fixtures.files("invalid")

    @Test("every fixture round-trips byte for byte", arguments: corpus)
    func fixture(_ url: URL) {
        let bytes = Fixtures.bytes(url)
        #expect(!bytes.isEmpty)
        let result = PlaylistParser.parse(bytes, options: ParseOptions(file: url.lastPathComponent))
        #expect(result.document.write() == bytes)
    }

    @Test(
        "every conformance vector playlist parses without errors and round-trips",
        arguments: Fixtures.conformanceVectors())
    func conformance(_ vector: Fixtures.Vector) {
        #expect(vector.loadError == nil)
        let playlist = vector.playlist
        let result = PlaylistParser.parse(playlist)
        #expect(result.document.writeString() == playlist)
        #expect(!result.hasErrors, "\(result.diagnostics)")
    }

    @Test("all conformance vectors are found")
    func conformanceCount() {
        #expect(Fixtures.conformanceVectors().count >= 10)
    }

    @Test("the corpus covers CRLF, a missing final newline, blank and comment lines")
    func corpusShapes() {
        let crlf = Fixtures.playlist("vod-crlf.m3u8")
        #expect(PlaylistParser.parse(crlf).document.lines.allSatisfy { $0.terminator == .crlf })
        let noNewline = PlaylistParser.parse(Fixtures.playlist("no-final-newline.m3u8")).document
        #expect(noNewline.lines.last?.terminator == LineTerminator.none)
        let comments = PlaylistParser.parse(Fixtures.playlist("comments-and-blanks.m3u8")).document
        #expect(comments.lines.contains { $0.content == .blank })
        #expect(comments.lines.contains { $0.content == .comment(" Comments and blank lines are kept exactly.") })
    }

    @Test("number formatting is kept: 6.000000 stays 6.000000")
    func numberFormatting() {
        let bytes = Fixtures.playlist("number-formatting.m3u8")
        let result = PlaylistParser.parse(bytes)
        let text = result.document.writeString()
        #expect(text.contains("#EXTINF:6.000000,\n"))
        #expect(text.contains("#EXTINF:05.50,\n"))
        #expect(text.contains("DURATION=010.000,X-NUM=-0.50"))
        #expect(result.playlist.media?.segments[1].duration == MediaTime(decimal: "5.5"))
    }

    @Test("an edited tag is written canonically and untouched lines stay verbatim")
    func editedTag() throws {
        let bytes = Fixtures.playlist("vod-crlf.m3u8")
        var document = PlaylistParser.parse(bytes).document
        let index = try #require(document.lines.firstIndex { $0.content.tag?.name == .extinf })
        document.lines[index].content = .tag(Tag(.extinf, .extinf(duration: MediaTime(decimal: "5.5")!, title: "")))
        try document.insert(
            .tag(
                Tag(
                    .dateRange,
                    attributes: try [("ID", .quoted("new")), ("DURATION", .decimal(MediaTime(seconds: 10)))])),
            at: index)
        let text = document.writeString()
        let expected = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
            of: "#EXTINF:6.000000,first segment\r\n",
            with: "#EXT-X-DATERANGE:ID=\"new\",DURATION=10\r\n#EXTINF:5.500,\r\n")
        #expect(text == expected)
        #expect(document.lines[index + 1].isVerbatim == false)
        #expect(document.lines[0].isVerbatim)
    }

    @Test("appending to a file without a final newline keeps it without one")
    func appendWithoutFinalNewline() throws {
        var document = PlaylistParser.parse(Fixtures.playlist("no-final-newline.m3u8")).document
        try document.append(.tag(Tag(.endList)))
        #expect(document.writeString().hasSuffix("b.ts\n#EXT-X-ENDLIST"))
    }

    @Test("an edited attribute keeps the other attributes as written")
    func editedAttribute() throws {
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z\n#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-01-01T00:00:00.000Z\",DURATION=6.000000\n#EXTINF:6,\na.ts\n"
        var document = PlaylistParser.parse(text).document
        guard case .tag(var tag) = document.lines[3].content, var attributes = tag.value.attributes else {
            Issue.record("no date range")
            return
        }
        attributes["X-PLAYOUT-LIMIT"] = .decimal(MediaTime(decimal: "12.5")!)
        tag.value = .attributes(attributes)
        document.lines[3].content = .tag(tag)
        #expect(
            document.text(ofLine: 3)
                == "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-01-01T00:00:00.000Z\",DURATION=6.000000,X-PLAYOUT-LIMIT=12.5"
        )
    }

    @Test("the empty input and a lone newline round-trip")
    func degenerate() {
        for text in ["", "\n", "\r\n", "#EXTM3U", "\n\n\n", "#EXTM3U\r\n\n"] {
            #expect(PlaylistParser.parse(text).document.writeString() == text)
        }
    }
}
