import HLSPlaylist

/// What a progressive creative is turned into so that it plays as an interstitial asset of a given
/// primary: an HLS fMP4 asset whose renditions match the primary's (App. D.1: assets are best
/// "encoded with the same parameters as the primary content"): one H.264 video rendition per
/// resolution of the primary's ladder, at its frame rate and bit rate, and one AAC audio rendition
/// at the primary's sample rate and channel count, in segments of the primary's target duration.
///
/// Pure: ``ffmpegArguments(input:output:hasAudio:)`` gives the command that `CreativeConditioner`
/// (in the server) runs.
public struct ConditioningProfile: Hashable, Sendable, CustomStringConvertible {
    /// One video rendition.
    public struct Rung: Hashable, Sendable {
        /// Width and height in pixels (even).
        public var width: Int
        public var height: Int
        /// Video bit rate in bits per second.
        public var bitRate: Int
        /// Frames per second.
        public var frameRate: Double

        /// Creates a rung.
        public init(width: Int, height: Int, bitRate: Int, frameRate: Double) {
            self.width = width
            self.height = height
            self.bitRate = bitRate
            self.frameRate = frameRate
        }
    }

    /// The video renditions, highest first.
    public var rungs: [Rung]
    /// The audio sample rate in Hz.
    public var audioSampleRate: Int
    /// The audio channel count.
    public var audioChannels: Int
    /// The segment duration in seconds.
    public var segmentSeconds: Int

    /// The most renditions a profile keeps.
    public static let maximumRungs = 6

    /// Creates a profile.
    public init(rungs: [Rung], audioSampleRate: Int = 48_000, audioChannels: Int = 2, segmentSeconds: Int = 6) {
        self.rungs = Array(rungs.prefix(Self.maximumRungs))
        self.audioSampleRate = audioSampleRate
        self.audioChannels = audioChannels
        self.segmentSeconds = segmentSeconds
    }

    /// The profile that matches a primary: a rung per distinct RESOLUTION of its variants (their
    /// FRAME-RATE, else 30; their BANDWIDTH less 128 kb/s for audio, at least 100 kb/s), the
    /// SAMPLE-RATE and CHANNELS of its default audio rendition (else 48 kHz stereo), and segments of
    /// `targetDuration` seconds (2 to 10). A primary without resolutions gets one 1280×720 rung.
    public init(primary: MultivariantPlaylist, targetDuration: Int?) {
        var rungs: [Rung] = []
        for variant in primary.variants.sorted(by: { ($0.bandwidth ?? 0) > ($1.bandwidth ?? 0) }) {
            guard let resolution = variant.resolution, resolution.width > 0, resolution.height > 0,
                resolution.width <= 7680, resolution.height <= 4320,
                !rungs.contains(where: { $0.width == Int(resolution.width) && $0.height == Int(resolution.height) })
            else { continue }
            let total = Int(clamping: variant.bandwidth ?? 2_000_000)
            rungs.append(
                Rung(
                    width: Int(resolution.width) & ~1, height: Int(resolution.height) & ~1,
                    bitRate: max(100_000, total - 128_000), frameRate: min(max(variant.frameRate ?? 30, 1), 120)))
        }
        if rungs.isEmpty { rungs = [Rung(width: 1280, height: 720, bitRate: 2_000_000, frameRate: 30)] }
        let audio = primary.renditions.filter { $0.type == "AUDIO" }
        let chosen = audio.first(where: \.isDefault) ?? audio.first
        let sampleRate = chosen?.sampleRate.map { Int(clamping: $0) }.flatMap {
            (8_000...96_000).contains($0) ? $0 : nil
        }
        let channels = chosen?.channels.first.flatMap { Int($0) }.flatMap { (1...8).contains($0) ? $0 : nil }
        self.init(
            rungs: rungs, audioSampleRate: sampleRate ?? 48_000, audioChannels: channels ?? 2,
            segmentSeconds: min(max(targetDuration ?? 6, 2), 10))
    }

    /// A stable text of the whole profile (part of a conditioned creative's cache key).
    public var description: String {
        rungs.map { "\($0.width)x\($0.height)@\($0.frameRate)/\($0.bitRate)" }.joined(separator: ",")
            + ";a\(audioSampleRate)x\(audioChannels);s\(segmentSeconds)"
    }

    /// The ffmpeg arguments that turn the file at `input` into the HLS asset in the directory
    /// `output`: `master.m3u8`, `video_N/main.m3u8` (N from 0, highest first) and `audio/main.m3u8`
    /// with their fMP4 segments. Without an audio track (`hasAudio` false), silence is encoded, so
    /// the asset has the primary's track layout.
    public func ffmpegArguments(input: String, output: String, hasAudio: Bool) -> [String] {
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", input]
        if !hasAudio {
            arguments += [
                "-f", "lavfi", "-i", "anullsrc=r=\(audioSampleRate):cl=\(audioChannels == 1 ? "mono" : "stereo")",
            ]
        }
        let splits = rungs.indices.map { "[v\($0)]" }.joined()
        var filter = "[0:v:0]split=\(rungs.count)\(splits)"
        for (index, rung) in rungs.enumerated() {
            filter +=
                ";[v\(index)]scale=\(rung.width):\(rung.height):force_original_aspect_ratio=decrease,"
                + "pad=\(rung.width):\(rung.height):(ow-iw)/2:(oh-ih)/2,setsar=1,fps=\(Self.number(rung.frameRate))[o\(index)]"
        }
        arguments += ["-filter_complex", filter]
        for (index, rung) in rungs.enumerated() {
            let gop = max(1, Int((rung.frameRate * Double(segmentSeconds)).rounded()))
            arguments += [
                "-map", "[o\(index)]", "-c:v:\(index)", "libx264", "-profile:v:\(index)", "main",
                "-b:v:\(index)", "\(rung.bitRate)", "-maxrate:v:\(index)", "\(rung.bitRate)",
                "-bufsize:v:\(index)", "\(rung.bitRate * 2)", "-g:v:\(index)", "\(gop)",
                "-keyint_min:v:\(index)", "\(gop)",
            ]
        }
        arguments += [
            "-sc_threshold", "0", "-pix_fmt", "yuv420p",
            "-map", hasAudio ? "0:a:0" : "1:a:0", "-c:a", "aac", "-b:a", "128k",
            "-ar", "\(audioSampleRate)", "-ac", "\(audioChannels)", "-shortest",
            "-f", "hls", "-hls_time", "\(segmentSeconds)", "-hls_playlist_type", "vod",
            "-hls_segment_type", "fmp4", "-hls_flags", "independent_segments",
            "-master_pl_name", "master.m3u8",
            "-var_stream_map",
            (rungs.indices.map { "v:\($0),agroup:audio,name:video_\($0)" } + ["a:0,agroup:audio,name:audio,default:yes"])
                .joined(separator: " "),
            "-hls_segment_filename", output + "/%v/seg%03d.m4s", "-hls_fmp4_init_filename", "init.mp4",
            output + "/%v/main.m3u8",
        ]
        return arguments
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
