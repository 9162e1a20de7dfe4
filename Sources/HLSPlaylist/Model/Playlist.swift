/// The meaning of a playlist: a Media Playlist or a Multivariant Playlist (§4.4).
public enum Playlist: Hashable, Sendable {
    /// A Media Playlist: a list of media segments.
    case media(MediaPlaylist)
    /// A Multivariant Playlist: variant streams and renditions.
    case multivariant(MultivariantPlaylist)

    /// The media playlist, if this is one.
    public var media: MediaPlaylist? {
        if case .media(let playlist) = self { return playlist }
        return nil
    }

    /// The multivariant playlist, if this is one.
    public var multivariant: MultivariantPlaylist? {
        if case .multivariant(let playlist) = self { return playlist }
        return nil
    }

    /// `"media"` or `"multivariant"`.
    public var kindName: String {
        switch self {
        case .media: "media"
        case .multivariant: "multivariant"
        }
    }
}

extension Playlist: Codable {
    private enum CodingKeys: String, CodingKey { case kind, media, multivariant }

    /// Decodes `{"kind": "media", "media": {…}}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "multivariant":
            self = .multivariant(try container.decode(MultivariantPlaylist.self, forKey: .multivariant))
        default: self = .media(try container.decode(MediaPlaylist.self, forKey: .media))
        }
    }

    /// Encodes `{"kind": "media", "media": {…}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kindName, forKey: .kind)
        switch self {
        case .media(let playlist): try container.encode(playlist, forKey: .media)
        case .multivariant(let playlist): try container.encode(playlist, forKey: .multivariant)
        }
    }
}

/// A tag the library does not know, kept in order (clients ignore unknown tags, §6.3.1).
public struct UnknownTag: Hashable, Sendable, Codable {
    /// The tag name.
    public var name: TagName
    /// The text after `:`, if any.
    public var value: String?
    /// The 1-based line number.
    public var line: Int

    /// Creates a value.
    public init(name: TagName, value: String?, line: Int) {
        self.name = name
        self.value = value
        self.line = line
    }
}

/// An EXT-X-DEFINE variable (§4.4.2.3).
public struct VariableDefinition: Hashable, Sendable, Codable {
    /// How the value was given.
    public enum Source: String, Hashable, Sendable, Codable {
        /// `VALUE="…"`.
        case value
        /// `IMPORT="…"` from the Multivariant Playlist.
        case `import`
        /// `QUERYPARAM="…"` from the playlist URI's query.
        case queryParameter
    }
    /// The variable name.
    public var name: String
    /// The value in force (nil when it could not be resolved).
    public var value: String?
    /// How it was defined.
    public var source: Source
    /// The 1-based line number.
    public var line: Int
}

/// EXT-X-START: the preferred point to start playing (§4.4.2.2).
public struct StartPoint: Hashable, Sendable, Codable {
    /// Seconds from the start (positive) or from the end (negative) of the playlist.
    public var timeOffset: MediaTime
    /// Whether to start exactly there (`PRECISE=YES`).
    public var precise: Bool

    /// Creates a value.
    public init(timeOffset: MediaTime, precise: Bool) {
        self.timeOffset = timeOffset
        self.precise = precise
    }
}

/// EXT-X-KEY or EXT-X-SESSION-KEY (§4.4.4.4).
public struct EncryptionKey: Hashable, Sendable, Codable {
    /// `NONE`, `AES-128`, `SAMPLE-AES`, `SAMPLE-AES-CTR`.
    public var method: String
    /// The key URI.
    public var uri: String?
    /// The IV as written (`0x…`).
    public var iv: String?
    /// KEYFORMAT (default `identity`).
    public var keyFormat: String?
    /// KEYFORMATVERSIONS as written.
    public var keyFormatVersions: String?
    /// Every attribute as written.
    public var attributes: AttributeList
}

/// EXT-X-MAP: the Media Initialization Section (§4.4.4.5).
public struct MediaInitializationSection: Hashable, Sendable, Codable {
    /// The resource URI.
    public var uri: String
    /// The byte range, if any.
    public var byteRange: ByteRange?
    /// Every attribute as written.
    public var attributes: AttributeList
}
