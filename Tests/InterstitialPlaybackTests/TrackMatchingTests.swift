import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackCoordination
import PlaybackEngine
import Testing

/// A multivariant playlist with these EXT-X-MEDIA lines (groups "aud" and "subs") and one variant.
func multivariant(_ media: [String], variant: String = "video.m3u8") -> String {
    "#EXTM3U\n#EXT-X-VERSION:7\n" + media.map { $0 + "\n" }.joined()
        + "#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.4d401f,mp4a.40.2\",AUDIO=\"aud\",SUBTITLES=\"subs\"\n\(variant)\n"
}

func audio(
    _ name: String, _ language: String?, default isDefault: Bool = false, characteristics: String? = nil
) -> String {
    "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"\(name)\"" + (language.map { ",LANGUAGE=\"\($0)\"" } ?? "")
        + ",DEFAULT=\(isDefault ? "YES" : "NO"),AUTOSELECT=YES"
        + (characteristics.map { ",CHARACTERISTICS=\"\($0)\"" } ?? "") + ",URI=\"\(name).m3u8\""
}

func subtitles(_ name: String, _ language: String, characteristics: String? = nil) -> String {
    "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"\(name)\",LANGUAGE=\"\(language)\",AUTOSELECT=YES"
        + (characteristics.map { ",CHARACTERISTICS=\"\($0)\"" } ?? "") + ",URI=\"\(name).m3u8\""
}

@Suite("Track matching")
struct TrackMatchingTests {
    /// The renditions of a multivariant playlist made of these lines.
    static func renditions(_ lines: [String]) throws -> [Rendition] {
        guard case .multivariant(let playlist) = PlaylistParser.parse(multivariant(lines)).playlist else {
            throw CancellationError()
        }
        return playlist.renditions
    }

    static func pick(_ lines: [String], _ wanted: MediaOption?, _ type: String = "AUDIO") throws -> String? {
        TrackMatcher.select(try renditions(lines).filter { $0.type == type }, matching: wanted, type: type)?.name
    }

    @Test("the same language wins, whatever is DEFAULT")
    func sameLanguage() throws {
        #expect(
            try Self.pick([audio("en", "en", default: true), audio("fr", "fr")], MediaOption(language: "fr")) == "fr")
        #expect(try Self.pick([audio("en", "EN", default: true)], MediaOption(language: "en")) == "en")
    }

    @Test("without the exact tag, the primary language subtag matches (en-US to en-GB)")
    func languageSubtag() throws {
        #expect(
            try Self.pick([audio("fr", "fr", default: true), audio("gb", "en-GB")], MediaOption(language: "en-US"))
                == "gb")
    }

    @Test("within the language, the same characteristics win (audio description)")
    func characteristics() throws {
        let lines = [
            audio("main", "en", default: true),
            audio("ad", "en", characteristics: "public.accessibility.describes-video"),
            audio("fr-ad", "fr", characteristics: "public.accessibility.describes-video"),
        ]
        let described = MediaOption(language: "en", characteristics: ["public.accessibility.describes-video"])
        #expect(try Self.pick(lines, described) == "ad")
        // Language comes first: French description does not beat English main for an English listener.
        #expect(try Self.pick(lines, MediaOption(language: "en")) == "main")
        #expect(try Self.pick(lines, MediaOption(language: "fr")) == "fr-ad")
    }

    @Test("among equals DEFAULT=YES wins; with no wanted option audio takes DEFAULT=YES, then the first")
    func defaults() throws {
        #expect(
            try Self.pick([audio("one", "en"), audio("two", "en", default: true)], MediaOption(language: "en")) == "two"
        )
        #expect(try Self.pick([audio("one", "en"), audio("two", "de", default: true)], nil) == "two")
        #expect(try Self.pick([audio("one", "en"), audio("two", "de")], nil) == "one")
    }

    @Test("audio in no matching language falls back to DEFAULT=YES (there must be sound)")
    func audioFallback() throws {
        #expect(
            try Self.pick([audio("en", "en", default: true), audio("fr", "fr")], MediaOption(language: "de")) == "en")
    }

    @Test("subtitles follow the primary: the matching language, off when it is off or nothing matches")
    func subtitleCases() throws {
        let lines = [
            subtitles("en", "en"), subtitles("fr", "fr"),
            subtitles("fr-sdh", "fr", characteristics: "public.accessibility.describes-music-and-sound"),
        ]
        #expect(try Self.pick(lines, MediaOption(language: "fr"), "SUBTITLES") == "fr")
        #expect(
            try Self.pick(
                lines, MediaOption(language: "fr", characteristics: ["public.accessibility.describes-music-and-sound"]),
                "SUBTITLES") == "fr-sdh")
        #expect(try Self.pick(lines, nil, "SUBTITLES") == nil)
        #expect(try Self.pick(lines, MediaOption(language: "de"), "SUBTITLES") == nil)
    }

    /// A primary and an ad that both offer English and French audio and subtitles.
    static let files: [String: String] = [
        "/master.m3u8": multivariant(
            [
                audio("en", "en", default: true), audio("fr", "fr"), subtitles("en-sub", "en"),
                subtitles("fr-sub", "fr"),
            ],
            variant: "main.m3u8"),
        "/main.m3u8": Content.vod(
            segments: 10,
            dateRanges: [
                Content.interstitial("brk", at: 12, "DURATION=5,X-ASSET-URI=\"/ad/master.m3u8\",X-RESUME-OFFSET=0")
            ]),
        "/en.m3u8": Content.vod(segments: 10), "/fr.m3u8": Content.vod(segments: 10),
        "/ad/master.m3u8": multivariant(
            [
                audio("english", "en-GB", default: true), audio("french", "fr"), subtitles("english-subs", "en"),
                subtitles("french-subs", "fr"),
            ], variant: "video.m3u8"),
        "/ad/video.m3u8": Content.ad(5), "/ad/english.m3u8": Content.ad(5), "/ad/french.m3u8": Content.ad(5),
    ]

    @Test("the interstitial player selects the asset's renditions that match the primary's, and follows changes")
    func interstitialFollowsPrimary() async throws {
        try await TestOrigin.with(files: Self.files) { origin in
            let player = await play(
                origin, "/master.m3u8", until: 30,
                configure: {
                    $0.preferredTracks = TrackSelection(
                        audio: MediaOption(language: "fr"), subtitles: MediaOption(language: "fr"))
                })
            #expect(player.tracks.audio?.name == "fr")
            let started = try #require(player.trace.first(.assetStarted, id: "brk"))
            #expect(started["audio"] == .string("fr"))
            #expect(started["subtitles"] == .string("fr"))
            // Without a preference: the DEFAULT audio, subtitles off; English in the ad (en-GB).
            let plain = await play(origin, "/master.m3u8", until: 30)
            #expect(plain.trace.first(.assetStarted, id: "brk")?["audio"] == .string("en-GB"))
            #expect(plain.trace.first(.assetStarted, id: "brk")?["subtitles"] == .null)
            // A selection made while playing applies to assets loaded after it.
            let changed = await play(
                origin, "/master.m3u8", until: 30,
                script: [
                    (1, .selectSubtitles(MediaOption(language: "en"))), (1, .selectAudio(MediaOption(language: "fr"))),
                ])
            #expect(changed.trace.first(.tracksSelected) != nil)
            #expect(changed.trace.first(.assetStarted, id: "brk")?["audio"] == .string("fr"))
            #expect(changed.trace.first(.assetStarted, id: "brk")?["subtitles"] == .string("en"))
            // The hand-off carries the selection, and the receiver's interstitials match it.
            let session = changed.session()
            #expect(session.tracks.audio?.language == "fr" && session.tracks.subtitles?.language == "en")
            var early = session
            early.location = .primary(s(2))
            let receiver = Player(
                session: early, configuration: .init(primaryID: "rx", loadsSegments: false), clock: ManualClock())
            await receiver.run(until: .seconds(20))
            await receiver.shutdown()
            #expect(receiver.tracks == session.tracks)
            #expect(receiver.trace.first(.assetStarted, id: "brk")?["audio"] == .string("fr"))
        }
    }

    @Test("an asset whose selected audio rendition cannot load fails with that rendition's URL; the break is skipped")
    func assetAudioFails() async throws {
        var files = Self.files
        files["/ad/french.m3u8"] = nil
        try await TestOrigin.with(files: files) { origin in
            let player = await play(
                origin, "/master.m3u8", until: 30,
                configure: { $0.preferredTracks = TrackSelection(audio: MediaOption(language: "fr")) })
            let message = try #require(player.trace.first(.error, id: "brk")?["message"]?.description)
            #expect(message.contains("/ad/french.m3u8"))
            #expect(message.contains("404"))
            #expect(player.trace.first(.assetStarted, id: "brk") == nil)
            // English is still there: without the preference the ad plays.
            let plain = await play(origin, "/master.m3u8", until: 30)
            #expect(plain.trace.first(.assetStarted, id: "brk") != nil)
        }
    }
}
