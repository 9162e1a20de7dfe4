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

    // MARK: The stitched form (issue 45, item 5)

    /// A two-rung primary with `codecs` on each variant and, with `audioGroup`, demuxed audio.
    static func stitchedPrimary(codecs: String, audioGroup: Bool) throws -> MultivariantPlaylist {
        let media =
            audioGroup
            ? "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",DEFAULT=YES,URI=\"en.m3u8\",SAMPLE-RATE=44100,CHANNELS=\"2\"\n"
            : ""
        let group = audioGroup ? ",AUDIO=\"a\"" : ""
        return try multivariant(
            """
            #EXTM3U
            \(media)#EXT-X-STREAM-INF:BANDWIDTH=2128000,RESOLUTION=1280x720,FRAME-RATE=25,CODECS="\(codecs)"\(group)
            hi.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=628000,RESOLUTION=640x360,FRAME-RATE=25,CODECS="\(codecs)"\(group)
            lo.m3u8

            """)
    }

    @Test("an MPEG-TS primary with muxed audio: TS segments, the audio in each video rendition, no audio playlist")
    func mpegTSMuxed() throws {
        let primary = try Self.stitchedPrimary(codecs: "avc1.64001f,mp4a.40.2", audioGroup: false)
        let base = ConditioningProfile(primary: primary, targetDuration: 6)
        let profile = try base.stitching(into: primary, fMP4: false)
        #expect(profile.segmentFormat == .mpegts && profile.muxedAudio)
        #expect(profile.rungs == base.rungs && profile.segmentSeconds == 6)
        let arguments = profile.ffmpegArguments(input: "in.mp4", output: "out", hasAudio: true)
        let value = { (name: String) in arguments.firstIndex(of: name).map { arguments[$0 + 1] } }
        #expect(value("-hls_segment_type") == "mpegts")
        #expect(value("-hls_segment_filename") == "out/%v/seg%03d.ts")
        #expect(!arguments.contains("-hls_fmp4_init_filename"))
        #expect(value("-var_stream_map") == "v:0,a:0,name:video_0 v:1,a:1,name:video_1")
        #expect(arguments.filter { $0 == "0:a:0" }.count == 2, "the audio is mapped into each rendition")
        #expect(arguments.last == "out/%v/main.m3u8")
        // Silence, when the creative has no audio, is mapped the same way.
        let silent = profile.ffmpegArguments(input: "in.mp4", output: "out", hasAudio: false)
        #expect(silent.filter { $0 == "1:a:0" }.count == 2)
        // Another asset than the interstitial form's: another cache key.
        #expect(profile.description == base.description + ";mpegts;muxed")
    }

    @Test("an MPEG-TS primary with demuxed audio: TS segments and one audio rendition; fMP4 keeps the old key")
    func mpegTSDemuxed() throws {
        let primary = try Self.stitchedPrimary(codecs: "avc1.4d401f,mp4a.40.2", audioGroup: true)
        let base = ConditioningProfile(primary: primary, targetDuration: 4)
        #expect(base.audioSampleRate == 44_100)
        let ts = try base.stitching(into: primary, fMP4: false)
        #expect(ts.segmentFormat == .mpegts && !ts.muxedAudio)
        let arguments = ts.ffmpegArguments(input: "in.mp4", output: "out", hasAudio: true)
        let value = { (name: String) in arguments.firstIndex(of: name).map { arguments[$0 + 1] } }
        #expect(value("-hls_segment_type") == "mpegts")
        #expect(
            value("-var_stream_map")
                == "v:0,agroup:audio,name:video_0 v:1,agroup:audio,name:video_1 a:0,agroup:audio,name:audio,default:yes"
        )
        #expect(value("-ar") == "44100")
        let fMP4 = try base.stitching(into: primary, fMP4: true)
        #expect(fMP4 == base, "an fMP4 primary with demuxed audio: the interstitial form's profile")
        #expect(fMP4.description == base.description)
        #expect(
            fMP4.ffmpegArguments(input: "in.mp4", output: "out", hasAudio: true)
                == base.ffmpegArguments(input: "in.mp4", output: "out", hasAudio: true))
        #expect(value("-hls_segment_filename") == "out/%v/seg%03d.ts")
    }

    @Test(
        "a primary whose codecs the conditioner cannot make is refused, saying which",
        arguments: [
            ("hvc1.1.6.L93.B0,mp4a.40.2", "hvc1.1.6.L93.B0"), ("avc1.64001f,ec-3", "ec-3"),
            ("avc3.64001f,mp4a.40.2", "avc3.64001f"), ("avc1.64001f,mp4a.69", "mp4a.69"),
            ("avc1.64001f,mp4a.40.2,wvtt", "wvtt"),
        ])
    func refusedCodecs(codecs: String, named: String) throws {
        let primary = try Self.stitchedPrimary(codecs: codecs, audioGroup: false)
        do throws(ConditioningProfile.Refusal) {
            _ = try ConditioningProfile(primary: primary, targetDuration: 6).stitching(into: primary, fMP4: false)
            Issue.record("\(codecs) was accepted")
        } catch {
            #expect(error.description.contains("CODECS \(named)"), "\(error)")
            #expect(error.description.contains("hi.m3u8") && error.description.contains("H.264"))
        }
    }

    @Test("a primary variant without CODECS is refused")
    func noCodecs() throws {
        let primary = try Self.multivariant("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=640x360\na.m3u8\n")
        #expect(throws: ConditioningProfile.Refusal.self) {
            try ConditioningProfile(primary: primary, targetDuration: 6).stitching(into: primary, fMP4: true)
        }
    }
}
