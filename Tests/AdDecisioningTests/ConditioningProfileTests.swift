import AdDecisioning
import HLSPlaylist
import Testing

/// The renditions a progressive creative is conditioned into, from the primary's ladder.
@Suite("Conditioning profile")
struct ConditioningProfileTests {
    static func multivariant(_ text: String) throws -> MultivariantPlaylist {
        guard case .multivariant(let playlist) = PlaylistParser.parse(text).playlist else {
            throw ParseFailure()
        }
        return playlist
    }

    struct ParseFailure: Error {}

    @Test("a rung per distinct resolution, highest first; the default audio's rate and channels; the target duration")
    func ladder() throws {
        let primary = try Self.multivariant(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="fr",URI="fr.m3u8",SAMPLE-RATE=44100,CHANNELS="2"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",DEFAULT=YES,URI="en.m3u8",SAMPLE-RATE=48000,CHANNELS="6"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,FRAME-RATE=25,AUDIO="a"
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=5128000,RESOLUTION=1920x1080,FRAME-RATE=50,AUDIO="a"
            high.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,FRAME-RATE=25,AUDIO="a"
            low2.m3u8

            """)
        let profile = ConditioningProfile(primary: primary, targetDuration: 4)
        #expect(
            profile.rungs == [
                .init(width: 1920, height: 1080, bitRate: 5_000_000, frameRate: 50),
                .init(width: 640, height: 360, bitRate: 772_000, frameRate: 25),
            ])
        #expect(profile.audioSampleRate == 48_000 && profile.audioChannels == 6 && profile.segmentSeconds == 4)
        let arguments = profile.ffmpegArguments(input: "in.mp4", output: "out", hasAudio: true)
        #expect(arguments.contains("-var_stream_map"))
        #expect(arguments.contains("5000000") && arguments.contains("772000"))
        #expect(arguments.firstIndex(of: "-ar").map { arguments[$0 + 1] } == "48000")
        #expect(arguments.firstIndex(of: "-g:v:0").map { arguments[$0 + 1] } == "200")
        #expect(!arguments.contains("lavfi"), "the creative's own audio is used")
        #expect(
            ConditioningProfile(primary: primary, targetDuration: 4).ffmpegArguments(
                input: "i", output: "o", hasAudio: false
            ).contains("lavfi"))
    }

    @Test("a primary without resolutions gets one 720p rung; odd, huge or absurd values are bounded")
    func bounds() throws {
        let primary = try Self.multivariant(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\na.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=99999x99999\nb.m3u8\n"
        )
        let profile = ConditioningProfile(primary: primary, targetDuration: 99)
        #expect(profile.rungs == [.init(width: 1280, height: 720, bitRate: 2_000_000, frameRate: 30)])
        #expect(profile.segmentSeconds == 10)
        #expect(profile.audioSampleRate == 48_000 && profile.audioChannels == 2)
        #expect(profile.description != ConditioningProfile(primary: primary, targetDuration: 2).description)
    }
}
