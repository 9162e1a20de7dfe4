import HLSInterstitials
import HLSPlaylist
import Testing

/// The ad variant stitched into each primary variant (profile R28): same codec families and
/// resolution; the highest bandwidth not above the primary's.
@Suite("Stitched form: the ad variant for a primary variant (R28)")
struct StitchVariantChooserTests {
    static let ad = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=640x360
        360.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720
        720low.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3500000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720
        720high.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",RESOLUTION=1280x720
        720hevc.m3u8

        """

    static func variant(_ attributes: String) -> VariantStream? {
        let text = "#EXTM3U\n#EXT-X-STREAM-INF:\(attributes)\nprimary.m3u8\n"
        return PlaylistParser.parse(text).playlist.multivariant?.variants.first
    }

    @Test(
        "each primary variant gets the ad variant that fits it",
        arguments: [
            ("BANDWIDTH=3000000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720", "720low.m3u8"),
            ("BANDWIDTH=5000000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720", "720high.m3u8"),
            ("BANDWIDTH=1000000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720", "720low.m3u8"),
            ("BANDWIDTH=900000,CODECS=\"avc1.42e01e,mp4a.40.2\",RESOLUTION=640x360", "360.m3u8"),
            ("BANDWIDTH=4000000,CODECS=\"hvc1.1.6.L93.B0,mp4a.40.2\",RESOLUTION=1280x720", "720hevc.m3u8"),
        ])
    func chooses(_ attributes: String, _ expected: String) throws {
        let ad = try #require(PlaylistParser.parse(Self.ad).playlist.multivariant)
        let primary = try #require(Self.variant(attributes))
        #expect(try StitchVariantChooser.choose(for: primary, in: ad, at: "event \"m\"").uri == expected)
    }

    @Test(
        "a variant no ad variant fits, or one without CODECS, is refused",
        arguments: [
            "BANDWIDTH=6000000,CODECS=\"avc1.640032,mp4a.40.2\",RESOLUTION=1920x1080",
            "BANDWIDTH=128000,CODECS=\"mp4a.40.2\"",
            "BANDWIDTH=2000000,RESOLUTION=1280x720",
        ])
    func refuses(_ attributes: String) throws {
        let ad = try #require(PlaylistParser.parse(Self.ad).playlist.multivariant)
        let primary = try #require(Self.variant(attributes))
        #expect {
            _ = try StitchVariantChooser.choose(for: primary, in: ad, at: "event \"m\"")
        } throws: { error in
            (error as? StitchingError)?.code == .media
        }
    }
}
