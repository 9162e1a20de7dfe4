/// The name of a playlist tag, without the leading `#`: `EXTINF`, `EXT-X-DATERANGE`.
public struct TagName: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The name text without `#`.
    public let rawValue: String
    /// Which tag of the specification this is, if any (saves string comparisons when parsing).
    package let known: KnownTag?

    /// Creates a name.
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.known = KnownTag.byName[rawValue]
    }

    /// Creates a name from a literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public static func == (lhs: TagName, rhs: TagName) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The name text.
    public var description: String { rawValue }

    /// Decodes from a string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // §4.4.1 Basic tags
    public static let extm3u: TagName = "EXTM3U"
    public static let version: TagName = "EXT-X-VERSION"
    // §4.4.2 Media or Multivariant Playlist tags
    public static let independentSegments: TagName = "EXT-X-INDEPENDENT-SEGMENTS"
    public static let start: TagName = "EXT-X-START"
    public static let define: TagName = "EXT-X-DEFINE"
    // §4.4.3 Media Playlist tags
    public static let targetDuration: TagName = "EXT-X-TARGETDURATION"
    public static let mediaSequence: TagName = "EXT-X-MEDIA-SEQUENCE"
    public static let discontinuitySequence: TagName = "EXT-X-DISCONTINUITY-SEQUENCE"
    public static let endList: TagName = "EXT-X-ENDLIST"
    public static let playlistType: TagName = "EXT-X-PLAYLIST-TYPE"
    public static let iFramesOnly: TagName = "EXT-X-I-FRAMES-ONLY"
    public static let partInf: TagName = "EXT-X-PART-INF"
    public static let serverControl: TagName = "EXT-X-SERVER-CONTROL"
    // §4.4.4 Media Segment tags
    public static let extinf: TagName = "EXTINF"
    public static let byteRange: TagName = "EXT-X-BYTERANGE"
    public static let discontinuity: TagName = "EXT-X-DISCONTINUITY"
    public static let key: TagName = "EXT-X-KEY"
    public static let map: TagName = "EXT-X-MAP"
    public static let programDateTime: TagName = "EXT-X-PROGRAM-DATE-TIME"
    public static let gap: TagName = "EXT-X-GAP"
    public static let bitrate: TagName = "EXT-X-BITRATE"
    public static let part: TagName = "EXT-X-PART"
    // §4.4.5 Media Metadata tags
    public static let dateRange: TagName = "EXT-X-DATERANGE"
    public static let skip: TagName = "EXT-X-SKIP"
    public static let preloadHint: TagName = "EXT-X-PRELOAD-HINT"
    public static let renditionReport: TagName = "EXT-X-RENDITION-REPORT"
    // §4.4.6 Multivariant Playlist tags
    public static let media: TagName = "EXT-X-MEDIA"
    public static let streamInf: TagName = "EXT-X-STREAM-INF"
    public static let iFrameStreamInf: TagName = "EXT-X-I-FRAME-STREAM-INF"
    public static let sessionData: TagName = "EXT-X-SESSION-DATA"
    public static let sessionKey: TagName = "EXT-X-SESSION-KEY"
    public static let contentSteering: TagName = "EXT-X-CONTENT-STEERING"
}

/// The tags of draft-pantos-hls-rfc8216bis-22.
package enum KnownTag: UInt8, CaseIterable, Sendable {
    case extm3u, version, independentSegments, start, define, targetDuration, mediaSequence, discontinuitySequence
    case endList, playlistType, iFramesOnly, partInf, serverControl, extinf, byteRange, discontinuity, key, map
    case programDateTime, gap, bitrate, part, dateRange, skip, preloadHint, renditionReport, media, streamInf
    case iFrameStreamInf, sessionData, sessionKey, contentSteering

    /// The tag name without `#`, as static bytes.
    package var staticName: StaticString {
        switch self {
        case .extm3u: "EXTM3U"
        case .version: "EXT-X-VERSION"
        case .independentSegments: "EXT-X-INDEPENDENT-SEGMENTS"
        case .start: "EXT-X-START"
        case .define: "EXT-X-DEFINE"
        case .targetDuration: "EXT-X-TARGETDURATION"
        case .mediaSequence: "EXT-X-MEDIA-SEQUENCE"
        case .discontinuitySequence: "EXT-X-DISCONTINUITY-SEQUENCE"
        case .endList: "EXT-X-ENDLIST"
        case .playlistType: "EXT-X-PLAYLIST-TYPE"
        case .iFramesOnly: "EXT-X-I-FRAMES-ONLY"
        case .partInf: "EXT-X-PART-INF"
        case .serverControl: "EXT-X-SERVER-CONTROL"
        case .extinf: "EXTINF"
        case .byteRange: "EXT-X-BYTERANGE"
        case .discontinuity: "EXT-X-DISCONTINUITY"
        case .key: "EXT-X-KEY"
        case .map: "EXT-X-MAP"
        case .programDateTime: "EXT-X-PROGRAM-DATE-TIME"
        case .gap: "EXT-X-GAP"
        case .bitrate: "EXT-X-BITRATE"
        case .part: "EXT-X-PART"
        case .dateRange: "EXT-X-DATERANGE"
        case .skip: "EXT-X-SKIP"
        case .preloadHint: "EXT-X-PRELOAD-HINT"
        case .renditionReport: "EXT-X-RENDITION-REPORT"
        case .media: "EXT-X-MEDIA"
        case .streamInf: "EXT-X-STREAM-INF"
        case .iFrameStreamInf: "EXT-X-I-FRAME-STREAM-INF"
        case .sessionData: "EXT-X-SESSION-DATA"
        case .sessionKey: "EXT-X-SESSION-KEY"
        case .contentSteering: "EXT-X-CONTENT-STEERING"
        }
    }

    /// The tag name without `#`.
    package var name: String { staticName.description }

    static let byName: [String: KnownTag] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
}
