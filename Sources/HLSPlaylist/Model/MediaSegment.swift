/// A media segment and everything that applies to it (§3, §4.4.4).
public struct MediaSegment: Hashable, Sendable, Codable {
    /// The URI (variables substituted).
    public var uri: String
    /// The EXTINF duration, exact.
    public var duration: MediaTime
    /// The EXTINF title, if any.
    public var title: String?
    /// EXT-X-BYTERANGE, if any.
    public var byteRange: ByteRange?
    /// Whether EXT-X-DISCONTINUITY precedes it.
    public var discontinuity: Bool
    /// The keys in force (empty when unencrypted).
    public var keys: [EncryptionKey]
    /// The Media Initialization Section in force.
    public var map: MediaInitializationSection?
    /// The EXT-X-PROGRAM-DATE-TIME written on this segment, if any.
    public var programDateTime: DateTime?
    /// The segment's date: its own PROGRAM-DATE-TIME, or derived from the nearest one by EXTINF
    /// durations (behavior profile R1). Nil when the playlist has no PROGRAM-DATE-TIME.
    public var date: DateTime?
    /// Where the segment starts on the playlist's timeline (the sum of the durations before it).
    public var startTime: MediaTime
    /// Whether EXT-X-GAP marks it as missing.
    public var gap: Bool
    /// EXT-X-BITRATE in force, in kbps.
    public var bitrate: UInt64?
    /// Its partial segments (LL-HLS).
    public var parts: [PartialSegment]
    /// Its Media Sequence Number.
    public var mediaSequence: UInt64
    /// Its Discontinuity Sequence Number.
    public var discontinuitySequence: UInt64
    /// The 1-based line number of its URI line.
    public var line: Int

    /// Where the segment ends on the playlist's timeline.
    public var endTime: MediaTime { startTime + duration }
}

/// EXT-X-PART: a partial segment (§4.4.4.9).
public struct PartialSegment: Hashable, Sendable, Codable {
    /// The URI.
    public var uri: String
    /// The duration.
    public var duration: MediaTime
    /// `INDEPENDENT=YES`.
    public var independent: Bool
    /// The byte range, if any.
    public var byteRange: ByteRange?
    /// `GAP=YES`.
    public var gap: Bool
    /// Every attribute as written.
    public var attributes: AttributeList
    /// The 1-based line number.
    public var line: Int
}
