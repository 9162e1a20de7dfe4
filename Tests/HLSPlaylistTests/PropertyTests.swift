import HLSPlaylist
import PropertyBased
import Testing

/// Generated playlists: the round-trip law, exact time, and no crash on any bytes.
@Suite("Property tests")
struct PropertyTests {
    /// Bytes drawn mostly from the playlist alphabet, with some arbitrary ones.
    static let alphabet = Array("#EXTM3U-:=,\"\n\r0123456789.@xXINFDATERANGE{$}/ \t".utf8)
    static let playlistBytes = zip(Gen.int(in: 0...(alphabet.count + 12)), Gen.uint8(in: 0...255)).array(of: 0...400)

    @Test("any bytes: parsing never crashes and writing gives the bytes back")
    func anyBytes() async {
        await propertyCheck(count: 400, input: Self.playlistBytes) { draws in
            let bytes = draws.map { $0.0 < Self.alphabet.count ? Self.alphabet[$0.0] : $0.1 }
            let result = PlaylistParser.parse(bytes)
            #expect(result.document.write() == bytes)
        }
    }

    /// One line of a generated playlist from three random numbers.
    static func line(_ kind: Int, _ a: Int, _ b: Int) -> String {
        let decimals = ["\(a % 10)", "\(a % 10).\(b % 1000)", "\(a % 10).\(String(b % 1_000_000))000", "0\(a % 7).50"]
        let decimal = decimals[b % decimals.count]
        switch kind {
        case 0, 1, 2: return "#EXTINF:\(decimal),\(b % 3 == 0 ? "title \(a)" : "")\nseg\(a).ts"
        case 3:
            let time = "T1\(a % 10):0\(b % 10):00.\(a % 1000)\(["Z", "+02:00", "-0530"][b % 3])"
            return "#EXT-X-PROGRAM-DATE-TIME:2026-0\(1 + a % 9)-1\(b % 10)\(time)"
        case 4:
            return
                "#EXT-X-DATERANGE:ID=\"d\(a % 5)\",START-DATE=\"2026-01-01T00:00:0\(b % 10).000Z\",DURATION=\(decimal),X-N=\(b % 2 == 0 ? "-" : "")\(decimal),X-H=0x\(String(a, radix: 16)),X-S=\"v\(b)\""
        case 5: return "# comment \(a)"
        case 6: return ""
        case 7: return "#EXT-X-UNKNOWN-\(a % 4):\(b)"
        case 8: return "#EXT-X-KEY:METHOD=\(a % 2 == 0 ? "NONE" : "AES-128,URI=\"k\(b)\"")"
        case 9: return "#EXT-X-BYTERANGE:\(a)\(b % 2 == 0 ? "@\(b)" : "")"
        case 10: return "#EXT-X-DISCONTINUITY"
        default: return "#EXT-X-PART:DURATION=\(decimal),URI=\"p\(a).mp4\"\(b % 2 == 0 ? ",INDEPENDENT=YES" : "")"
        }
    }

    static let lines = zip(Gen.int(in: 0...11), Gen.int(in: 0...100_000), Gen.int(in: 0...100_000)).array(of: 0...40)

    @Test("generated playlists round-trip with LF or CRLF and with or without a final newline")
    func generated() async {
        await propertyCheck(count: 300, input: Self.lines, Gen.int(in: 0...3)) { lines, shape in
            let separator = shape % 2 == 0 ? "\n" : "\r\n"
            var text = (["#EXTM3U", "#EXT-X-TARGETDURATION:10"] + lines.map { Self.line($0.0, $0.1, $0.2) })
                .joined(separator: "\n").replacingOccurrences(of: "\n", with: separator)
            if shape >= 2 { text += separator }
            let result = PlaylistParser.parse(text)
            #expect(result.document.writeString() == text)
            let segments = lines.filter { $0.0 <= 2 }.count
            #expect(result.playlist.media?.segments.count == segments)
        }
    }

    @Test("segment times are exact sums of the written decimals (R2)")
    func exactSums() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...999_999).array(of: 1...200)) { millionths in
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
            var expected: Int64 = 0
            for value in millionths {
                let fraction = String(value)
                text += "#EXTINF:1.\(String(repeating: "0", count: 6 - fraction.count))\(fraction),\nx.ts\n"
                expected += 1_000_000_000 + Int64(value) * 1000
            }
            let media = PlaylistParser.parse(text).playlist.media
            #expect(media?.duration == MediaTime(nanoseconds: expected))
        }
    }

    @Test("a canonically written tag parses back to the same tag")
    func canonicalTags() async {
        await propertyCheck(count: 300, input: Self.lines) { lines in
            for line in lines.map({ Self.line($0.0, $0.1, $0.2) }) {
                let parsed = PlaylistParser.parse("#EXTM3U\n" + line).document
                for original in parsed.lines.dropFirst() {
                    guard case .tag(let tag) = original.content else { continue }
                    let reparsed = PlaylistParser.parse("#EXTM3U\n" + tag.description).document.lines.last?.content
                    #expect(reparsed == .tag(tag), "\(tag.description)")
                }
            }
        }
    }

    @Test("MediaTime text round-trips exactly")
    func mediaTimeText() async {
        await propertyCheck(count: 500, input: Gen.int64(in: -1_000_000_000_000_000...1_000_000_000_000_000)) {
            nanoseconds in
            let time = MediaTime(nanoseconds: nanoseconds)
            #expect(MediaTime(decimal: time.description) == time)
        }
    }

    @Test("DateTime ISO-8601 text round-trips exactly")
    func dateTimeText() async {
        await propertyCheck(
            count: 500, input: Gen.int64(in: -2_000_000_000_000_000_000...4_000_000_000_000_000_000),
            Gen.int(in: -14 * 4...14 * 4)
        ) { nanoseconds, quarterHours in
            let date = DateTime(nanosecondsSinceEpoch: nanoseconds, utcOffsetSeconds: quarterHours * 900)
            let parsed = DateTime(iso8601: date.iso8601)
            #expect(parsed == date)
            #expect(parsed?.utcOffsetSeconds == date.utcOffsetSeconds)
        }
    }
}
