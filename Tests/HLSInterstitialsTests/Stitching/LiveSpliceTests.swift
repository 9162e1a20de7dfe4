import HLSInterstitials
import HLSPlaylist
import Testing

/// A live break stitched into a video variant and its demuxed audio rendition (issue 45, profile R28,
/// `LiveSplice`), on the demo's real shape: video segments of 2 s, AAC audio segments of 2.005333 s
/// whose boundaries drift against video's, a 30 s pod (15 video segments of 2 s, 15 audio segments of
/// 2.005333 s). Both renditions must replace the same span within one audio segment, and the audio's
/// fill must cover the span it replaces (no gap before primary audio resumes).
@Suite("Live stitching: demuxed audio splices with video (R28)")
struct LiveSpliceTests {
    static let origin = DateTime(iso8601: "2026-01-01T00:00:00.000Z")!
    static let video = MediaTime(nanoseconds: 2_000_000_000)
    static let audio = MediaTime(nanoseconds: 2_005_333_000)

    /// A rendition: its segment duration and where its segment 0 starts.
    struct Rendition {
        var name: String
        var duration: MediaTime
        var start: DateTime

        func date(_ sequence: Int) -> DateTime {
            start + MediaTime(nanoseconds: Int64(sequence) * duration.nanoseconds)
        }

        /// The live window of `size` segments from `first`, dated on every segment.
        func window(first: Int, size: Int = 8) -> ParseResult {
            var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            text += "#EXT-X-MAP:URI=\"init.mp4\"\n"
            for sequence in first..<(first + size) {
                text += "#EXT-X-PROGRAM-DATE-TIME:\(date(sequence).iso8601)\n"
                text += "#EXTINF:\(duration.seconds),\n\(name)\(sequence).m4s\n"
            }
            return PlaylistParser.parse(text, options: ParseOptions(file: "\(name).m3u8"))
        }

        /// The primary segment that holds `date`.
        func sequence(at date: DateTime) -> Int { Int((date - start).nanoseconds / duration.nanoseconds) }
    }

    /// An ad of `count` segments of `duration`.
    static func ad(_ name: String, _ duration: MediaTime, count: Int = 15) -> StitchAd {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-MAP:URI=\"init.mp4\"\n"
        for index in 0..<count { text += "#EXTINF:\(duration.seconds),\n\(name)\(index).m4s\n" }
        text += "#EXT-X-ENDLIST\n"
        guard case .media(let playlist) = PlaylistParser.parse(text).playlist else { fatalError("not media") }
        return StitchAd(playlist: playlist, url: "https://ads.example.com/\(name)/main.m3u8")
    }

    /// What a rendition's whole stitched stream does with the break: where its ads start and end
    /// (from the last primary segment before them and the first after them) and how long they play.
    struct Splice {
        var splicedIn: DateTime
        var resumed: DateTime
        var fill: MediaTime
    }

    /// Stitches the rendition reload after reload (one segment at a time) through the break and
    /// reads the splice off the whole stream.
    static func splice(_ rendition: Rendition, pod: StitchAd, slate: StitchAd?, item: LiveBreak) throws -> Splice {
        var stitcher = LiveStitcher(slate: slate)
        let first = rendition.sequence(at: item.start) - 6
        var stream: [UInt64: (uri: String, duration: MediaTime)] = [:]
        var breakItem = item
        breakItem.pod = [pod]
        for reload in 0..<30 {
            let stitched = try stitcher.stitch(rendition.window(first: first + reload), breaks: [breakItem])
            guard case .media(let playlist) = PlaylistParser.parse(stitched.write()).playlist else {
                throw StitchingError(.primaryKind, at: "test", "not media")
            }
            for segment in playlist.segments { stream[segment.mediaSequence] = (segment.uri, segment.duration) }
        }
        let ordered = stream.keys.sorted().map { stream[$0]! }
        guard let firstAd = ordered.firstIndex(where: { $0.uri.hasPrefix("https://") }),
            let lastAd = ordered.lastIndex(where: { $0.uri.hasPrefix("https://") }), firstAd > 0,
            lastAd + 1 < ordered.count
        else { throw StitchingError(.primaryKind, at: "test", "no break in the stream") }
        func primaryDate(_ uri: String) -> DateTime {
            rendition.date(Int(uri.dropFirst(rendition.name.count).prefix { $0 != "." })!)
        }
        let before = ordered[firstAd - 1]
        let fill = ordered[firstAd...lastAd].reduce(MediaTime.zero) { $0 + $1.duration }
        return Splice(
            splicedIn: primaryDate(before.uri) + before.duration, resumed: primaryDate(ordered[lastAd + 1].uri),
            fill: fill)
    }

    /// Audio boundaries' offset before video's (seconds) and the break's start (video segment).
    static let offsets: [(audioLead: Double, breakAt: Int)] = [
        (0, 100), (0.004, 100), (0.3, 101), (0.9, 137), (1.0, 100), (1.1, 100), (1.7, 250), (1.99, 100),
        (2.0, 100), (0.5, 333), (0.05, 377),
    ]

    @Test(
        "audio and video replace the same span within one audio segment and the audio leaves no gap",
        arguments: offsets, [false, true])
    func audioFollowsVideo(_ offset: (audioLead: Double, breakAt: Int), withSlate: Bool) throws {
        let videoRendition = Rendition(name: "v", duration: Self.video, start: Self.origin)
        let audioRendition = Rendition(
            name: "a", duration: Self.audio, start: Self.origin - MediaTime(seconds: offset.audioLead))
        let item = LiveBreak(
            id: "b", start: videoRendition.date(offset.breakAt), duration: MediaTime(seconds: 30), pod: [])
        let slate = { (duration: MediaTime) -> StitchAd? in
            withSlate ? Self.ad("slate", duration, count: 1) : nil
        }
        let video = try Self.splice(
            videoRendition, pod: Self.ad("adv", Self.video), slate: slate(Self.video), item: item)
        let audio = try Self.splice(
            audioRendition, pod: Self.ad("ada", Self.audio), slate: slate(Self.audio), item: item)
        let lead = "audio \(offset.audioLead) s ahead, break at \(offset.breakAt)"
        // Video splices on the break.
        #expect(video.splicedIn == item.start && video.resumed == item.end && video.fill == item.duration, "\(lead)")
        // Audio splices within one audio segment of video, both in and out.
        #expect(abs((audio.splicedIn - video.splicedIn).seconds) < Self.audio.seconds, "\(lead): in \(audio.splicedIn)")
        #expect(abs((audio.resumed - video.resumed).seconds) < Self.audio.seconds, "\(lead): out \(audio.resumed)")
        // No gap: the audio's fill lasts at least the span it replaces (1 ms for the dates' rounding).
        #expect(
            (audio.resumed - audio.splicedIn).seconds <= audio.fill.seconds + 0.001,
            "\(lead): replaces \(audio.resumed - audio.splicedIn), fills \(audio.fill)")
    }
}
