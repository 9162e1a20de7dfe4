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

    @Test(
        "VOD: the subtitle playlist gets the video's segments, durations and discontinuities",
        arguments: [
            [S.event("m", at: 12, ",X-RESUME-OFFSET=0")], [S.event("m", at: 6)],
            [S.event("pre", at: 0, ",CUE=\"PRE\",X-RESUME-OFFSET=0"), S.event("post", at: 0, ",CUE=\"POST\"")],
            [S.event("m", at: 12, ",X-RESUME-OFFSET=0,X-PLAYOUT-LIMIT=12")],
        ])
    func vod(dateRanges: [String]) throws {
        let ids = dateRanges.map { line in
            String(line[line.range(of: "ID=\"")!.upperBound...].prefix { $0 != "\"" })
        }
        let video = try VODStitcher.stitch(
            PlaylistParser.parse(S.primary(dateRanges)),
            pods: Dictionary(uniqueKeysWithValues: ids.map { ($0, [S.a, S.b]) }))
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
}
