import HLSInterstitials
import HLSPlaylist
import Testing

/// The stitched form of VOD playlists (issue 45, profile R28), over a corpus of schedules: where the
/// ads go, what primary they replace, where the pod is cut, and that the output validates and
/// round-trips.
@Suite("VOD stitching (R28)")
struct VODStitcherTests {
    typealias S = StitchingSamples

    /// One schedule of the corpus and the stitched outline it must give.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var dateRanges: [String]
        var pods: [String: [StitchAd]]
        var outline: String
        var fMP4 = true
        var testDescription: String { name }
    }

    static let corpus: [Case] = [
        Case(
            name: "X-RESUME-OFFSET=0 at a boundary inserts the pod",
            dateRanges: [S.event("m", at: 12, ",X-RESUME-OFFSET=0")], pods: ["m": [S.a]],
            outline: "s0 s1 | a0 a1 a2 | s2 s3 s4"),
        Case(
            name: "no X-RESUME-OFFSET replaces the pod's duration (15 s from 6: s1 s2 s3 go)",
            dateRanges: [S.event("m", at: 6)], pods: ["m": [S.a]], outline: "s0 | a0 a1 a2 | s4"),
        Case(
            name: "X-PLAYOUT-LIMIT=12 cuts a pod of a (15 s) and b at 10 s: no segment ends past the limit",
            dateRanges: [S.event("m", at: 12, ",X-RESUME-OFFSET=0,X-PLAYOUT-LIMIT=12")], pods: ["m": [S.a, S.b]],
            outline: "s0 s1 | a0 a1 | s2 s3 s4"),
        Case(
            name: "a pod of two ads has a discontinuity between them",
            dateRanges: [S.event("m", at: 18, ",X-RESUME-OFFSET=0")], pods: ["m": [S.b, S.a]],
            outline: "s0 s1 s2 | b0 b1 | a0 a1 a2 | s3 s4"),
        Case(
            name: "PRE goes first and POST last",
            dateRanges: [
                S.event("pre", at: 0, ",CUE=\"PRE\",X-RESUME-OFFSET=0"), S.event("post", at: 0, ",CUE=\"POST\""),
            ],
            pods: ["pre": [S.b], "post": [S.a]], outline: "b0 b1 | s0 s1 s2 s3 s4 | a0 a1 a2"),
        Case(
            name: "a break inside a segment (9 s) plays after it",
            dateRanges: [S.event("m", at: 9, ",X-RESUME-OFFSET=0")], pods: ["m": [S.b]],
            outline: "s0 s1 | b0 b1 | s2 s3 s4"),
        Case(
            name: "an empty pod with X-RESUME-OFFSET=12 skips two segments (R7)",
            dateRanges: [S.event("m", at: 6, ",X-RESUME-OFFSET=12")], pods: ["m": []], outline: "s0 | s3 s4"),
        Case(
            name: "a negative offset replays primary",
            dateRanges: [S.event("m", at: 12, ",X-RESUME-OFFSET=-6")], pods: ["m": [S.b]],
            outline: "s0 s1 | b0 b1 | s1 s2 s3 s4"),
        Case(
            name: "events that share a start form one group; their offsets add up (R5)",
            dateRanges: [S.event("m1", at: 6, ",X-RESUME-OFFSET=0"), S.event("m2", at: 6, ",X-RESUME-OFFSET=6")],
            pods: ["m1": [S.b], "m2": [S.b]], outline: "s0 | b0 b1 | b0 b1 | s2 s3 s4"),
        Case(
            name: "MPEG-TS primary and ads",
            dateRanges: [S.event("m", at: 12, ",X-RESUME-OFFSET=0")],
            pods: ["m": [S.ad("t", count: 2, seconds: 6, fMP4: false)]], outline: "s0 s1 | t0 t1 | s2 s3 s4",
            fMP4: false),
        Case(
            name: "no events: the primary is unchanged", dateRanges: [], pods: [:], outline: "s0 s1 s2 s3 s4"),
    ]

    @Test("the corpus stitches as expected, validates clean and round-trips", arguments: corpus)
    func stitches(_ sample: Case) throws {
        let primary = PlaylistParser.parse(S.primary(sample.dateRanges, fMP4: sample.fMP4))
        let stitched = try VODStitcher.stitch(primary, pods: sample.pods)
        let text = String(decoding: stitched.write(), as: UTF8.self)
        #expect(S.outline(text) == sample.outline, "\(text)")
        #expect(S.problems(text).isEmpty, "\(S.problems(text).map(\.description))\n\(text)")
        // Round trip: the stitched playlist writes back byte for byte.
        #expect(PlaylistParser.parse(text).document.write() == stitched.write())
        #expect(!text.contains("com.apple.hls.interstitial"))
        // Each ad span lists its segments.
        let segments = PlaylistParser.parse(text).playlist.media?.segments
        for span in stitched.ads {
            let uris = span.segments.map { segments?[$0].uri ?? "" }
            #expect(uris.allSatisfy { $0.hasPrefix("https://ads.example.com/") }, "\(span)")
        }
    }

    @Test(
        "AAC segments whose EXTINF values sum to a microsecond short of the break (2.005333 s three times, then 1.984 s): the ads go at that boundary, not a segment later",
        arguments: [(8, "s0 s1 s2 s3 | b0 b1 | s4 s5 s6 s7"), (4, "s0 s1 | b0 b1 | s2 s3 s4 s5 s6 s7")])
    func audioBoundaryWithinRounding(at second: Int, outline: String) throws {
        var text =
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        text += S.event("m", at: second, ",X-RESUME-OFFSET=0") + "\n"
        for index in 0..<8 { text += "#EXTINF:\(index % 4 == 3 ? "1.984000" : "2.005333"),\nseg\(index).m4s\n" }
        text += "#EXT-X-ENDLIST\n"
        let stitched = try VODStitcher.stitch(PlaylistParser.parse(text), pods: ["m": [S.b]])
        let written = String(decoding: stitched.write(), as: UTF8.self)
        #expect(S.outline(written) == outline, "\(written)")
    }

    @Test("no events: the stitched playlist is the primary byte for byte")
    func unchangedWithoutEvents() throws {
        let text = S.primary([])
        let stitched = try VODStitcher.stitch(PlaylistParser.parse(text), pods: [:])
        #expect(String(decoding: stitched.write(), as: UTF8.self) == text)
    }

    @Test("an insert: the exact playlist, with the map restated and the date stated after the break")
    func exactInsert() throws {
        let primary = PlaylistParser.parse(S.primary([S.event("m", at: 12, ",X-RESUME-OFFSET=0")]))
        let stitched = try VODStitcher.stitch(primary, pods: ["m": [S.b]])
        #expect(
            String(decoding: stitched.write(), as: UTF8.self) == """
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-TARGETDURATION:6
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
                #EXTINF:6.000,
                seg0.m4s
                #EXTINF:6.000,
                seg1.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="https://ads.example.com/b/init.mp4"
                #EXTINF:4.000,
                https://ads.example.com/b/b0.m4s
                #EXTINF:4.000,
                https://ads.example.com/b/b1.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:12.000Z
                #EXTINF:6.000,
                seg2.m4s
                #EXTINF:6.000,
                seg3.m4s
                #EXTINF:6.000,
                seg4.m4s
                #EXT-X-ENDLIST

                """)
        #expect(stitched.ads.map(\.segments) == [2..<4])
        #expect(stitched.ads.map(\.duration) == [MediaTime(seconds: 8)])
    }

    @Test("an ad segment longer than the target duration raises EXT-X-TARGETDURATION")
    func raisesTargetDuration() throws {
        let primary = PlaylistParser.parse(S.primary([S.event("m", at: 12, ",X-RESUME-OFFSET=0")]))
        let long = S.ad("l", count: 1, seconds: 10)
        let text = String(decoding: try VODStitcher.stitch(primary, pods: ["m": [long]]).write(), as: UTF8.self)
        #expect(text.contains("#EXT-X-TARGETDURATION:10\n"))
        #expect(S.problems(text).isEmpty, "\(S.problems(text).map(\.description))")
    }

    @Test("an encrypted, byte-ranged ad: absolute key URI, explicit offsets, METHOD=NONE before clear primary")
    func keysAndByteRanges() throws {
        let adText = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
            #EXTINF:4.000,
            #EXT-X-BYTERANGE:1000@0
            e.ts
            #EXTINF:4.000,
            #EXT-X-BYTERANGE:1000
            e.ts
            #EXT-X-ENDLIST

            """
        guard case .media(let adPlaylist) = PlaylistParser.parse(adText).playlist else {
            Issue.record("not a media playlist")
            return
        }
        let ad = StitchAd(playlist: adPlaylist, url: "https://ads.example.com/e/main.m3u8")
        // A byte-ranged primary whose third segment's range follows the second's, which the break replaces.
        var primary = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        primary +=
            "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n" + S.event("m", at: 6, ",X-RESUME-OFFSET=6") + "\n"
        for index in 0..<3 { primary += "#EXTINF:6.000,\n#EXT-X-BYTERANGE:500\(index == 0 ? "@0" : "")\nmain.ts\n" }
        primary += "#EXT-X-ENDLIST\n"
        let text = String(
            decoding: try VODStitcher.stitch(PlaylistParser.parse(primary), pods: ["m": [ad]]).write(), as: UTF8.self)
        #expect(text.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"https://ads.example.com/e/key.bin\"\n"), "\(text)")
        #expect(text.contains("#EXT-X-BYTERANGE:1000@0\nhttps://ads.example.com/e/e.ts\n"), "\(text)")
        #expect(text.contains("#EXT-X-BYTERANGE:1000@1000\nhttps://ads.example.com/e/e.ts\n"), "\(text)")
        #expect(text.contains("#EXT-X-KEY:METHOD=NONE\n"), "\(text)")
        // The primary's third segment keeps the range it had: 500 bytes from 1000.
        #expect(text.contains("#EXT-X-BYTERANGE:500@1000\nmain.ts\n"), "\(text)")
        #expect(S.outline(text) == "main | e e | main", "\(text)")
        #expect(S.problems(text).isEmpty, "\(S.problems(text).map(\.description))")
    }

    @Test("other date ranges stay; interstitial ones go")
    func keepsOtherDateRanges() throws {
        let other =
            "#EXT-X-DATERANGE:ID=\"chapter\",CLASS=\"com.example.chapter\",START-DATE=\"2026-01-01T00:00:06.000Z\",DURATION=6.0"
        let primary = PlaylistParser.parse(S.primary([other, S.event("m", at: 12, ",X-RESUME-OFFSET=0")]))
        let text = String(decoding: try VODStitcher.stitch(primary, pods: ["m": [S.b]]).write(), as: UTF8.self)
        #expect(text.contains(other))
        #expect(!text.contains("ID=\"m\""))
    }

    /// A case that must be refused, and the code.
    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var primary: String
        var pods: [String: [StitchAd]]
        var code: StitchingError.Code
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(
            name: "a live primary",
            primary: S.primary([S.event("m", at: 12)]).replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: ""),
            pods: ["m": [S.b]], code: .primaryKind),
        Refusal(
            name: "a scheduled event without a pod", primary: S.primary([S.event("m", at: 12)]), pods: [:],
            code: .missingPod),
        Refusal(
            name: "an MPEG-TS ad into an fMP4 primary", primary: S.primary([S.event("m", at: 12)]),
            pods: ["m": [S.ad("t", count: 1, seconds: 6, fMP4: false)]], code: .format),
        Refusal(
            name: "an fMP4 ad into an MPEG-TS primary", primary: S.primary([S.event("m", at: 12)], fMP4: false),
            pods: ["m": [S.b]], code: .format),
        Refusal(
            name: "an ad without EXT-X-ENDLIST", primary: S.primary([S.event("m", at: 12)]),
            pods: ["m": [S.ad("x", count: 1, seconds: 4, endList: false)]], code: .adPlaylist),
        Refusal(
            name: "an ad whose URL is relative", primary: S.primary([S.event("m", at: 12)]),
            pods: ["m": [StitchAd(playlist: S.b.playlist, url: "ads/b/main.m3u8")]], code: .adURI),
    ]

    @Test("what cannot be stitched is refused with a typed error", arguments: refusals)
    func refuses(_ refusal: Refusal) {
        #expect {
            _ = try VODStitcher.stitch(PlaylistParser.parse(refusal.primary), pods: refusal.pods)
        } throws: { error in
            (error as? StitchingError)?.code == refusal.code
        }
    }

    @Test("X-PLAYOUT-LIMIT cuts the pod: the break ends at the next primary segment; a whole pod reports nothing")
    func resumptions() throws {
        let cut = try VODStitcher.stitch(
            PlaylistParser.parse(S.primary([S.event("m", at: 12, ",X-RESUME-OFFSET=0,X-PLAYOUT-LIMIT=12")])),
            pods: ["m": [S.a, S.b]])
        #expect(cut.resumptions == [StitchedPlaylist.Resumption(breakID: "m", segment: 4)])
        #expect(cut.uri(ofSegment: 4) == "seg2.m4s")
        let whole = try VODStitcher.stitch(
            PlaylistParser.parse(S.primary([S.event("m", at: 12, ",X-RESUME-OFFSET=0")])), pods: ["m": [S.a, S.b]])
        #expect(whole.resumptions.isEmpty)
        // A cut post-roll has no primary after it.
        let post = try VODStitcher.stitch(
            PlaylistParser.parse(S.primary([S.event("p", at: 0, ",CUE=\"POST\",X-PLAYOUT-LIMIT=4")])),
            pods: ["p": [S.a]])
        #expect(post.resumptions.isEmpty)
    }
}
