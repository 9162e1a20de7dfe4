import Foundation
import MediaTiming
import Testing

/// The media fixtures (made by Scripts/make-media-fixtures.sh) and their expected values.
enum Media {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/media")

    /// The bytes of fixture `name`.
    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }
}

/// One fixture of expected.json: a segment, its initialization segment, and ffprobe's view of its tracks.
struct MediaCase: Decodable, Sendable, CustomTestStringConvertible {
    /// ffprobe's view of one track.
    struct Track: Decodable, Sendable {
        var kind: String
        var start: Double
        var duration: Double
        var bytes: Int
        var packets: Int
        var keyFirst: Bool
        var codecName: String?
        var profile: String?
        var level: Int?
        var sampleRate: Int?
        var channels: Int?

        /// Whether `codec` (an HLS CODECS value) names what ffprobe saw: for H.264 the profile_idc and
        /// level_idc bytes of `avc1.PPCCLL`, for AAC the audio object type of `mp4a.40.N`, for MP3 `mp4a.40.34`.
        func matches(codec: String?) -> Bool {
            guard let codec else { return false }
            switch codecName {
            case "h264":
                let profiles = ["Baseline": 66, "Constrained Baseline": 66, "Main": 77, "High": 100]
                guard let profile = profile.flatMap({ profiles[$0] }), let level, codec.count == 11,
                    codec.hasPrefix("avc1.") || codec.hasPrefix("avc3.")
                else { return false }
                let hex = Array(codec.dropFirst(5))
                return Int(String(hex[0..<2]), radix: 16) == profile && Int(String(hex[4..<6]), radix: 16) == level
            case "aac":
                let types = ["LC": 2, "HE-AAC": 5, "HE-AACv2": 29, "Main": 1]
                return profile.flatMap { types[$0] }.map { codec == "mp4a.40.\($0)" } ?? false
            case "hevc":
                let profiles = ["Main": 1, "Main 10": 2, "Main Still Picture": 3, "Rext": 4]
                let parts = codec.split(separator: ".").map(String.init)
                guard let profile = profile.flatMap({ profiles[$0] }), let level, parts.count >= 4,
                    parts[0] == "hvc1" || parts[0] == "hev1"
                else { return false }
                return parts[1].drop { "ABC".contains($0) } == "\(profile)" && parts[3].dropFirst() == "\(level)"
            case "mp3": return codec == "mp4a.40.34"
            case "ac3": return codec == "ac-3"
            case "eac3": return codec == "ec-3"
            default: return false
            }
        }
    }

    var name: String
    var file: String
    var `init`: String?
    var id3Timestamp: Int64?
    var tracks: [Track]

    var testDescription: String { name }

    private struct Expected: Decodable { var cases: [MediaCase] }

    /// Every case of Tests/Fixtures/media/expected.json.
    static let all: [MediaCase] = {
        guard let data = try? Data(contentsOf: Media.fixtures.appendingPathComponent("expected.json")),
            let expected = try? JSONDecoder().decode(Expected.self, from: data)
        else { return [] }
        return expected.cases
    }()

    /// The parsed segment (with its initialization segment when it has one).
    func timing() throws -> SegmentTiming {
        let initSegment = try self.`init`.map { try MediaTimingParser.parseInitSegment(try Media.bytes($0)) }
        return try MediaTimingParser.parse(try Media.bytes(file), initSegment: initSegment)
    }
}
