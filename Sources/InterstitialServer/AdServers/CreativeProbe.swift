import HLSInterstitials

/// What ffprobe says of a downloaded creative, checked before ffmpeg conditions it: an MP4 with a
/// video stream, few streams, a duration and dimensions within bounds; anything else is refused.
///
/// ffprobe reads the file with the same restrictions as ffmpeg (``inputOptions``): as MP4 whatever
/// its bytes say (a playlist or a concat script named `.mp4` is not followed), local files only,
/// and no external data references, so a creative cannot make either read another file.
struct CreativeProbe: Hashable, Sendable {
    /// Whether the creative has an audio stream (else ffmpeg adds silence).
    var hasAudio: Bool
    /// Its duration, in seconds.
    var duration: Double

    /// The options before ffmpeg's and ffprobe's `-i` of a downloaded creative: the MP4 demuxer
    /// (never a format guessed from the content), the `file` protocol only, no data references.
    static let inputOptions = ["-f", "mp4", "-protocol_whitelist", "file", "-enable_drefs", "0"]
    /// The longest creative conditioned, in seconds.
    static let maximumDuration = 300.0
    /// The widest and tallest video conditioned, in pixels.
    static let maximumDimension = 8192
    /// The most pixels of a video frame conditioned (8K UHD).
    static let maximumPixels = 7680 * 4320
    /// The most streams a creative may have.
    static let maximumStreams = 8

    /// The ffprobe arguments that describe `input` as JSON for ``init(json:)``.
    static func arguments(input: String) -> [String] {
        ["-v", "error"] + inputOptions + [
            "-show_entries", "format=format_name,duration:stream=codec_type,width,height", "-of", "json", "-i", input,
        ]
    }

    /// Reads ffprobe's JSON (``arguments(input:)``) and checks it against the bounds.
    ///
    /// - Throws: ``Refusal`` that says which bound the creative is outside of.
    init(json: String) throws(Refusal) {
        guard case .object(let root) = try? JSONValue.parse(Array(json.utf8), code: JSONErrorCode.ffprobe),
            case .object(let format) = root["format"], case .array(let streams) = root["streams"] ?? .array([])
        else { throw Refusal("ffprobe did not describe it") }
        guard case .string(let name) = format["format_name"], name.split(separator: ",").contains("mp4") else {
            throw Refusal("it is not an MP4 file")
        }
        guard case .string(let text) = format["duration"], let duration = Double(text), duration.isFinite,
            duration > 0
        else { throw Refusal("it has no duration") }
        guard duration <= Self.maximumDuration else {
            throw Refusal("it lasts \(text) s, more than \(Int(Self.maximumDuration)) s")
        }
        guard streams.count <= Self.maximumStreams else {
            throw Refusal("it has \(streams.count) streams, more than \(Self.maximumStreams)")
        }
        var video = false
        var audio = false
        for stream in streams {
            guard case .object(let fields) = stream, case .string(let type) = fields["codec_type"] else { continue }
            switch type {
            case "video":
                guard case .integer(let width) = fields["width"], case .integer(let height) = fields["height"],
                    width > 0, height > 0, width <= Self.maximumDimension, height <= Self.maximumDimension,
                    width * height <= Self.maximumPixels
                else {
                    throw Refusal(
                        "its video is \(fields["width"].map { "\($0)" } ?? "?")×\(fields["height"].map { "\($0)" } ?? "?"), outside 1×1 to \(Self.maximumDimension) pixels a side and \(Self.maximumPixels) in all"
                    )
                }
                video = true
            case "audio": audio = true
            default: break
            }
        }
        guard video else { throw Refusal("it has no video stream") }
        hasAudio = audio
        self.duration = duration
    }

    /// Why a creative is not conditioned.
    struct Refusal: Error, Hashable, CustomStringConvertible {
        /// What is wrong with it.
        var description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
