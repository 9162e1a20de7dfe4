import HLSInterstitials
import HLSPlaylist
import Testing

/// The stitched form of live windows (issue 45, profile R28): ten consecutive reloads through a
/// break, each checked against the others: a Media Sequence Number always names the same segment,
/// with the same discontinuity sequence number, while ads and primary leave the window.
@Suite("Live stitching (R28)")
struct LiveStitcherTests {
    typealias S = StitchingSamples

    static let origin = DateTime(iso8601: "2026-01-01T00:00:00.000Z")!

    /// The date of primary segment `sequence` (6 s segments from `origin` at 100).
    static func date(_ sequence: Int) -> DateTime { origin + MediaTime(seconds: (sequence - 100) * 6) }

    /// The live window of `size` 6 s segments from `first`.
    static func window(first: Int, size: Int = 4) -> ParseResult {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-MAP:URI=\"init.mp4\"\n"
        for sequence in first..<(first + size) {
            text += "#EXT-X-PROGRAM-DATE-TIME:\(date(sequence).iso8601)\n#EXTINF:6.000,\nseg\(sequence).m4s\n"
        }
        return PlaylistParser.parse(text, options: ParseOptions(file: "live.m3u8"))
    }

    /// The slate: one 2 s segment.
    static let slate = S.ad("slate", count: 1, seconds: 2)

    /// One schedule of the corpus: the break, how it changes from reload to reload, and what the
    /// whole stitched stream must be.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The break seen at reload `r` (0…9), or nil.
        var breakAt: @Sendable (Int) -> LiveBreak?
        /// The first reload the viewer makes.
        var firstReload = 0
        var slate: StitchAd? = LiveStitcherTests.slate
        /// `MSN:name/DSN` for each segment of the stream, in order.
        var stream: String
        var testDescription: String { name }
    }

    static func plannedBreak(seconds: Int, pod: [StitchAd] = [S.a]) -> LiveBreak {
        LiveBreak(id: "b", start: date(103), duration: MediaTime(seconds: seconds), pod: pod)
    }

    static let corpus: [Case] = [
        Case(
            name: "an 18 s break, a 15 s pod padded with slate",
            breakAt: { _ in plannedBreak(seconds: 18) },
            stream:
                "100:s100/0 101:s101/0 102:s102/0 103:a0/1 104:a1/1 105:a2/1 106:slate0/2 107:s106/3 108:s107/3 109:s108/3 110:s109/3 111:s110/3 112:s111/3 113:s112/3"
        ),
        Case(
            name: "a 12 s break cuts the 15 s pod at a segment boundary",
            breakAt: { _ in plannedBreak(seconds: 12) },
            stream:
                "100:s100/0 101:s101/0 102:s102/0 103:a0/1 104:a1/1 105:s105/2 106:s106/2 107:s107/2 108:s108/2 109:s109/2 110:s110/2 111:s111/2 112:s112/2"
        ),
        Case(
            name: "an early return at 9 s (reload 2) cuts the ads at the next segment",
            breakAt: { reload in plannedBreak(seconds: reload < 2 ? 18 : 9) },
            stream:
                "100:s100/0 101:s101/0 102:s102/0 103:a0/1 104:a1/1 105:s105/2 106:s106/2 107:s107/2 108:s108/2 109:s109/2 110:s110/2 111:s111/2 112:s112/2"
        ),
        Case(
            name: "without a slate, a short pod leaves the rest of the break empty",
            breakAt: { _ in plannedBreak(seconds: 18) }, slate: nil,
            stream:
                "100:s100/0 101:s101/0 102:s102/0 103:a0/1 104:a1/1 105:a2/1 106:s106/2 107:s107/2 108:s108/2 109:s109/2 110:s110/2 111:s111/2 112:s112/2"
        ),
        Case(
            name: "two ads of 8 s: a discontinuity between them, then 2 s of slate",
            breakAt: { _ in plannedBreak(seconds: 18, pod: [S.b, S.b]) },
            stream:
                "100:s100/0 101:s101/0 102:s102/0 103:b0/1 104:b1/1 105:b0/2 106:b1/2 107:slate0/3 108:s106/4 109:s107/4 110:s108/4 111:s109/4 112:s110/4 113:s111/4 114:s112/4"
        ),
        Case(
            // The ad's first segment, passed, counts its discontinuity (as a rendition that starts
            // with it writes it): a1 is in discontinuity 1 as for a viewer who saw the break begin.
            name: "a viewer who joins inside the break (reload 4) gets the rest of it",
            breakAt: { _ in plannedBreak(seconds: 18) }, firstReload: 4,
            stream:
                "104:a1/1 105:a2/1 106:slate0/2 107:s106/3 108:s107/3 109:s108/3 110:s109/3 111:s110/3 112:s111/3 113:s112/3"
        ),
    ]

    @Test("ten reloads through a break: sequence numbers stay consistent and the output validates", arguments: corpus)
    func tenReloads(_ sample: Case) throws {
        var stitcher = LiveStitcher(slate: sample.slate)
        var seen: [UInt64: String] = [:]
        for reload in sample.firstReload..<10 {
            let breaks = sample.breakAt(reload).map { [$0] } ?? []
            let stitched = try stitcher.stitch(Self.window(first: 100 + reload), breaks: breaks)
            let text = String(decoding: stitched.write(), as: UTF8.self)
            #expect(S.problems(text).isEmpty, "reload \(reload): \(S.problems(text).map(\.description))\n\(text)")
            #expect(PlaylistParser.parse(text).document.write() == stitched.write())
            guard case .media(let playlist) = PlaylistParser.parse(text).playlist else {
                Issue.record("reload \(reload) is not a media playlist")
                return
            }
            Self.record(playlist, reload: reload, text: text, into: &seen)
        }
        let stream = seen.keys.sorted().map { "\($0):\(seen[$0]!)" }.joined(separator: " ")
        #expect(stream == sample.stream)
    }

    /// `s100` for a primary segment, the file name without extension for an ad's.
    /// Records each segment of a reload as `name/DSN` by its Media Sequence Number, expecting a
    /// number seen in an earlier reload to name the same segment with the same number.
    static func record(_ playlist: MediaPlaylist, reload: Int, text: String, into seen: inout [UInt64: String]) {
        for segment in playlist.segments {
            let entry = "\(name(segment.uri))/\(segment.discontinuitySequence)"
            if let earlier = seen[segment.mediaSequence] {
                #expect(
                    earlier == entry, "reload \(reload): \(segment.mediaSequence) was \(earlier), now \(entry)\n\(text)"
                )
            }
            seen[segment.mediaSequence] = entry
        }
    }

    static func name(_ uri: String) -> String {
        let file = uri.split(separator: "/").last.map(String.init) ?? uri
        let stem = String(file.prefix { $0 != "." })
        return stem.hasPrefix("seg") ? "s" + stem.dropFirst(3) : stem
    }

    /// A slate of one 0.1 s segment.
    static let tinySlate: StitchAd = {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:1
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:0.100,
            tiny0.m4s
            #EXT-X-ENDLIST

            """
        guard case .media(let playlist) = PlaylistParser.parse(text).playlist else { fatalError("not media") }
        return StitchAd(playlist: playlist, url: "https://ads.example.com/tiny/main.m3u8")
    }()

    @Test(
        "a 0.1 s slate padding a 600 s break stops at the fill bound, reported once; the window validates",
        arguments: [(window: 110, step: 110), (window: 4, step: 1)])
    func slateBound(window: Int, step: Int) throws {
        let item = LiveBreak(id: "long", start: Self.date(103), duration: MediaTime(seconds: 600), pod: [S.a])
        var stitcher = LiveStitcher(slate: Self.tinySlate)
        var fill = Set<UInt64>()
        var capped: [String] = []
        var reload = 0
        while reload + window <= 110 + 4 {
            let stitched = try stitcher.stitch(Self.window(first: 100 + reload, size: window), breaks: [item])
            capped += stitched.cappedBreaks
            let text = String(decoding: stitched.write(), as: UTF8.self)
            #expect(S.problems(text).isEmpty, "reload \(reload): \(S.problems(text).prefix(3))")
            guard case .media(let playlist) = PlaylistParser.parse(text).playlist else {
                Issue.record("reload \(reload) is not a media playlist")
                return
            }
            for segment in playlist.segments where !segment.uri.hasPrefix("seg") { fill.insert(segment.mediaSequence) }
            reload += step
        }
        // Unbounded, the slate would repeat 5 850 times (a discontinuity each) after the 15 s pod.
        #expect(fill.count == LiveStitcher.defaultMaximumFillSegments, "\(fill.count) fill segments")
        #expect(capped == ["long"], "reported once per viewer and playlist")
        // A bound of its own, and a break the slate fits in, are not reported.
        var small = LiveStitcher(slate: Self.tinySlate, maximumFillSegments: 10)
        let short = LiveBreak(id: "short", start: Self.date(103), duration: MediaTime(seconds: 6), pod: [])
        #expect(try small.stitch(Self.window(first: 100, size: 8), breaks: [short]).cappedBreaks == ["short"])
        var enough = LiveStitcher(slate: Self.tinySlate, maximumFillSegments: 60)
        #expect(try enough.stitch(Self.window(first: 100, size: 8), breaks: [short]).cappedBreaks.isEmpty)
    }

    @Test(
        "a cut pod's break ends at the first primary segment after it (its breakEnd), in every window that lists it; a whole pod's does not",
        arguments: [
            // The break's duration before reload 2 and from it (an early return shortens it).
            (name: "a 12 s break cuts the 15 s pod", seconds: [12, 12], slate: nil, cut: true),
            (name: "an early return at 9 s (reload 2)", seconds: [18, 9], slate: nil, cut: true),
            (name: "an 18 s break plays the pod and slate", seconds: [18, 18], slate: slate, cut: false),
            (name: "an 18 s break without slate plays the whole pod", seconds: [18, 18], slate: nil, cut: false),
        ] as [(name: String, seconds: [Int], slate: StitchAd?, cut: Bool)])
    func resumptions(sample: (name: String, seconds: [Int], slate: StitchAd?, cut: Bool)) throws {
        var stitcher = LiveStitcher(slate: sample.slate)
        var reported = Set<String>()
        for reload in 0..<10 {
            let item = Self.plannedBreak(seconds: sample.seconds[reload < 2 ? 0 : 1])
            let stitched = try stitcher.stitch(Self.window(first: 100 + reload), breaks: [item])
            for resumption in stitched.resumptions {
                #expect(resumption.breakID == "b")
                let uri = try #require(stitched.uri(ofSegment: resumption.segment))
                reported.insert(uri)
            }
            // A window that lists the segment after the break reports it while it is listed.
            let text = String(decoding: stitched.write(), as: UTF8.self)
            let afterBreak = text.contains("seg105.m4s") && sample.cut
            #expect(stitched.resumptions.isEmpty != afterBreak, "\(sample.name), reload \(reload)\n\(text)")
        }
        #expect(reported == (sample.cut ? ["seg105.m4s"] : []), "\(sample.name)")
    }

    @Test("a resumption's segment URI can be replaced (a server's redirect), and the playlist validates")
    func replaceResumptionURI() throws {
        var stitcher = LiveStitcher()
        _ = try stitcher.stitch(Self.window(first: 102), breaks: [Self.plannedBreak(seconds: 12)])
        var stitched = try stitcher.stitch(Self.window(first: 104), breaks: [Self.plannedBreak(seconds: 12)])
        let resumption = try #require(stitched.resumptions.first)
        #expect(stitched.uri(ofSegment: resumption.segment) == "seg105.m4s")
        try stitched.replaceURI(ofSegment: resumption.segment, with: "https://origin.example.com/stitched/x/0/0.m4s")
        let text = String(decoding: stitched.write(), as: UTF8.self)
        #expect(text.contains("\nhttps://origin.example.com/stitched/x/0/0.m4s\n"))
        #expect(!text.contains("seg105.m4s"))
        #expect(S.problems(text).isEmpty, "\(S.problems(text))")
        #expect(throws: StitchingError.self) { try stitched.replaceURI(ofSegment: 99, with: "x.m4s") }
        #expect(throws: StitchingError.self) { try stitched.replaceURI(ofSegment: 0, with: "a\nb") }
    }

    /// A live window of 6 s segments from `first` whose segments 104 and 108 start a loop (as
    /// `LiveLoop` writes a loop without continuous timestamps): EXT-X-DISCONTINUITY on them, left off
    /// when one is first in the window, its EXT-X-DISCONTINUITY-SEQUENCE counting it instead.
    static func loopWindow(first: Int, size: Int = 4) -> ParseResult {
        let loop = { (sequence: Int) in sequence >= 108 ? 2 : sequence >= 104 ? 1 : 0 }
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(loop(first))\n"
        for sequence in first..<(first + size) {
            if sequence != first, sequence == 104 || sequence == 108 { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXT-X-PROGRAM-DATE-TIME:\(date(sequence).iso8601)\n#EXTINF:6.000,\nsub\(sequence).vtt\n"
        }
        return PlaylistParser.parse(text, options: ParseOptions(file: "loop.m3u8"))
    }

    @Test(
        "an origin that leaves a first segment's discontinuity off (counting it in its sequence): every number holds",
        arguments: [nil, 18, 12])
    func firstSegmentDiscontinuity(breakSeconds: Int?) throws {
        var stitcher = LiveStitcher()
        var seen: [UInt64: String] = [:]
        for reload in 0..<10 {
            let breaks =
                breakSeconds.map {
                    [LiveBreak(id: "b", start: Self.date(103), duration: MediaTime(seconds: $0), pod: [S.blankB])]
                } ?? []
            let stitched = try stitcher.stitch(Self.loopWindow(first: 100 + reload), breaks: breaks)
            let text = String(decoding: stitched.write(), as: UTF8.self)
            #expect(S.problems(text).isEmpty, "reload \(reload): \(S.problems(text))\n\(text)")
            guard case .media(let playlist) = PlaylistParser.parse(text).playlist else {
                Issue.record("reload \(reload) is not a media playlist")
                return
            }
            Self.record(playlist, reload: reload, text: text, into: &seen)
        }
    }

    @Test("a window in the middle of a break: the numbers the stream gives it")
    func windowInsideBreak() throws {
        var stitcher = LiveStitcher(slate: Self.slate)
        for reload in 0..<4 {
            _ = try stitcher.stitch(Self.window(first: 100 + reload), breaks: [Self.plannedBreak(seconds: 18)])
        }
        let text = String(
            decoding: try stitcher.stitch(Self.window(first: 104), breaks: [Self.plannedBreak(seconds: 18)]).write(),
            as: UTF8.self)
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:104\n"))
        #expect(text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        #expect(stitcher.sequenceShift == 0)
    }

    @Test("a VOD, a window without dates, and a break given up too early are refused")
    func refusals() {
        var stitcher = LiveStitcher()
        #expect(throws: StitchingError.self) {
            try stitcher.stitch(PlaylistParser.parse(S.primary([])), breaks: [])
        }
        let undated = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6.000,\nseg0.ts\n"
        #expect(throws: StitchingError.self) {
            try stitcher.stitch(PlaylistParser.parse(undated), breaks: [])
        }
        var inBreak = LiveStitcher()
        #expect(throws: Never.self) {
            try inBreak.stitch(Self.window(first: 102), breaks: [Self.plannedBreak(seconds: 18)])
        }
        #expect {
            try inBreak.stitch(Self.window(first: 103), breaks: [])
        } throws: { error in
            (error as? StitchingError)?.code == .missingPod
        }
    }
}
