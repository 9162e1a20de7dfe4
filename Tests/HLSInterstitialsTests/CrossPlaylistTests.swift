import HLSInterstitials
import HLSPlaylist
import Testing

@Suite("Cross-playlist, reload and asset rules")
struct CrossPlaylistTests {
    static let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",URI="audio_en.m3u8",SAMPLE-RATE=48000,CHANNELS="2"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="French",LANGUAGE="fr",URI="audio_fr.m3u8",SAMPLE-RATE=48000,CHANNELS="2"
        #EXT-X-STREAM-INF:BANDWIDTH=1000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30,AUDIO="aud"
        video.m3u8

        """

    static func entry(_ uri: String, _ text: String) -> RenditionValidator.MediaPlaylistEntry {
        let result = PlaylistParser.parse(text, options: ParseOptions(file: uri))
        return .init(uri: uri, playlist: result.playlist.media!, document: result.document)
    }

    static func validate(_ entries: [RenditionValidator.MediaPlaylistEntry]) -> [Diagnostic] {
        let result = PlaylistParser.parse(master, options: ParseOptions(file: "master.m3u8"))
        return RenditionValidator.validate(
            multivariant: result.playlist.multivariant!, document: result.document, media: entries)
    }

    static let a = Sample.interstitial
    static let b = Sample.interstitial.replacingOccurrences(of: "\"ad", with: "\"bd").replacingOccurrences(
        of: "=ad", with: "=bd")

    @Test("identical date ranges everywhere pass")
    func identical() {
        let text = Sample.media([Self.a, Self.b])
        #expect(
            Self.validate([
                Self.entry("video.m3u8", text), Self.entry("audio_en.m3u8", text), Self.entry("audio_fr.m3u8", text),
            ]).isEmpty)
    }

    @Test("a missing, extra or different date range is renditions-date-ranges")
    func differentSets() {
        let diagnostics = Self.validate([
            Self.entry("video.m3u8", Sample.media([Self.a, Self.b])),
            Self.entry("audio_en.m3u8", Sample.media([Self.a])),
            Self.entry("audio_fr.m3u8", Sample.media([Self.a + ",DURATION=5", Self.b])),
        ])
        let messages = diagnostics.filter { $0.rule == "renditions-date-ranges" }.map(\.message)
        #expect(messages.count == 2)
        #expect(messages.contains { $0.contains("\"bd\" of video.m3u8 is missing from audio_en.m3u8") })
        #expect(messages.contains { $0.contains("\"ad\" differs between audio_fr.m3u8 and video.m3u8") })
    }

    @Test("same-start interstitials in another order are renditions-interstitial-order")
    func order() {
        let sameStart = Self.b
        let diagnostics = Self.validate([
            Self.entry("video.m3u8", Sample.media([Self.a, sameStart])),
            Self.entry("audio_en.m3u8", Sample.media([sameStart, Self.a])),
            Self.entry("audio_fr.m3u8", Sample.media([Self.a, sameStart])),
        ])
        #expect(diagnostics.map(\.rule) == ["renditions-interstitial-order"])
        #expect(diagnostics.first?.location.file == "audio_en.m3u8")
    }

    @Test("PROGRAM-DATE-TIME in some playlists only is renditions-program-date-time")
    func programDateTime() {
        let diagnostics = Self.validate([
            Self.entry("video.m3u8", Sample.media([])),
            Self.entry("audio_en.m3u8", Sample.media([], programDateTime: false)),
            Self.entry("audio_fr.m3u8", Sample.media([])),
        ])
        #expect(diagnostics.map(\.rule) == ["renditions-program-date-time"])
    }

    @Test("a variant with no playlist carrying date ranges is renditions-date-ranges-missing")
    func missingInVariant() {
        let master =
            Self.master + "#EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS=\"avc1.64001f\",RESOLUTION=640x360\nlow.m3u8\n"
        let result = PlaylistParser.parse(master, options: ParseOptions(file: "master.m3u8"))
        let diagnostics = RenditionValidator.validate(
            multivariant: result.playlist.multivariant!, document: result.document,
            media: [
                Self.entry("video.m3u8", Sample.media([Self.a])), Self.entry("audio_en.m3u8", Sample.media([])),
                Self.entry("audio_fr.m3u8", Sample.media([])), Self.entry("low.m3u8", Sample.media([])),
            ])
        #expect(diagnostics.map(\.rule) == ["renditions-date-ranges-missing"])
        #expect(diagnostics.first?.location.line == 6)
    }

    // MARK: Reloads

    static func live(_ first: Int, _ dateRanges: [String]) -> String {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:\(String(format: "%02d", first * 6)).000Z\n"
        for line in dateRanges { text += "#EXT-X-DATERANGE:\(line)\n" }
        for index in first..<(first + 3) { text += "#EXTINF:6.000,\nseg\(index).ts\n" }
        return text
    }

    static func reload(_ previous: String, _ current: String) -> [Diagnostic] {
        let result = Sample.parse(current)
        return ReloadValidator.validate(
            previous: Sample.mediaPlaylist(previous), current: result.playlist.media!, document: result.document)
    }

    @Test("adding attributes on reload is allowed; changing or losing one is reload-daterange-changed")
    func changedOnReload() {
        let base = Self.a + ",DURATION=15"
        #expect(Self.reload(Self.live(0, [base]), Self.live(1, [base + ",X-PLAYOUT-LIMIT=5"])).isEmpty)
        let changed = Self.reload(Self.live(0, [base]), Self.live(1, [Self.a + ",DURATION=20"]))
        #expect(changed.map(\.rule) == ["reload-daterange-changed"])
        #expect(changed.first?.message.contains("from 15 to 20") == true)
        let lost = Self.reload(Self.live(0, [base]), Self.live(1, [Self.a]))
        #expect(lost.map(\.rule) == ["reload-daterange-changed"])
    }

    @Test("removing a date range that still maps to a segment is reload-daterange-removed")
    func removedOnReload() {
        // The ad at 10 s for 15 s covers segments 1–4 (6–30 s).
        let ad = Self.a + ",DURATION=15"
        #expect(Self.reload(Self.live(0, [ad]), Self.live(1, [])).map(\.rule) == ["reload-daterange-removed"])
        // Once the window starts at 30 s, nothing maps to it any more.
        #expect(Self.reload(Self.live(4, [ad]), Self.live(5, [])).isEmpty)
    }

    // MARK: Assets

    static let here = SourceLocation(file: "video.m3u8", line: 6, column: 1)

    @Test("asset lists: schema problems with paths, relative URIs, and the DURATION comparison")
    func assetLists() {
        let bad = AssetValidator.validateAssetList(
            Array("{\"ASSETS\":[{\"URI\":\"a.m3u8\",\"DURATION\":\"x\"}]}".utf8), url: "l.json", eventID: "ad",
            at: Self.here)
        #expect(bad.assetList == nil)
        #expect(bad.diagnostics.map(\.rule) == ["asset-list-schema"])
        #expect(bad.diagnostics[0].message.contains("ASSETS[0].DURATION: expected a number"))
        let relative = AssetValidator.validateAssetList(
            Array("{\"ASSETS\":[{\"URI\":\"a.m3u8\",\"DURATION\":5}]}".utf8), url: "l.json", eventID: "ad",
            at: Self.here)
        #expect(relative.diagnostics.map(\.rule) == ["asset-list-uri"])
        var event = InterstitialEvent(identifier: "ad")
        event.duration = MediaTime(seconds: 15)
        #expect(
            AssetValidator.validateDuration(event, assetsDuration: MediaTime(decimal: "15.05")!, at: Self.here) == nil)
        #expect(
            AssetValidator.validateDuration(event, assetsDuration: MediaTime(seconds: 12), at: Self.here)?.rule
                == "interstitial-duration")
    }

    @Test("asset playlists must be VOD and must not nest interstitials")
    func assetPlaylists() {
        let vod = Sample.mediaPlaylist(Sample.media([]))
        #expect(AssetValidator.validateAssetPlaylist(vod, url: "ad.m3u8", eventID: "ad", at: Self.here).isEmpty)
        let live = Sample.mediaPlaylist(Sample.media([], endList: false))
        #expect(
            AssetValidator.validateAssetPlaylist(live, url: "ad.m3u8", eventID: "ad", at: Self.here).map(\.rule) == [
                "interstitial-vod"
            ])
        let nested = Sample.mediaPlaylist(Sample.media([Self.a]))
        #expect(
            AssetValidator.validateAssetPlaylist(nested, url: "ad.m3u8", eventID: "ad", at: Self.here).map(\.rule) == [
                "interstitial-nested"
            ])
    }

    @Test("assets whose codecs, frame rate, aspect ratio, sample rate, channels or languages differ get warnings")
    func compatibility() {
        let primary = PlaylistParser.parse(Self.master).playlist.multivariant!
        let same = PlaylistParser.parse(Self.master).playlist.multivariant!
        #expect(
            AssetValidator.validateCompatibility(primary: primary, asset: same, url: "ad", eventID: "ad", at: Self.here)
                .isEmpty)
        let different = PlaylistParser.parse(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",URI="a.m3u8",SAMPLE-RATE=44100,CHANNELS="6"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,CODECS="hvc1.1.6.L93.B0,mp4a.40.2",RESOLUTION=1440x1080,FRAME-RATE=25,AUDIO="aud"
            v.m3u8

            """
        ).playlist.multivariant!
        let diagnostics = AssetValidator.validateCompatibility(
            primary: primary, asset: different, url: "ad", eventID: "ad", at: Self.here)
        let messages = diagnostics.map(\.message)
        #expect(diagnostics.filter { $0.rule == "interstitial-compatibility" }.count == 5)
        for word in [
            "codecs hvc1, mp4a where the primary has avc1, mp4a", "frame rates 25", "aspect ratios 1.333",
            "audio sample rates 44100", "audio channels 6",
        ] {
            #expect(messages.contains { $0.contains(word) }, "\(word)")
        }
        #expect(
            diagnostics.filter { $0.rule == "interstitial-language" }.map(\.message).first?.contains(
                "no audio rendition in fr") == true)
        #expect(diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test(
        "the validator's frame rates are the same as the stitcher's: within 0.01 (StitchVariantChooser.frameRatesMatch)",
        arguments: [
            ("23.976", "23.98", false), ("29.970", "29.97", false), ("29.97", "30", true), ("59.94", "60", true),
        ])
    func frameRateWarning(primaryRate: String, assetRate: String, warns: Bool) {
        func ladder(_ rate: String) -> MultivariantPlaylist {
            PlaylistParser.parse(
                """
                #EXTM3U
                #EXT-X-STREAM-INF:BANDWIDTH=1000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=\(rate)
                v.m3u8

                """
            ).playlist.multivariant!
        }
        let diagnostics = AssetValidator.validateCompatibility(
            primary: ladder(primaryRate), asset: ladder(assetRate), url: "ad", eventID: "ad", at: Self.here)
        #expect(diagnostics.contains { $0.message.contains("frame rates") } == warns, "\(diagnostics)")
    }
}
