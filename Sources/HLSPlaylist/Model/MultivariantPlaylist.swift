/// A Multivariant Playlist (§4.4.6).
public struct MultivariantPlaylist: Hashable, Sendable, Codable {
    /// EXT-X-VERSION.
    public var version: UInt64?
    /// EXT-X-INDEPENDENT-SEGMENTS present.
    public var independentSegments: Bool
    /// EXT-X-START.
    public var start: StartPoint?
    /// EXT-X-DEFINE variables.
    public var definitions: [VariableDefinition]
    /// EXT-X-STREAM-INF variant streams, in order.
    public var variants: [VariantStream]
    /// EXT-X-I-FRAME-STREAM-INF variant streams, in order.
    public var iFrameVariants: [VariantStream]
    /// EXT-X-MEDIA renditions, in order.
    public var renditions: [Rendition]
    /// EXT-X-SESSION-DATA.
    public var sessionData: [SessionData]
    /// EXT-X-SESSION-KEY.
    public var sessionKeys: [EncryptionKey]
    /// EXT-X-CONTENT-STEERING.
    public var contentSteering: ContentSteering?
    /// Unknown tags, in order.
    public var unknownTags: [UnknownTag]
}

/// EXT-X-STREAM-INF or EXT-X-I-FRAME-STREAM-INF (§4.4.6.2, §4.4.6.3).
public struct VariantStream: Hashable, Sendable, Codable {
    /// The Media Playlist URI (the next line, or the URI attribute of an I-frame stream).
    public var uri: String
    /// BANDWIDTH (REQUIRED).
    public var bandwidth: UInt64?
    /// AVERAGE-BANDWIDTH.
    public var averageBandwidth: UInt64?
    /// SCORE.
    public var score: Double?
    /// CODECS, split at commas.
    public var codecs: [String]?
    /// SUPPLEMENTAL-CODECS.
    public var supplementalCodecs: String?
    /// RESOLUTION.
    public var resolution: Resolution?
    /// FRAME-RATE.
    public var frameRate: Double?
    /// HDCP-LEVEL.
    public var hdcpLevel: String?
    /// ALLOWED-CPC.
    public var allowedCPC: String?
    /// VIDEO-RANGE.
    public var videoRange: String?
    /// REQ-VIDEO-LAYOUT.
    public var requiredVideoLayout: String?
    /// STABLE-VARIANT-ID.
    public var stableVariantID: String?
    /// AUDIO group.
    public var audio: String?
    /// VIDEO group.
    public var video: String?
    /// SUBTITLES group.
    public var subtitles: String?
    /// CLOSED-CAPTIONS group, or `NONE`.
    public var closedCaptions: String?
    /// PATHWAY-ID.
    public var pathwayID: String?
    /// Every attribute as written.
    public var attributes: AttributeList
    /// The 1-based line number of the tag.
    public var line: Int
}

/// EXT-X-MEDIA: an alternative rendition (§4.4.6.1).
public struct Rendition: Hashable, Sendable, Codable {
    /// `AUDIO`, `VIDEO`, `SUBTITLES` or `CLOSED-CAPTIONS`.
    public var type: String
    /// URI of its Media Playlist.
    public var uri: String?
    /// GROUP-ID.
    public var groupID: String
    /// LANGUAGE.
    public var language: String?
    /// ASSOC-LANGUAGE.
    public var associatedLanguage: String?
    /// NAME.
    public var name: String
    /// STABLE-RENDITION-ID.
    public var stableRenditionID: String?
    /// DEFAULT=YES.
    public var isDefault: Bool
    /// AUTOSELECT=YES.
    public var autoselect: Bool
    /// FORCED=YES.
    public var forced: Bool
    /// INSTREAM-ID.
    public var instreamID: String?
    /// BIT-DEPTH.
    public var bitDepth: UInt64?
    /// SAMPLE-RATE.
    public var sampleRate: UInt64?
    /// CHARACTERISTICS, split at commas.
    public var characteristics: [String]
    /// CHANNELS, split at `/`.
    public var channels: [String]
    /// Every attribute as written.
    public var attributes: AttributeList
    /// The 1-based line number.
    public var line: Int
}

/// EXT-X-SESSION-DATA (§4.4.6.4).
public struct SessionData: Hashable, Sendable, Codable {
    /// DATA-ID.
    public var dataID: String
    /// VALUE.
    public var value: String?
    /// URI.
    public var uri: String?
    /// FORMAT (`JSON` or `RAW`).
    public var format: String?
    /// LANGUAGE.
    public var language: String?
    /// The 1-based line number.
    public var line: Int
}

/// EXT-X-CONTENT-STEERING (§4.4.6.6).
public struct ContentSteering: Hashable, Sendable, Codable {
    /// SERVER-URI.
    public var serverURI: String
    /// PATHWAY-ID.
    public var pathwayID: String?

    /// Creates a value.
    public init(serverURI: String, pathwayID: String?) {
        self.serverURI = serverURI
        self.pathwayID = pathwayID
    }
}
