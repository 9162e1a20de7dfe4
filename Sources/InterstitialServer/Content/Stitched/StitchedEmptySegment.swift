import HLSInterstitials
import MediaTiming

/// The empty fMP4 subtitle segments a stitched subtitle playlist with EXT-X-MAP lists while an ad
/// plays (``StitchSubtitles/blank(mirroring:map:timescale:segmentURL:)``, profile R28): one URL
/// path, whose query says everything the segment is (its track, timescale, start, duration and
/// fragment number), so the server writes it (``SubtitleSegmentWriter``) without any state and any
/// cache in front of it can keep it.
///
/// ``url(base:track:span:)`` writes the URL and ``segment(query:)`` reads it back: one place for
/// both.
enum StitchedEmptySegment {
    /// The path of the segments.
    static let path = StitchedBeacons.prefix + "empty.m4s"

    /// The media type they are served with: the server's for every `.m4s` segment.
    static let mediaType = ContentResponse.contentType(of: path)

    /// The longest segment written, in seconds (a stitched segment is an ad segment's length).
    static let maximumSeconds: UInt64 = 3600

    /// The query parameters, in the order written.
    private static let names = ["format", "track", "timescale", "start", "duration", "sequence"]

    /// The URL of the empty segment of `track` for `span` of an ad.
    static func url(base: String, track: SubtitleSegmentWriter.Track, span: StitchSubtitles.FragmentSpan) -> String {
        base + path + "?format=\(track.format.rawValue)&track=\(track.trackID)&timescale=\(track.timescale)"
            + "&start=\(span.start)&duration=\(span.duration)&sequence=\(span.index + 1)"
    }

    /// The segment a request's `query` names.
    ///
    /// - Throws: 400 (`bad-request`, the parameter at fault as its path) for a missing, repeated or
    ///   unknown parameter, a format other than `wvtt` and `stpp`, a number that is not a decimal
    ///   integer in range (track, timescale, duration and sequence 1 to 2³²−1, start below 2⁶⁴), or
    ///   a duration longer than ``maximumSeconds``.
    static func segment(query: [(name: String, value: String)]) throws(APIError) -> [UInt8] {
        var values: [String: String] = [:]
        for (name, value) in query {
            guard names.contains(name) else {
                throw APIError.badRequest(
                    code: .badRequest, path: name,
                    "an empty subtitle segment takes only \(names.joined(separator: ", ")); \(name) is not one")
            }
            guard values.updateValue(value, forKey: name) == nil else {
                throw APIError.badRequest(code: .badRequest, path: name, "\(name) is given more than once")
            }
        }
        guard let format = SubtitleSegmentWriter.Format(rawValue: values["format"] ?? "") else {
            throw APIError.badRequest(
                code: .badRequest, path: "format", "format must be wvtt (WebVTT) or stpp (TTML), the subtitle track's")
        }
        let trackID = try number("track", values, limit: UInt64(UInt32.max))
        let timescale = try number("timescale", values, limit: UInt64(UInt32.max))
        let start = try number("start", values, limit: .max, allowsZero: true)
        let duration = try number("duration", values, limit: UInt64(UInt32.max))
        let sequence = try number("sequence", values, limit: UInt64(UInt32.max))
        guard duration <= maximumSeconds * timescale else {
            throw APIError.badRequest(
                code: .badRequest, path: "duration",
                "duration \(duration) at timescale \(timescale) is longer than \(maximumSeconds) s")
        }
        let track = SubtitleSegmentWriter.Track(trackID: UInt32(trackID), timescale: UInt32(timescale), format: format)
        return SubtitleSegmentWriter.empty(
            track, sequenceNumber: UInt32(sequence), start: start, duration: UInt32(duration))
    }

    /// The decimal integer `name` of `values`, 1 (0 when `allowsZero`) to `limit`.
    private static func number(
        _ name: String, _ values: [String: String], limit: UInt64, allowsZero: Bool = false
    ) throws(APIError) -> UInt64 {
        guard let text = values[name] else {
            throw APIError.badRequest(code: .badRequest, path: name, "\(name) is missing")
        }
        guard text.utf8.count <= 20, !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = UInt64(text), value <= limit, allowsZero || value > 0
        else {
            throw APIError.badRequest(
                code: .badRequest, path: name,
                "\(name) must be a decimal integer from \(allowsZero ? 0 : 1) to \(limit)")
        }
        return value
    }
}
