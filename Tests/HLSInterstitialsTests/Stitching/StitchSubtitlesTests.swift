import HLSInterstitials
import HLSPlaylist
import Testing

/// Subtitle renditions in the stitched form (issue 45, profile R28): while an ad plays, a subtitle
/// playlist lists one empty WebVTT segment for each of the ad's video segments, so that its
/// segments, durations, discontinuities and sequence numbers are the video's, VOD and live.
@Suite("Stitched subtitles (R28)")
struct StitchSubtitlesTests {
    typealias S = StitchingSamples
    typealias L = LiveStitcherTests

    static let document = "https://origin.example.com/stitched/empty.vtt"

    /// `ad` as the subtitle playlist stitches it.
    static func blank(_ ad: StitchAd) -> StitchAd { StitchSubtitles.blank(mirroring: ad, documentURL: document) }

    /// A subtitle playlist of the VOD samples' shape: five 6 s WebVTT segments, the same dates and
    /// date ranges as the video.
    static func subtitles(_ dateRanges: [String]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for line in dateRanges { text += line + "\n" }
        for index in 0..<5 { text += "#EXTINF:6.000,\nsub\(index).vtt\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// A live subtitle window of the live samples' shape (6 s segments from `first`).
    static func subtitleWindow(first: Int, size: Int = 4) -> ParseResult {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for sequence in first..<(first + size) {
            text += "#EXT-X-PROGRAM-DATE-TIME:\(L.date(sequence).iso8601)\n#EXTINF:6.000,\nsub\(sequence).vtt\n"
        }
        return PlaylistParser.parse(text, options: ParseOptions(file: "subtitles.m3u8"))
    }

    /// What a player matches across renditions: each segment's duration and discontinuity sequence,
    /// where discontinuities are, and whether it is an ad's.
    static func shape(_ playlist: MediaPlaylist) -> [String] {
        playlist.segments.map { segment in
            let ad = segment.uri.hasPrefix("https://")
            return "\(segment.mediaSequence):\(segment.duration)/\(segment.discontinuitySequence)"
                + (segment.discontinuity ? "|" : "") + (ad ? "ad" : "")
        }
    }

    static func media(_ bytes: [UInt8]) throws -> MediaPlaylist {
        guard case .media(let playlist) = PlaylistParser.parse(bytes).playlist else {
            throw StitchingError(.primaryKind, at: "test", "not a media playlist")
        }
        return playlist
    }

    @Test("the empty WebVTT document: the header, an X-TIMESTAMP-MAP, no cue")
    func emptyDocument() {
        #expect(
            StitchSubtitles.emptyDocument
                == Array("WEBVTT\nX-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:0\n\n".utf8))
        #expect(StitchSubtitles.mediaType == "text/vtt")
    }

    @Test("an ad mirrored for subtitles: its segments' durations and discontinuities, the document's URL")
    func mirror() {
        let blank = Self.blank(S.b)
        #expect(blank.url == Self.document)
        #expect(blank.playlist.segments.map(\.duration) == S.b.playlist.segments.map(\.duration))
        #expect(blank.playlist.segments.allSatisfy { $0.uri == Self.document && $0.map == nil && $0.keys.isEmpty })
        #expect(blank.playlist.hasEndList)
    }

    /// The event IDs of `dateRanges`, and the primary with them stitched with ads `a` and `b` each:
    /// the video the subtitle playlists are compared with.
    static func video(_ dateRanges: [String]) throws -> (ids: [String], video: StitchedPlaylist) {
        let ids = dateRanges.map { line in
            String(line[line.range(of: "ID=\"")!.upperBound...].prefix { $0 != "\"" })
        }
        let video = try VODStitcher.stitch(
            PlaylistParser.parse(S.primary(dateRanges)),
            pods: Dictionary(uniqueKeysWithValues: ids.map { ($0, [S.a, S.b]) }))
        return (ids, video)
    }

    @Test(
        "VOD: the subtitle playlist gets the video's segments, durations and discontinuities",
        arguments: [
            [S.event("m", at: 12, ",X-RESUME-OFFSET=0")], [S.event("m", at: 6)],
            [S.event("pre", at: 0, ",CUE=\"PRE\",X-RESUME-OFFSET=0"), S.event("post", at: 0, ",CUE=\"POST\"")],
            [S.event("m", at: 12, ",X-RESUME-OFFSET=0,X-PLAYOUT-LIMIT=12")],
        ])
    func vod(dateRanges: [String]) throws {
        let (ids, video) = try Self.video(dateRanges)
        let subtitles = try VODStitcher.stitch(
            PlaylistParser.parse(Self.subtitles(dateRanges)),
            pods: Dictionary(uniqueKeysWithValues: ids.map { ($0, [Self.blank(S.a), Self.blank(S.b)]) }))
        let text = String(decoding: subtitles.write(), as: UTF8.self)
        #expect(S.problems(text).isEmpty, "\(S.problems(text))\n\(text)")
        let videoPlaylist = try Self.media(video.write())
        let subtitlePlaylist = try Self.media(subtitles.write())
        #expect(Self.shape(subtitlePlaylist) == Self.shape(videoPlaylist), "\(text)")
        #expect(subtitlePlaylist.duration == videoPlaylist.duration)
        // While the ads play: the empty document, nothing else.
        let ads = subtitlePlaylist.segments.filter { $0.uri.hasPrefix("https://") }
        #expect(!ads.isEmpty)
        #expect(ads.allSatisfy { $0.uri == Self.document })
        #expect(!text.contains("EXT-X-MAP"), "no map is written into a WebVTT playlist")
    }

    @Test(
        "live: ten reloads of the subtitle window get the video's sequence numbers, durations and discontinuities",
        arguments: [
            (seconds: 18, pod: [S.a]), (seconds: 12, pod: [S.a]), (seconds: 18, pod: [S.b, S.b]),
        ])
    func live(seconds: Int, pod: [StitchAd]) throws {
        var video = LiveStitcher(slate: L.slate)
        var subtitles = LiveStitcher(slate: Self.blank(L.slate))
        let item = { (pod: [StitchAd]) in
            LiveBreak(id: "b", start: L.date(103), duration: MediaTime(seconds: seconds), pod: pod)
        }
        var seen: [UInt64: String] = [:]
        var adSegments = 0
        for reload in 0..<10 {
            let videoWindow = try Self.media(
                try video.stitch(L.window(first: 100 + reload), breaks: [item(pod)]).write())
            let stitched = try subtitles.stitch(
                Self.subtitleWindow(first: 100 + reload), breaks: [item(pod.map(Self.blank))])
            let text = String(decoding: stitched.write(), as: UTF8.self)
            #expect(S.problems(text).isEmpty, "reload \(reload): \(S.problems(text))\n\(text)")
            let window = try Self.media(stitched.write())
            #expect(window.mediaSequence == videoWindow.mediaSequence, "reload \(reload)")
            #expect(window.discontinuitySequence == videoWindow.discontinuitySequence, "reload \(reload)")
            #expect(Self.shape(window) == Self.shape(videoWindow), "reload \(reload)\n\(text)")
            for segment in window.segments {
                let entry = "\(segment.uri)/\(segment.discontinuitySequence)"
                if let earlier = seen[segment.mediaSequence] {
                    #expect(earlier == entry, "reload \(reload): \(segment.mediaSequence) changed")
                }
                seen[segment.mediaSequence] = entry
            }
            adSegments = max(adSegments, window.segments.count { $0.uri == Self.document })
        }
        #expect(adSegments > 0, "the reloads go through the break")
    }

    // MARK: fMP4 subtitles (EXT-X-MAP)

    /// The primary subtitle rendition's map, its URI absolute (as the server gives it).
    static let subtitleMap: MediaInitializationSection = {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MAP:URI=\"https://origin.example.com/v/subs/init.mp4\"\n"
        guard case .media(let playlist) = PlaylistParser.parse(text + "#EXTINF:6,\nsub0.m4s\n").playlist,
            let map = playlist.segments.first?.map
        else { fatalError("no map") }
        return map
    }()

    /// `ad` as an fMP4 subtitle playlist stitches it, at `timescale`: each segment's URL names its span.
    static func blankFMP4(_ ad: StitchAd, timescale: UInt32 = 1000) -> StitchAd {
        StitchSubtitles.blank(mirroring: ad, map: subtitleMap, timescale: timescale) { span in
            "https://origin.example.com/stitched/empty.m4s?start=\(span.start)&duration=\(span.duration)&n=\(span.index)"
        }
    }

    /// A subtitle playlist of the VOD samples' shape in fMP4: five 6 s segments after an EXT-X-MAP.
    static func fMP4Subtitles(_ dateRanges: [String]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for line in dateRanges { text += line + "\n" }
        for index in 0..<5 { text += "#EXTINF:6.000,\nsub\(index).m4s\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// Ads' segment durations, a timescale, and the spans (start, duration) their blanks get.
    static let spanCases: [(durations: [String], timescale: UInt32, spans: [[UInt64]])] = [
        (["5.000", "5.000", "5.000"], 1000, [[0, 5000], [5000, 5000], [10000, 5000]]),
        (["2.005333", "2.005333", "2.005334"], 1000, [[0, 2005], [2005, 2006], [4011, 2005]]),
        (["2.005333", "2.005333"], 90000, [[0, 180480], [180480, 180480]]),
        (["4.000"], 48000, [[0, 192000]]),
    ]

    @Test(
        "an ad mirrored for fMP4 subtitles: the map, and spans that follow one another in the timescale's ticks",
        arguments: spanCases)
    func mirrorFMP4(durations: [String], timescale: UInt32, spans: [[UInt64]]) throws {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:5\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-MAP:URI=\"init.mp4\"\n"
        for (index, duration) in durations.enumerated() { text += "#EXTINF:\(duration),\nad\(index).m4s\n" }
        let ad = StitchAd(
            playlist: try Self.media(Array((text + "#EXT-X-ENDLIST\n").utf8)),
            url: "https://ads.example.com/x/main.m3u8")
        var seen: [StitchSubtitles.FragmentSpan] = []
        let blank = StitchSubtitles.blank(mirroring: ad, map: Self.subtitleMap, timescale: timescale) { span in
            seen.append(span)
            return "https://origin.example.com/stitched/empty.m4s?n=\(span.index)"
        }
        #expect(seen.map { [$0.start, $0.duration] } == spans)
        #expect(seen.map(\.index) == Array(0..<durations.count))
        #expect(blank.playlist.segments.map(\.duration) == ad.playlist.segments.map(\.duration))
        #expect(blank.playlist.segments.allSatisfy { $0.map == Self.subtitleMap && $0.keys.isEmpty })
        #expect(blank.url == "https://origin.example.com/stitched/empty.m4s?n=0")
        try VODStitcher.check(blank, eventID: "e", position: 0, fMP4: true)
    }

    @Test(
        "VOD, fMP4 subtitles: the video's segments, durations and discontinuities; the map before the ads and again after",
        arguments: [
            [S.event("m", at: 12, ",X-RESUME-OFFSET=0")], [S.event("m", at: 6)],
            [S.event("pre", at: 0, ",CUE=\"PRE\",X-RESUME-OFFSET=0"), S.event("post", at: 0, ",CUE=\"POST\"")],
        ])
    func vodFMP4(dateRanges: [String]) throws {
        let (ids, video) = try Self.video(dateRanges)
        let subtitles = try VODStitcher.stitch(
            PlaylistParser.parse(Self.fMP4Subtitles(dateRanges)),
            pods: Dictionary(uniqueKeysWithValues: ids.map { ($0, [Self.blankFMP4(S.a), Self.blankFMP4(S.b)]) }))
        let bytes = subtitles.write()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(S.problems(text).isEmpty, "\(S.problems(text))\n\(text)")
        // Round trip: what is written parses back and writes the same bytes.
        #expect(PlaylistParser.parse(bytes).document.write() == bytes)
        let videoPlaylist = try Self.media(video.write())
        let subtitlePlaylist = try Self.media(bytes)
        #expect(Self.shape(subtitlePlaylist) == Self.shape(videoPlaylist), "\(text)")
        let ads = subtitlePlaylist.segments.filter { $0.uri.contains("/stitched/empty.m4s") }
        #expect(ads.count == ids.count * 5)
        #expect(ads.allSatisfy { $0.map?.uri == Self.subtitleMap.uri }, "\(text)")
        // The primary's own segments after the ads restate its map.
        #expect(
            subtitlePlaylist.segments.filter { !$0.uri.contains("/stitched/") }.allSatisfy { $0.map?.uri == "init.mp4" }
        )
        #expect(text.contains("#EXT-X-MAP:URI=\"https://origin.example.com/v/subs/init.mp4\""))
    }

    @Test("live, fMP4 subtitles: ten reloads keep the video's sequence numbers, durations and discontinuities")
    func liveFMP4() throws {
        var video = LiveStitcher(slate: L.slate)
        var subtitles = LiveStitcher(slate: Self.blankFMP4(L.slate))
        let item = { (pod: [StitchAd]) in
            LiveBreak(id: "b", start: L.date(103), duration: MediaTime(seconds: 18), pod: pod)
        }
        var adSegments = 0
        for reload in 0..<10 {
            let videoWindow = try Self.media(
                try video.stitch(L.window(first: 100 + reload), breaks: [item([S.a])]).write())
            var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(100 + reload)\n"
            text += "#EXT-X-MAP:URI=\"init.mp4\"\n"
            for sequence in (100 + reload)..<(104 + reload) {
                text += "#EXT-X-PROGRAM-DATE-TIME:\(L.date(sequence).iso8601)\n#EXTINF:6.000,\nsub\(sequence).m4s\n"
            }
            let stitched = try subtitles.stitch(
                PlaylistParser.parse(text, options: ParseOptions(file: "subtitles.m3u8")),
                breaks: [item([Self.blankFMP4(S.a)])])
            let written = String(decoding: stitched.write(), as: UTF8.self)
            #expect(S.problems(written).isEmpty, "reload \(reload): \(S.problems(written))\n\(written)")
            let window = try Self.media(stitched.write())
            #expect(window.mediaSequence == videoWindow.mediaSequence, "reload \(reload)")
            #expect(window.discontinuitySequence == videoWindow.discontinuitySequence, "reload \(reload)")
            #expect(Self.shape(window) == Self.shape(videoWindow), "reload \(reload)\n\(written)")
            #expect(window.segments.allSatisfy { $0.map != nil }, "reload \(reload)\n\(written)")
            adSegments = max(adSegments, window.segments.count { $0.uri.contains("/stitched/empty.m4s") })
        }
        #expect(adSegments > 0, "the reloads go through the break")
    }
}
