import HLSPlaylist
import PlaybackEngine
import Testing

/// X-SNAP on a live primary with a separate audio rendition: the rendition is reloaded with the
/// primary and placed on its timeline by date, so its segment boundaries count (R6).
@Suite("Live X-SNAP with audio renditions")
struct LiveSnapTests {
    static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="audio.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="aud"
        video.m3u8

        """

    /// A live audio playlist of `count` 10 s segments whose dates run 7 s after the video's: its
    /// boundaries fall at 7, 17, 27, ... of primary time.
    static func audio(_ count: Int) -> String {
        var lines = [
            "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-MEDIA-SEQUENCE:0",
            "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:07.000Z",
        ]
        for index in 0..<count { lines += ["#EXTINF:10.0,", "audio\(index).aac"] }
        return lines.joined(separator: "\n") + "\n"
    }

    static let first = event("e", at: 26, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-SNAP=\"OUT\"")
    static let second = event("f", at: 76, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-SNAP=\"OUT\"")

    static func starts(_ harness: Harness) -> [String] {
        (harness.machine.schedule?.groups ?? []).map { group in
            "\(harness.machine.schedule?.events[group.members[0]].id ?? "?")@\(group.start.formatted(fractionDigits: 0))"
        }
    }

    @Test("OUT snaps to the nearest boundary of primary or audio, the earliest: 27 with the audio, 30 without")
    func snapsToAudio() {
        var alone = Harness(live(6, Self.first)) { $0.startTime = .zero }
        alone.deliver()
        #expect(Self.starts(alone) == ["e@30"])

        var harness = Harness(Self.multivariant) { $0.startTime = .zero }
        harness.playlists[Harness.base + "video.m3u8"] = live(6, Self.first)
        harness.playlists[Harness.base + "audio.m3u8"] = Self.audio(6)
        harness.deliver()
        #expect(Self.starts(harness) == ["e@27"])
    }

    @Test("a reload brings the audio rendition along: an event in the new part snaps to its new boundaries")
    func reloadsAudio() {
        var harness = Harness(Self.multivariant) { $0.startTime = .zero }
        harness.playlists[Harness.base + "video.m3u8"] = live(6, Self.first)
        harness.playlists[Harness.base + "audio.m3u8"] = Self.audio(6)
        harness.play(until: 5)
        harness.playlists[Harness.base + "video.m3u8"] = live(8, Self.first, Self.second)
        harness.playlists[Harness.base + "audio.m3u8"] = Self.audio(8)
        harness.run(until: 12)
        // 76 lies past the first audio playlist's end (67): only the reloaded one has the boundary at 77.
        #expect(Self.starts(harness) == ["e@27", "f@77"])
    }
}
