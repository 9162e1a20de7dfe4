import HLSInterstitials
import HLSPlaylist
import Testing

/// The ad variant stitched into each primary variant (profile R28): same codec families,
/// resolution and frame rate; the highest bandwidth not above the primary's.
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

    /// An ad ladder of one rendition size at three frame rates and one that declares none.
    static let rates = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970
        720p2997.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2100000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000
        720p30.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=4000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=60
        720p60.m3u8

        """

    @Test(
        "an ad variant fits only at the primary's FRAME-RATE, to within 0.01",
        arguments: [
            ("FRAME-RATE=29.970", "720p2997.m3u8"),
            ("FRAME-RATE=29.97", "720p2997.m3u8"),
            ("FRAME-RATE=30", "720p30.m3u8"),
            ("FRAME-RATE=30.005", "720p30.m3u8"),
            ("FRAME-RATE=60.000", "720p60.m3u8"),
        ])
    func frameRate(_ rate: String, _ expected: String) throws {
        let ad = try #require(PlaylistParser.parse(Self.rates).playlist.multivariant)
        let primary = try #require(
            Self.variant("BANDWIDTH=5000000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720,\(rate)"))
        #expect(try StitchVariantChooser.choose(for: primary, in: ad, at: "event \"m\"").uri == expected)
    }

    @Test(
        "frame rates are compared only when both declare one; 29.97 and 30 differ",
        arguments: [
            (29.97, 30.0, false), (30.0, 29.97, false), (59.94, 60.0, false), (23.976, 23.98, true),
            (29.97, 29.970, true), (25.0, 25.009, true), (25.0, 25.011, false), (nil, 30.0, true),
            (30.0, nil, true), (nil, nil, true),
        ] as [(Double?, Double?, Bool)])
    func frameRatesMatch(_ primary: Double?, _ ad: Double?, _ fits: Bool) {
        #expect(StitchVariantChooser.frameRatesMatch(primary, ad) == fits)
    }

    @Test(
        "a primary variant without FRAME-RATE, or an ad variant without one, is not refused for it",
        arguments: [
            (
                "BANDWIDTH=5000000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720", Self.rates,
                "720p60.m3u8"
            ),
            (
                "BANDWIDTH=5000000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720,FRAME-RATE=50", Self.ad,
                "720high.m3u8"
            ),
        ])
    func missingFrameRate(_ attributes: String, _ adText: String, _ expected: String) throws {
        let ad = try #require(PlaylistParser.parse(adText).playlist.multivariant)
        let primary = try #require(Self.variant(attributes))
        #expect(try StitchVariantChooser.choose(for: primary, in: ad, at: "event \"m\"").uri == expected)
    }

    @Test(
        "no ad variant at the primary's frame rate: refused, saying which rate each ad variant has",
        arguments: ["FRAME-RATE=25", "FRAME-RATE=59.940"])
    func frameRateRefused(_ rate: String) throws {
        let ad = try #require(PlaylistParser.parse(Self.rates).playlist.multivariant)
        let primary = try #require(
            Self.variant("BANDWIDTH=5000000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720,\(rate)"))
        #expect {
            _ = try StitchVariantChooser.choose(for: primary, in: ad, at: "event \"m\"")
        } throws: { error in
            guard let error = error as? StitchingError else { return false }
            return error.code == .media && error.message.contains("primary.m3u8")
                && error.message.contains("720p2997.m3u8 has FRAME-RATE 29.97")
                && error.message.contains("720p30.m3u8 has FRAME-RATE 30")
                && error.message.contains("720p60.m3u8 has FRAME-RATE 60")
        }
    }

    @Test("a refusal says how each ad variant differs: codecs, resolution")
    func refusalSaysWhy() throws {
        let ad = try #require(PlaylistParser.parse(Self.ad).playlist.multivariant)
        let primary = try #require(
            Self.variant("BANDWIDTH=6000000,CODECS=\"avc1.640032,mp4a.40.2\",RESOLUTION=1920x1080"))
        do throws(StitchingError) {
            _ = try StitchVariantChooser.choose(for: primary, in: ad, at: "event \"m\"")
            Issue.record("a 1080p variant was given a 720p ad")
        } catch {
            #expect(error.message.contains("(CODECS avc1+mp4a, RESOLUTION 1920x1080)"))
            #expect(error.message.contains("360.m3u8 has RESOLUTION 640x360"))
            #expect(error.message.contains("720hevc.m3u8 has CODECS hvc1+mp4a, RESOLUTION 1280x720"))
        }
    }
}
