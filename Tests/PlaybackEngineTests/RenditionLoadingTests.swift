import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// The segments of separate audio renditions load with the variant's, for the primary and for
/// interstitial assets, interleaved by time as a player buffers them.
@Suite("Loading the segments of audio renditions")
struct RenditionLoadingTests {
    /// A VOD primary of 10 s segments whose audio is a separate rendition of 10 s segments.
    static func multivariant(events: String...) -> [String: String] {
        let video = playlist(4, tags: events, end: true).replacingOccurrences(of: "seg", with: "video")
        let audio = playlist(4, tags: [], end: true).replacingOccurrences(of: "seg", with: "audio")
        return [
            Harness.base + "main.m3u8": """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="aud"
            video.m3u8

            """,
            Harness.base + "video.m3u8": video, Harness.base + "audio.m3u8": audio,
        ]
    }

    static func harness(_ files: [String: String], configure: (inout Harness) -> Void = { _ in }) -> Harness {
        // The loads the start asks for complete later, when every file is in place.
        var harness = Harness(files[Harness.base + "main.m3u8"] ?? "") { $0.loadsSegments = true }
        harness.playlists.merge(files) { $1 }
        configure(&harness)
        return harness
    }

    /// The segment names the harness was asked for, in order.
    static func segments(_ harness: Harness) -> [String] {
        harness.requests.compactMap { request in
            guard case .segment = request.key else { return nil }
            return String(Harness.strip(request.url).dropFirst(Harness.base.count))
        }
    }

    @Test("the primary's audio segments load with its video segments, each time's video first")
    func primaryInterleaved() {
        var harness = Self.harness(Self.multivariant())
        harness.play(until: 45)
        #expect(
            Self.segments(harness) == [
                "video0.ts", "audio0.ts", "video1.ts", "audio1.ts", "video2.ts", "audio2.ts", "video3.ts", "audio3.ts",
            ])
        let audio = harness.requests.first { Harness.strip($0.url).hasSuffix("audio1.ts") }
        #expect(audio?.origin?.rendition == Harness.base + "audio.m3u8")
        #expect(audio?.origin?.index == 1)
        #expect(audio?.origin?.source == .primary)
        #expect(harness.machine.loadedPrimaryRanges == [s(0)..<s(40)])
    }

    @Test("a primary time is loaded only when every rendition's segment for it is")
    func primaryRangesNeedAudio() {
        var harness = Self.harness(Self.multivariant()) { $0.failing = [Harness.base + "audio1.ts"] }
        harness.play(until: 5)
        #expect(harness.machine.loadedPrimaryRanges == [s(0)..<s(10), s(20)..<s(40)])
    }

    @Test("an asset's audio rendition loads with it, and its loaded ranges need both")
    func assetAudio() {
        var files = Self.multivariant(events: event("e", at: 10, "X-ASSET-URI=\"ad.m3u8\",X-RESUME-OFFSET=0"))
        files[Harness.base + "ad.m3u8"] =
            "#EXTM3U\n#EXT-X-TARGETDURATION:5\n"
            + "#EXTINF:5.0,\nad-v0.ts\n#EXTINF:5.0,\nad-v1.ts\n#EXT-X-ENDLIST\n"
        files[Harness.base + "ad-audio.m3u8"] =
            "#EXTM3U\n#EXT-X-TARGETDURATION:5\n"
            + "#EXTINF:5.0,\nad-a0.ts\n#EXTINF:5.0,\nad-a1.ts\n#EXT-X-ENDLIST\n"
        let video = files[Harness.base + "video.m3u8"]!
        files[Harness.base + "video.m3u8"] = video.replacingOccurrences(
            of: "#EXT-X-TARGETDURATION:10\n",
            with: "#EXT-X-TARGETDURATION:10\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n")
        var harness = Self.harness(files) {
            $0.assetAudio = [Harness.base + "ad.m3u8": Harness.base + "ad-audio.m3u8"]
            $0.failing = [Harness.base + "ad-a1.ts"]
        }
        harness.play(until: 12)
        #expect(harness.machine.mode == .interstitial)
        let ad = Self.segments(harness).filter { $0.hasPrefix("ad-") }
        #expect(ad == ["ad-v0.ts", "ad-a0.ts", "ad-v1.ts", "ad-a1.ts"])
        let audio = harness.requests.first { Harness.strip($0.url).hasSuffix("ad-a0.ts") }
        #expect(audio?.origin?.source == .interstitial(eventID: "e", assetIndex: 0))
        #expect(audio?.origin?.rendition == Harness.base + "ad-audio.m3u8")
        #expect(harness.machine.loadedAssetRanges == [s(0)..<s(5)])
    }

    @Test("an ad that plays in two breaks is loaded for each: every event plays in an item of its own")
    func repeatedAd() {
        var harness = Harness(
            dated(
                event("e", at: 10, "X-ASSET-URI=\"a6.m3u8\",X-RESUME-OFFSET=0"),
                event("f", at: 30, "X-ASSET-URI=\"a6.m3u8\",X-RESUME-OFFSET=0")),
            assets: ["a6.m3u8": 6]
        ) { $0.loadsSegments = true }
        harness.play(until: 60)
        let loads = harness.requests.filter { Harness.strip($0.url).hasSuffix("a6.m3u8-0.ts") }
        #expect(
            loads.map(\.origin?.source) == [
                .interstitial(eventID: "e", assetIndex: 0), .interstitial(eventID: "f", assetIndex: 0),
            ])
        #expect(Set(loads.map(\.key)).count == 2)
    }

    @Test("ranges intersect: only what every list has")
    func intersection() {
        let a = [s(0)..<s(10), s(20)..<s(40)]
        let b = [s(5)..<s(25), s(30)..<s(50)]
        #expect(PlaybackStateMachine.intersected(a, b) == [s(5)..<s(10), s(20)..<s(25), s(30)..<s(40)])
        #expect(PlaybackStateMachine.intersected(a, []) == [])
        #expect(PlaybackStateMachine.intersected(a, a) == a)
    }
}
