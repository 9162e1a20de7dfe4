import HLSInterstitials
import HLSPlaylist
import Testing

/// Primaries and ads for the stitching tests: a 30 s VOD primary of five 6 s segments dated from
/// 2026-01-01T00:00:00Z, fMP4 or MPEG-TS, and ads of 5 s and 4 s segments on https://ads.example.com.
enum StitchingSamples {
    static let start = "2026-01-01T00:00:"

    /// An interstitial date range at `second` of the primary, with more attributes.
    static func event(_ id: String, at second: Int, _ more: String = "") -> String {
        let seconds = second < 10 ? "0\(second)" : "\(second)"
        return
            "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(start)\(seconds).000Z\",X-ASSET-URI=\"https://ads.example.com/\(id).m3u8\"\(more)"
    }

    /// The primary with these date-range lines after the header.
    static func primary(_ dateRanges: [String], fMP4: Bool = true, segments: Int = 5) -> String {
        var text =
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        if fMP4 { text += "#EXT-X-MAP:URI=\"init.mp4\"\n" }
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for line in dateRanges { text += line + "\n" }
        for index in 0..<segments { text += "#EXTINF:6.000,\nseg\(index).\(fMP4 ? "m4s" : "ts")\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// An ad of `count` segments of `seconds` each at https://ads.example.com/NAME/main.m3u8.
    static func ad(_ name: String, count: Int, seconds: Int, fMP4: Bool = true, endList: Bool = true) -> StitchAd {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:\(seconds)\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        if fMP4 { text += "#EXT-X-MAP:URI=\"init.mp4\"\n" }
        for index in 0..<count { text += "#EXTINF:\(seconds).000,\n\(name)\(index).\(fMP4 ? "m4s" : "ts")\n" }
        if endList { text += "#EXT-X-ENDLIST\n" }
        guard case .media(let playlist) = PlaylistParser.parse(text).playlist else { fatalError("not media") }
        return StitchAd(playlist: playlist, url: "https://ads.example.com/\(name)/main.m3u8")
    }

    /// Ad `a`: 3 segments of 5 s (15 s).
    static let a = ad("a", count: 3, seconds: 5)
    /// Ad `b`: 2 segments of 4 s (8 s).
    static let b = ad("b", count: 2, seconds: 4)

    /// Ad `b` as a WebVTT playlist stitches it (``StitchSubtitles``).
    static let blankB = StitchSubtitles.blank(
        mirroring: b, documentURL: "https://origin.example.com/stitched/empty.vtt")

    /// The segment URIs of a stitched playlist, `|` marking a discontinuity, ads shortened to their
    /// file name (`a0`), primary segments to `s0`.
    static func outline(_ text: String) -> String {
        guard case .media(let playlist) = PlaylistParser.parse(text).playlist else { return "not media" }
        return playlist.segments.map { segment in
            let name = segment.uri.split(separator: "/").last.map(String.init) ?? segment.uri
            let short = name.hasPrefix("seg") ? "s" + name.dropFirst(3).prefix { $0 != "." } : name.prefix { $0 != "." }
            return (segment.discontinuity ? "| " : "") + short
        }.joined(separator: " ")
    }

    /// The errors and warnings the project's validator finds in a stitched playlist.
    static func problems(_ text: String) -> [Diagnostic] {
        InterstitialValidator.validate(PlaylistParser.parse(text, options: ParseOptions(file: "stitched.m3u8")))
            .filter { $0.severity != .note }
    }
}
