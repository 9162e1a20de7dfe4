import Foundation
import PropertyBased
import Testing

@testable import HLSPlaylist

/// Parsed lines and segments are kept compactly (ranges of the source, one record per segment)
/// and made on access; these tests hold that form to the plain values the parser makes for
/// sources too large for it.
@Suite("Compact lines and segments")
struct CompactStorageTests {
    static let corpus = Fixtures.files("playlists") + Fixtures.files("invalid")

    /// Parses `bytes` both ways: compactly, and as values (as for a source over 4 GiB).
    static func bothWays(_ bytes: [UInt8]) -> (compact: ParseResult, values: ParseResult) {
        var valuesOptions = ParseOptions()
        valuesOptions.compactSourceLimit = 0
        return (PlaylistParser.parse(bytes), PlaylistParser.parse(bytes, options: valuesOptions))
    }

    static func isCompact(_ segments: MediaSegments) -> Bool {
        if case .compact = segments.storage { return true }
        return false
    }

    /// The two forms give the same lines, segments, playlist and diagnostics, and reading the
    /// compact document again gives the same playlist.
    static func checkSame(_ bytes: [UInt8]) {
        let (compact, values) = bothWays(bytes)
        #expect(compact.document.write() == bytes)
        #expect(values.document.write() == bytes)
        #expect(compact.document.lines.count == values.document.lines.count)
        for index in compact.document.lines.indices {
            #expect(compact.document.lines[index] == values.document.lines[index], "line \(index + 1)")
        }
        #expect(compact.diagnostics == values.diagnostics)
        #expect(compact.playlist == values.playlist)
        if let compactMedia = compact.playlist.media, let valuesMedia = values.playlist.media {
            #expect(!isCompact(valuesMedia.segments))
            #expect(compactMedia.segments.count == valuesMedia.segments.count)
            for index in compactMedia.segments.indices {
                let segment = compactMedia.segments[index]
                #expect(segment == valuesMedia.segments[index], "segment \(index)")
                // Fields `==` does not compare exactly (dates compare by instant).
                #expect(segment.date?.utcOffsetSeconds == valuesMedia.segments[index].date?.utcOffsetSeconds)
                #expect(segment.date?.fractionDigits == valuesMedia.segments[index].date?.fractionDigits)
                #expect(compactMedia.segments.startTime(at: index) == segment.startTime)
                #expect(compactMedia.segments.duration(at: index) == segment.duration)
                #expect(compactMedia.segments.date(at: index) == segment.date)
                #expect(compactMedia.segments.hasDiscontinuity(at: index) == segment.discontinuity)
            }
            #expect(compactMedia.segments.hashValue == valuesMedia.segments.hashValue)
        }
        let again = PlaylistParser.interpret(compact.document)
        #expect(again.playlist == compact.playlist)
        #expect(again.diagnostics.allSatisfy { compact.diagnostics.contains($0) })
    }

    @Test("every fixture: the compact form equals the values form", arguments: corpus)
    func fixture(_ url: URL) {
        Self.checkSame(Fixtures.bytes(url))
    }

    @Test("generated playlists: the compact form equals the values form")
    func generated() async {
        await propertyCheck(count: 200, input: PropertyTests.lines, Gen.int(in: 0...7), Gen.int(in: 0...1000)) {
            lines, shape, position in
            let separator = shape % 2 == 0 ? "\n" : "\r\n"
            var header = ["#EXTM3U", "#EXT-X-TARGETDURATION:10"]
            if shape & 2 != 0 { header.append("#EXT-X-DEFINE:NAME=\"v\",VALUE=\"x\"") }
            var body = lines.map { PropertyTests.line($0.0, $0.1, $0.2) }
            if shape & 2 != 0 { body = body.map { $0.replacingOccurrences(of: "seg1", with: "{$v}seg1") } }
            // Tags that change what later segments share, anywhere (even after segments).
            body.insert(
                "#EXT-X-MEDIA-SEQUENCE:7\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n#EXT-X-BITRATE:500\n#EXT-X-MAP:URI=\"m.mp4\"",
                at: position % (body.count + 1))
            var text = (header + body).joined(separator: "\n").replacingOccurrences(of: "\n", with: separator)
            if shape & 4 != 0 { text = "\u{FEFF}" + text.replacingOccurrences(of: "seg2", with: "  seg2\t") }
            Self.checkSame(Array(text.utf8))
        }
    }

    @Test("a parsed playlist keeps its segments compactly, and a change turns them into values")
    func changes() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000+01:00
            #EXTINF:6,
            a.ts
            #EXTINF:6,one
            b.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            c.ts

            """
        var segments = try #require(PlaylistParser.parse(text).playlist.media?.segments)
        #expect(Self.isCompact(segments))
        #expect(segments.map(\.uri) == ["a.ts", "b.ts", "c.ts"])
        #expect(segments.map(\.title) == [nil, "one", nil])
        #expect(segments[2].discontinuitySequence == 1 && segments[2].mediaSequence == 2)
        #expect(segments[1].date?.iso8601 == "2026-01-01T00:00:06.000+01:00")
        #expect(segments[0].programDateTime != nil && segments[1].programDateTime == nil)
        let original = Array(segments)

        segments[1].uri = "changed.ts"
        #expect(!Self.isCompact(segments))
        #expect(segments.map(\.uri) == ["a.ts", "changed.ts", "c.ts"])
        segments.append(original[0])
        segments.remove(at: 0)
        #expect(segments.map(\.uri) == ["changed.ts", "c.ts", "a.ts"])
        let joined = MediaSegments(original) + [original[2]]
        #expect(joined.count == 4 && joined.last == original[2])

        let encoded = try JSONEncoder().encode(try #require(PlaylistParser.parse(text).playlist.media?.segments))
        #expect(try JSONDecoder().decode(MediaSegments.self, from: encoded) == MediaSegments(original))
        #expect(try JSONDecoder().decode([MediaSegment].self, from: encoded) == original)
    }

    @Test("lines: seeded random edits behave as on an array, and unchanged lines stay verbatim")
    func lineEdits() async {
        let text = Array(
            SyntheticPlaylist.vod(segments: 30, interstitialEvery: 7).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        // Half the operations remove a line, so changed lines are dropped often enough for the
        // collection to drop the values no line uses any more.
        let operations = zip(Gen.int(in: 0...6), Gen.int(in: 0...10_000)).array(of: 1...300)
        await propertyCheck(count: 60, input: operations) { operations in
            var document = PlaylistParser.parse(text).document
            var model = Array(document.lines)
            for (kind, number) in operations {
                let index = model.isEmpty ? 0 : number % model.count
                switch kind {
                case 0, 4, 5:
                    if !model.isEmpty {
                        document.lines.remove(at: index)
                        model.remove(at: index)
                    }
                case 1:
                    let line = Line(.comment(" added \(number)"), terminator: .lf)
                    document.lines.insert(line, at: index)
                    model.insert(line, at: index)
                case 6:
                    let picked = { (line: Line) in line.content.tag?.name == .extinf || line.terminator == .lf }
                    if number % 10 == 0 {
                        document.lines.removeAll(where: picked)
                        model.removeAll(where: picked)
                    }
                case 2 where !model.isEmpty:
                    document.lines[index].terminator = .lf
                    model[index].terminator = .lf
                default:
                    if !model.isEmpty {
                        document.lines[index].content = .uri("u\(number)")
                        model[index].content = .uri("u\(number)")
                    }
                }
            }
            #expect(Array(document.lines) == model)
            var expected = PlaylistDocument(file: document.file)
            expected.lines = PlaylistLines(model)
            // Verbatim lines of `model` refer to the source, which the hand-made document lacks.
            let written = document.write()
            var reference: [UInt8] = []
            for line in model {
                if let range = line.sourceRange {
                    reference += text[range]
                } else {
                    reference += Array(line.content.text.utf8)
                }
                reference += line.terminator.bytes
            }
            #expect(written == reference)
            #expect(expected.lines == document.lines)
        }
    }

    @Test("dates keep the UTC offset and precision of their program date-time as these change")
    func dateAnchors() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            before.ts
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:06.000+01:00
            #EXTINF:6,
            a.ts
            #EXTINF:6,
            b.ts
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:18.0Z
            #EXTINF:6,
            c.ts
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:24.0Z
            #EXTINF:6,
            d.ts
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T05:30:30.00+05:30
            #EXTINF:6,
            e.ts
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T05:30:36.0+05:30
            #EXTINF:6,
            f.ts

            """
        let bytes = Array(text.utf8)
        Self.checkSame(bytes)
        let segments = try #require(PlaylistParser.parse(bytes).playlist.media?.segments)
        #expect(
            segments.map { $0.date?.iso8601 } == [
                "2026-01-01T00:00:00.000+01:00", "2026-01-01T00:00:06.000+01:00", "2026-01-01T00:00:12.000+01:00",
                "2026-01-01T00:00:18.000Z", "2026-01-01T00:00:24.000Z", "2026-01-01T05:30:30.000+05:30",
                "2026-01-01T05:30:36.000+05:30",
            ])
        #expect(segments.map { $0.date?.utcOffsetSeconds } == [3600, 3600, 3600, 0, 0, 19_800, 19_800])
        #expect(segments.map { $0.date?.fractionDigits } == [3, 3, 3, 1, 1, 2, 1])
        #expect(segments.map { $0.programDateTime?.fractionDigits } == [nil, 3, nil, 1, 1, 2, 1])
        #expect(segments.map { $0.programDateTime == nil } == [true, false, true, false, false, false, false])
        guard case .compact(let compact) = segments.storage else {
            Issue.record("the segments are not compact")
            return
        }
        #expect(compact.anchors.count == 4, "one anchor per change of offset or precision")
    }

    @Test("a line longer than a range entry holds is kept as a value")
    func longLine() {
        let source = Array("#EXTM3U\n".utf8)
        var lines = PlaylistLines(source: source, capacity: 2, keepsRanges: true)
        lines.appendParsed(0..<7, terminator: .lf, content: .comment("never read"))
        let long = 0..<(PlaylistLines.Entry.maximumLength + 1)
        lines.appendParsed(long, terminator: .crlf, content: .uri("kept as a value"))
        #expect(lines[0].content.tag?.name == "EXTM3U", "a parsed line is read again from the source")
        #expect(lines[0].sourceRange == 0..<7)
        #expect(lines[1].content == .uri("kept as a value"))
        #expect(lines[1].sourceRange == long && lines[1].terminator == .crlf)
        #expect(lines.terminator(at: 1) == .crlf && lines.isVerbatim(at: 1))
    }

    @Test("a line takes 8 bytes, a segment one record, and no string is kept per URI or title")
    func footprint() throws {
        #expect(MemoryLayout<PlaylistLines.Entry>.stride == 8)
        #expect(MemoryLayout<CompactSegments.Record>.stride <= 56)
        let bytes = Array(SyntheticPlaylist.vod(segments: 10_000, interstitialEvery: 100).utf8)
        let segments = try #require(PlaylistParser.parse(bytes).playlist.media?.segments)
        guard case .compact(let compact) = segments.storage else {
            Issue.record("the segments are not compact")
            return
        }
        #expect(compact.records.count == 10_000)
        #expect(compact.strings.isEmpty)
        #expect(compact.contexts.count == 1)
        #expect(compact.anchors.count == 1, "every date has the same UTC offset and precision")
    }
}
