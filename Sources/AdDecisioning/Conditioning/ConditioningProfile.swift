import HLSPlaylist

/// What a progressive creative is turned into so that it plays as an interstitial asset of a given
/// primary: an HLS fMP4 asset whose renditions match the primary's (App. D.1: assets are best
/// "encoded with the same parameters as the primary content"): one H.264 video rendition per
/// resolution of the primary's ladder, at its frame rate and bit rate, and one AAC audio rendition
/// at the primary's sample rate and channel count, in segments of the primary's target duration.
///
/// For the stitched form (``stitching(into:fMP4:)``) the asset also has the primary's segment
/// format (fMP4 or MPEG-TS, ``SegmentFormat``) and, for a primary whose variants carry their audio
/// in the video segments, the same layout (``muxedAudio``).
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

    /// The segment format of the asset made.
    public var segmentFormat: SegmentFormat
    /// Whether each video rendition carries the audio in its own segments (no audio rendition
    /// playlist): the layout of a primary whose variants have no AUDIO group.
    public var muxedAudio: Bool

    /// The segment format of a conditioned asset.
    public enum SegmentFormat: String, Hashable, Sendable {
        /// Fragmented MP4 segments with an `EXT-X-MAP` (the interstitial form's, and the default).
        case fmp4
        /// MPEG-TS segments, for a stitched primary whose segments are MPEG-TS.
        case mpegts
    }

    /// Why a primary's stitched form cannot have a conditioned asset: what it declares and what the
    /// conditioner makes instead.
    public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// Where and why.
        public var description: String

        /// A refusal that says `description`.
        public init(_ description: String) { self.description = description }
    }

    /// The most renditions a profile keeps.
    public static let maximumRungs = 6

    /// The codec families the conditioner makes (libx264 as `avc1`, AAC as `mp4a`).
    public static let conditionedCodecFamilies: Set<String> = ["avc1", "mp4a"]

    /// Creates a profile.
    public init(
        rungs: [Rung], audioSampleRate: Int = 48_000, audioChannels: Int = 2, segmentSeconds: Int = 6,
        segmentFormat: SegmentFormat = .fmp4, muxedAudio: Bool = false
    ) {
        self.rungs = Array(rungs.prefix(Self.maximumRungs))
        self.audioSampleRate = audioSampleRate
        self.audioChannels = audioChannels
        self.segmentSeconds = segmentSeconds
        self.segmentFormat = segmentFormat
        self.muxedAudio = muxedAudio
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

    /// This profile for stitching into the media playlists of `primary` whose segments are fMP4
    /// (`fMP4`) or MPEG-TS: the same renditions, in that segment format, with the audio muxed into
    /// the video segments when the primary's variants have no AUDIO group but declare an audio
    /// codec.
    ///
    /// - Throws: ``Refusal`` when a variant of `primary` declares no CODECS, or a codec other than
    ///   H.264 (`avc1`) and AAC (`mp4a.40`): the conditioner makes only those, so its asset could
    ///   not match (``conditionedCodecFamilies``). The message names the variant and the codec.
    public func stitching(into primary: MultivariantPlaylist, fMP4: Bool) throws(Refusal) -> ConditioningProfile {
        guard !primary.variants.isEmpty else { throw Refusal("the primary has no variants") }
        var muxed = false
        for variant in primary.variants {
            guard let codecs = variant.codecs, !codecs.isEmpty else {
                throw Refusal(
                    "the primary variant \(variant.uri) declares no CODECS, so a conditioned asset cannot be shown to match it"
                )
            }
            for codec in codecs {
                let family = String(codec.prefix { $0 != "." })
                guard Self.conditionedCodecFamilies.contains(family), family != "mp4a" || codec.hasPrefix("mp4a.40.")
                else {
                    throw Refusal(
                        "the primary variant \(variant.uri) declares CODECS \(codec); the conditioner makes H.264 (avc1) video and AAC (mp4a.40) audio only"
                    )
                }
            }
            if variant.audio == nil, codecs.contains(where: { $0.hasPrefix("mp4a") }) { muxed = true }
        }
        var profile = self
        profile.segmentFormat = fMP4 ? .fmp4 : .mpegts
        profile.muxedAudio = muxed
        return profile
    }

    /// A stable text of the whole profile (part of a conditioned creative's cache key). The
    /// interstitial form's profiles (fMP4, audio apart) write nothing for those, so their keys are
    /// those of assets made before the stitched form's formats existed.
    public var description: String {
        rungs.map { "\($0.width)x\($0.height)@\($0.frameRate)/\($0.bitRate)" }.joined(separator: ",")
            + ";a\(audioSampleRate)x\(audioChannels);s\(segmentSeconds)"
            + (segmentFormat == .fmp4 ? "" : ";\(segmentFormat.rawValue)") + (muxedAudio ? ";muxed" : "")
    }

    /// The ffmpeg arguments that turn the file at `input` into the HLS asset in the directory
    /// `output`: `master.m3u8`, `video_N/main.m3u8` (N from 0, highest first) and `audio/main.m3u8`
    /// with their segments: fMP4 (`segNNN.m4s` after `init.mp4`) or MPEG-TS (`segNNN.ts`), as
    /// ``segmentFormat`` says. With ``muxedAudio`` each video rendition carries the audio and there
    /// is no audio playlist. Without an audio track (`hasAudio` false), silence is encoded, so the
    /// asset has the primary's track layout.
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
        let audio = hasAudio ? "0:a:0" : "1:a:0"
        arguments += ["-sc_threshold", "0", "-pix_fmt", "yuv420p"]
        // Muxed: one audio stream per video rendition, each in its segments; else one audio rendition.
        for _ in 0..<(muxedAudio ? rungs.count : 1) { arguments += ["-map", audio] }
        arguments += [
            "-c:a", "aac", "-b:a", "128k",
            "-ar", "\(audioSampleRate)", "-ac", "\(audioChannels)", "-shortest",
            "-f", "hls", "-hls_time", "\(segmentSeconds)", "-hls_playlist_type", "vod",
            "-hls_segment_type", segmentFormat == .fmp4 ? "fmp4" : "mpegts", "-hls_flags", "independent_segments",
            "-master_pl_name", "master.m3u8",
            "-var_stream_map",
            muxedAudio
                ? rungs.indices.map { "v:\($0),a:\($0),name:video_\($0)" }.joined(separator: " ")
                : (rungs.indices.map { "v:\($0),agroup:audio,name:video_\($0)" }
                    + ["a:0,agroup:audio,name:audio,default:yes"]).joined(separator: " "),
        ]
        switch segmentFormat {
        case .fmp4:
            arguments += [
                "-hls_segment_filename", output + "/%v/seg%03d.m4s", "-hls_fmp4_init_filename", "init.mp4",
            ]
        case .mpegts:
            arguments += ["-hls_segment_filename", output + "/%v/seg%03d.ts"]
        }
        arguments.append(output + "/%v/main.m3u8")
        return arguments
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
