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

/// A viewer who joins anywhere around a break gets a video variant and a demuxed audio rendition
/// whose matching content has matching Discontinuity Sequence Numbers (RFC 8216 §6.2.4: "Matching
/// content in Variant Streams MUST have matching Discontinuity Sequence Numbers"), also when the
/// audio is first asked for after the break (`LiveTimeline`). hls.js holds an audio fragment until
/// the main stream has a timestamp for its discontinuity number, so a mismatch stops playback
/// without an error (the stitched live E2E on CI, joining inside a break).
@Suite("Live stitching: a viewer who joins inside a break (R28)")
struct LiveJoinTests {
    typealias R = LiveSpliceTests.Rendition

    /// One rendition's stream as the viewer sees it: each ad segment by its URI's last component
    /// (`ad1-2.m4s`) and each primary segment by its date, with its Discontinuity Sequence Number.
    struct Stream {
        var ads: [String: UInt64] = [:]
        var primary: [UInt64: (date: DateTime, duration: MediaTime, dsn: UInt64)] = [:]

        mutating func add(_ stitched: StitchedPlaylist) throws {
            guard case .media(let playlist) = PlaylistParser.parse(stitched.write()).playlist else {
                throw StitchingError(.primaryKind, at: "test", "not media")
            }
            for segment in playlist.segments {
                if segment.uri.hasPrefix("https://ads.example.com/slate-/") {
                    continue  // repeated: its repetitions are told apart by the ads around them
                } else if segment.uri.hasPrefix("https://") {
                    let key = String(segment.uri.split(separator: "/").last ?? "")
                    #expect(ads[key] == nil || ads[key] == segment.discontinuitySequence, "\(key) renumbered")
                    ads[key] = segment.discontinuitySequence
                } else if let date = segment.date {
                    primary[segment.mediaSequence] = (date, segment.duration, segment.discontinuitySequence)
                }
            }
        }
    }

    /// Audio boundaries' offset before video's (seconds).
    static let leads: [Double] = [0, 0.004, 0.5, 1.0, 1.99]

    @Test(
        "video and audio give matching content the same Discontinuity Sequence Number, wherever the viewer joins",
        arguments: leads, [(slate: false, audioLater: 0), (slate: true, audioLater: 0), (slate: false, audioLater: 14)])
    func matchingDiscontinuities(audioLead: Double, form: (slate: Bool, audioLater: Int)) throws {
        let video = R(name: "v", duration: LiveSpliceTests.video, start: LiveSpliceTests.origin)
        let audio = R(
            name: "a", duration: LiveSpliceTests.audio, start: LiveSpliceTests.origin - MediaTime(seconds: audioLead))
        // The demo's shape: a 10 s break of two ads (3 and 2 segments); with a slate, a 16 s break.
        let start = video.date(100)
        let duration = MediaTime(seconds: form.slate ? 16 : 10)
        func item(_ rendition: R) -> LiveBreak {
            LiveBreak(
                id: "b", start: start, duration: duration,
                pod: [
                    LiveSpliceTests.ad("ad1-", rendition.duration, count: 3),
                    LiveSpliceTests.ad("ad2-", rendition.duration, count: 2),
                ])
        }
        func slate(_ rendition: R) -> StitchAd? {
            form.slate ? LiveSpliceTests.ad("slate-", rendition.duration, count: 1) : nil
        }
        // Every join from a window wholly before the break to one after it; the viewer reloads both
        // playlists (video first, as players do) and the server aligns each new stitcher to the
        // session's last timeline.
        for join in 90...108 {
            var videoStitcher = LiveStitcher(slate: slate(video))
            var audioStitcher = LiveStitcher(slate: slate(audio))
            var videoStream = Stream()
            var audioStream = Stream()
            var session: LiveTimeline?
            for reload in 0..<(12 + form.audioLater) {
                let window = join + reload
                try videoStream.add(
                    videoStitcher.stitch(
                        video.window(first: window, size: 6), breaks: [item(video)], aligningTo: session))
                session = videoStitcher.timeline
                guard reload >= form.audioLater else { continue }
                try audioStream.add(
                    audioStitcher.stitch(
                        audio.window(first: audio.sequence(at: video.date(window)), size: 6), breaks: [item(audio)],
                        aligningTo: session))
                session = audioStitcher.timeline
            }
            let context = "audio \(audioLead) s ahead, joined at video segment \(join)"
            for (key, number) in videoStream.ads {
                guard let audioNumber = audioStream.ads[key] else { continue }
                #expect(number == audioNumber, "\(context): \(key) video \(number), audio \(audioNumber)")
            }
            // A primary video segment and the audio segment whose midpoint it holds.
            var compared = 0
            for segment in videoStream.primary.values {
                guard
                    let match = audioStream.primary.values.first(where: {
                        let middle = $0.date + MediaTime(nanoseconds: $0.duration.nanoseconds / 2)
                        return segment.date <= middle && middle < segment.date + segment.duration
                    })
                else { continue }
                compared += 1
                #expect(
                    segment.dsn == match.dsn,
                    "\(context): primary at \(segment.date.iso8601) video \(segment.dsn), audio \(match.dsn)")
            }
            #expect(compared >= 6, "\(context): \(compared) primary segments compared")
        }
    }
}
