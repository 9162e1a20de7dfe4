import HLSInterstitials
import HLSPlaylist
import Testing

/// The ad audio rendition stitched into each primary audio rendition (profile R28): among the
/// chosen ad variant's audio group, those with the primary's channel count and sample rate (when
/// both declare them); then its language, else DEFAULT=YES, else the first.
@Suite("Stitched form: the ad audio rendition for a primary audio rendition (R28)")
struct StitchRenditionChooserTests {
    /// An ad whose audio group has English and Spanish in stereo and English in 5.1 (48 kHz), and
    /// Spanish at 44.1 kHz.
    static let ad = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Spanish",LANGUAGE="es",CHANNELS="2",SAMPLE-RATE=48000,URI="es2.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",LANGUAGE="en",DEFAULT=YES,CHANNELS="2",SAMPLE-RATE=48000,URI="en2.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English 5.1",LANGUAGE="en",CHANNELS="6",SAMPLE-RATE=48000,URI="en6.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Spanish 44.1",LANGUAGE="es",CHANNELS="2",SAMPLE-RATE=44100,URI="es441.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720,AUDIO="a"
        720.m3u8

        """

    /// The same group without CHANNELS or SAMPLE-RATE.
    static let undeclared = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",LANGUAGE="en",URI="en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Spanish",LANGUAGE="es",DEFAULT=YES,URI="es.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720,AUDIO="a"
        720.m3u8

        """

    static func rendition(_ attributes: String) -> Rendition? {
        let text = "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"p\",NAME=\"primary\",\(attributes),URI=\"p.m3u8\"\n"
        return PlaylistParser.parse(text).playlist.multivariant?.renditions.first
    }

    func choose(_ attributes: String, in text: String) throws -> Rendition {
        let ad = try #require(PlaylistParser.parse(text).playlist.multivariant)
        let adVariant = try #require(ad.variants.first)
        let primary = try #require(Self.rendition(attributes))
        return try StitchRenditionChooser.choose(for: primary, adVariant: adVariant, in: ad, at: "event \"m\"")
    }

    @Test(
        "each primary rendition gets the ad rendition with its channel count and sample rate, then its language",
        arguments: [
            ("LANGUAGE=\"en\",CHANNELS=\"2\"", "en2.m3u8"),
            ("LANGUAGE=\"en\",CHANNELS=\"6\"", "en6.m3u8"),
            ("LANGUAGE=\"en\",CHANNELS=\"6/JOC\",SAMPLE-RATE=48000", "en6.m3u8"),
            ("LANGUAGE=\"es\",CHANNELS=\"2\",SAMPLE-RATE=48000", "es2.m3u8"),
            ("LANGUAGE=\"es\",CHANNELS=\"2\",SAMPLE-RATE=44100", "es441.m3u8"),
            // Spanish in 5.1 is not offered: the 5.1 rendition, in English, rather than stereo.
            ("LANGUAGE=\"es\",CHANNELS=\"6\"", "en6.m3u8"),
            // English at 44.1 kHz is not offered: the one 44.1 kHz rendition.
            ("LANGUAGE=\"en\",SAMPLE-RATE=44100", "es441.m3u8"),
            // No CHANNELS or SAMPLE-RATE on the primary: the language, as before.
            ("LANGUAGE=\"es\"", "es2.m3u8"),
            // No language among the stereo ones: DEFAULT=YES.
            ("LANGUAGE=\"fr\",CHANNELS=\"2\"", "en2.m3u8"),
            // No language among the 5.1 ones but the first.
            ("LANGUAGE=\"fr\",CHANNELS=\"6\"", "en6.m3u8"),
        ])
    func chooses(_ attributes: String, _ expected: String) throws {
        #expect(try choose(attributes, in: Self.ad).uri == expected)
    }

    @Test(
        "an ad group that declares no CHANNELS or SAMPLE-RATE is not refused for them",
        arguments: [
            ("LANGUAGE=\"en\",CHANNELS=\"6\",SAMPLE-RATE=48000", "en.m3u8"),
            ("LANGUAGE=\"fr\",CHANNELS=\"2\"", "es.m3u8"),
        ])
    func undeclared(_ attributes: String, _ expected: String) throws {
        #expect(try choose(attributes, in: Self.undeclared).uri == expected)
    }

    @Test(
        "channel counts and sample rates are compared only when both declare them",
        arguments: [
            ("CHANNELS=\"2\"", "CHANNELS=\"6\"", false), ("CHANNELS=\"6\"", "CHANNELS=\"6/JOC\"", true),
            ("CHANNELS=\"2\"", "LANGUAGE=\"en\"", true), ("LANGUAGE=\"en\"", "CHANNELS=\"2\"", true),
            ("CHANNELS=\"2\",SAMPLE-RATE=48000", "CHANNELS=\"2\",SAMPLE-RATE=44100", false),
            ("SAMPLE-RATE=48000", "CHANNELS=\"2\"", true), ("CHANNELS=\"x\"", "CHANNELS=\"2\"", true),
        ])
    func matches(_ primary: String, _ ad: String, _ fits: Bool) throws {
        let primary = try #require(Self.rendition(primary))
        let ad = try #require(Self.rendition(ad))
        #expect(
            (StitchRenditionChooser.channelCountsMatch(primary, ad)
                && StitchRenditionChooser.sampleRatesMatch(primary, ad))
                == fits)
    }

    @Test(
        "no ad rendition with the primary's channel count or sample rate: refused, saying what each has",
        arguments: [
            ("CHANNELS=\"1\"", "(CHANNELS 1)"),
            ("CHANNELS=\"6\",SAMPLE-RATE=44100", "(CHANNELS 6, SAMPLE-RATE 44100)"),
            ("SAMPLE-RATE=96000", "(SAMPLE-RATE 96000)"),
        ])
    func refuses(_ attributes: String, _ primaryHas: String) throws {
        let ad = try #require(PlaylistParser.parse(Self.ad).playlist.multivariant)
        let adVariant = try #require(ad.variants.first)
        let primary = try #require(Self.rendition("LANGUAGE=\"en\",\(attributes)"))
        do throws(StitchingError) {
            let chosen = try StitchRenditionChooser.choose(
                for: primary, adVariant: adVariant, in: ad, at: "event \"m\"")
            Issue.record("chose \(chosen.uri)")
        } catch {
            #expect(error.code == .media)
            #expect(error.message.contains("\"primary\" \(primaryHas)"))
            #expect(error.message.contains("\"English 5.1\" has CHANNELS 6, SAMPLE-RATE 48000"))
            #expect(error.message.contains("\"Spanish 44.1\" has CHANNELS 2, SAMPLE-RATE 44100"))
        }
    }

    // MARK: What the media says (init segments)

    static func measured(_ rate: Int?, _ channels: Int?, codec: String = "mp4a.40.2") -> StitchMeasuredAudio {
        StitchMeasuredAudio(sampleRate: rate, channelCount: channels, codec: codec)
    }

    @Test(
        "a figure the ad's playlist does not declare comes from its media; media that contradicts it does not fit",
        arguments: [
            // Undeclared: the media's rate decides. English is 44.1 kHz, Spanish 48 kHz.
            (
                "LANGUAGE=\"en\",SAMPLE-RATE=48000", "undeclared", ["en.m3u8": (44100, 2), "es.m3u8": (48000, 2)],
                "es.m3u8"
            ),
            (
                "LANGUAGE=\"en\",SAMPLE-RATE=44100", "undeclared", ["en.m3u8": (44100, 2), "es.m3u8": (48000, 2)],
                "en.m3u8"
            ),
            (
                "LANGUAGE=\"en\",CHANNELS=\"6\"", "undeclared", ["en.m3u8": (48000, 2), "es.m3u8": (48000, 6)],
                "es.m3u8"
            ),
            // Not measured: the attributes alone, as before.
            ("LANGUAGE=\"en\",SAMPLE-RATE=48000", "undeclared", [:], "en.m3u8"),
            // Declared 48 kHz stereo English, but its media is 44.1 kHz: the next that fits.
            ("LANGUAGE=\"en\",CHANNELS=\"2\",SAMPLE-RATE=48000", "ad", ["en2.m3u8": (44100, 2)], "es2.m3u8"),
            // Declared stereo, its media mono.
            ("LANGUAGE=\"en\",CHANNELS=\"2\"", "ad", ["en2.m3u8": (48000, 1), "es2.m3u8": (48000, 2)], "es2.m3u8"),
        ] as [(String, String, [String: (Int, Int)], String)])
    func measuredFigures(attributes: String, ad: String, media: [String: (Int, Int)], expected: String) throws {
        let text = ad == "ad" ? Self.ad : Self.undeclared
        let multivariant = try #require(PlaylistParser.parse(text).playlist.multivariant)
        let primary = try #require(Self.rendition(attributes))
        let chosen = try StitchRenditionChooser.choose(
            for: primary, adVariant: try #require(multivariant.variants.first), in: multivariant, at: "event \"m\"",
            measured: media.mapValues { Self.measured($0.0, $0.1) })
        #expect(chosen.uri == expected)
    }

    @Test("none fits for its media: stitch-media, saying both the attribute and the media's figure")
    func measuredRefusal() throws {
        let multivariant = try #require(PlaylistParser.parse(Self.undeclared).playlist.multivariant)
        let primary = try #require(Self.rendition("LANGUAGE=\"en\",SAMPLE-RATE=48000"))
        #expect {
            try StitchRenditionChooser.choose(
                for: primary, adVariant: try #require(multivariant.variants.first), in: multivariant,
                at: "event \"m\"",
                measured: ["en.m3u8": Self.measured(44100, 2), "es.m3u8": Self.measured(44100, 2)])
        } throws: { error in
            guard let error = error as? StitchingError else { return false }
            return error.code == .media && error.message.contains("SAMPLE-RATE 48000")
                && error.message.contains("its media: 44100 Hz, 2 channels")
        }
        // Declared 44.1 kHz, media 48 kHz, for a primary that declares nothing: the playlist is wrong.
        let declared = try #require(PlaylistParser.parse(Self.ad).playlist.multivariant)
        let any = try #require(Self.rendition("LANGUAGE=\"es\",CHANNELS=\"2\",SAMPLE-RATE=44100"))
        #expect {
            try StitchRenditionChooser.choose(
                for: any, adVariant: try #require(declared.variants.first), in: declared, at: "event \"m\"",
                measured: ["es441.m3u8": Self.measured(48000, 2)])
        } throws: { error in
            (error as? StitchingError)?.message.contains("SAMPLE-RATE 44100 (its media: 48000 Hz, 2 channels)") == true
        }
    }

    @Test("HE-AAC gives no figure: its AudioSpecificConfig states the core's rate and, for v2, one channel")
    func heAAC() {
        #expect(
            Self.measured(24000, 1, codec: "mp4a.40.29")
                == StitchMeasuredAudio(sampleRate: nil, channelCount: nil, codec: nil))
        #expect(Self.measured(24000, 2, codec: "mp4a.40.5").sampleRate == nil)
        #expect(Self.measured(44100, 2).sampleRate == 44100)
        #expect(Self.measured(0, 0).channelCount == nil)
    }
}
