import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

/// Builders of small playlists for the rule tests.
enum Sample {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The attributes of a valid interstitial at 10 s, to which a test adds or replaces some.
    static let interstitial =
        "ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\",X-ASSET-URI=\"https://ads.example.com/ad/main.m3u8?_HLS_interstitial_id=ad\""

    /// A VOD media playlist of five 6 s segments from 2026-01-01T00:00:00Z with these date-range lines.
    static func media(_ dateRanges: [String], programDateTime: Bool = true, endList: Bool = true) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:0\n"
        if programDateTime { text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n" }
        for line in dateRanges { text += "#EXT-X-DATERANGE:" + line + "\n" }
        for index in 0..<5 { text += "#EXTINF:6.000,\nseg\(index).ts\n" }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// The parser's and the validator's diagnostics of a playlist.
    static func validate(_ text: String) -> [Diagnostic] {
        InterstitialValidator.validate(PlaylistParser.parse(text, options: ParseOptions(file: "test.m3u8")))
    }

    static func parse(_ text: String) -> ParseResult {
        PlaylistParser.parse(text, options: ParseOptions(file: "test.m3u8"))
    }

    static func mediaPlaylist(_ text: String) -> MediaPlaylist {
        guard case .media(let playlist) = parse(text).playlist else { fatalError("not a media playlist") }
        return playlist
    }
}
