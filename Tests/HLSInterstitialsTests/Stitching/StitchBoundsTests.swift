import HLSInterstitials
import HLSPlaylist
import Testing

/// Numbers an origin or an ad server controls, at their extremes: a clear refusal or a bounded
/// answer, never a trap.
@Suite("Stitching and compatibility at extreme numbers")
struct StitchBoundsTests {
    typealias R = LiveSpliceTests.Rendition

    /// A live window of 2 s segments from `first` with the given sequence numbers.
    static func window(mediaSequence: UInt64, discontinuitySequence: UInt64) -> ParseResult {
        let video = R(name: "v", duration: LiveSpliceTests.video, start: LiveSpliceTests.origin)
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)\n"
        text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)\n#EXT-X-MAP:URI=\"init.mp4\"\n"
        for index in 0..<6 {
            if index == 3 { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXT-X-PROGRAM-DATE-TIME:\(video.date(100 + index).iso8601)\n#EXTINF:2,\nv\(index).m4s\n"
        }
        return PlaylistParser.parse(text, options: ParseOptions(file: "live.m3u8"))
    }

    @Test(
        "a live window whose sequence numbers are near 2^64, or a sibling timeline at the ends of Int64, is refused or stitched, never a trap",
        arguments: [(UInt64.max, 0), (0, UInt64.max), (UInt64.max - 3, UInt64.max - 1), (1 << 63, 1 << 63)]
            as [(UInt64, UInt64)])
    func hugeSequenceNumbers(mediaSequence: UInt64, discontinuitySequence: UInt64) {
        let video = R(name: "v", duration: LiveSpliceTests.video, start: LiveSpliceTests.origin)
        let item = LiveBreak(
            id: "b", start: video.date(101), duration: MediaTime(seconds: 4),
            pod: [LiveSpliceTests.ad("ad-", LiveSpliceTests.video, count: 2)])
        var stitcher = LiveStitcher()
        let sibling = LiveTimeline(entries: [
            .init(date: video.date(104), duration: LiveSpliceTests.video, discontinuitySequence: Int64.max)
        ])
        let low = LiveTimeline(entries: [
            .init(date: video.date(104), duration: LiveSpliceTests.video, discontinuitySequence: Int64.min)
        ])
        for aligned in [nil, sibling, low] {
            do {
                _ = try stitcher.stitch(
                    Self.window(mediaSequence: mediaSequence, discontinuitySequence: discontinuitySequence),
                    breaks: [item], aligningTo: aligned)
            } catch {
                #expect(error.code == .primaryUnsupported, "\(error)")
            }
        }
    }

    @Test(
        "frame rates at the extremes of a Double are a mismatch, never a trap (the parser refuses a FRAME-RATE too large to read)",
        arguments: [Double.infinity, -Double.infinity, Double.nan, 1e300, -1e300, Double.greatestFiniteMagnitude])
    func extremeFrameRate(_ rate: Double) {
        #expect(!StitchVariantChooser.frameRatesMatch(30, rate))
        #expect(!StitchVariantChooser.frameRatesMatch(rate, 30))
    }

    @Test("a FRAME-RATE too large to read is an attribute-type error, not a variant")
    func unreadableFrameRate() {
        let result = PlaylistParser.parse(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,FRAME-RATE=1\(String(repeating: "0", count: 24))\nv.m3u8\n")
        #expect(result.diagnostics.contains { $0.rule.rawValue == "attribute-type" })
    }
}
