/// A Media Playlist (§4.4.3–§4.4.5).
public struct MediaPlaylist: Hashable, Sendable, Codable {
    /// EXT-X-VERSION.
    public var version: UInt64?
    /// EXT-X-TARGETDURATION in seconds (REQUIRED; nil when missing).
    public var targetDuration: UInt64?
    /// EXT-X-MEDIA-SEQUENCE (default 0).
    public var mediaSequence: UInt64
    /// EXT-X-DISCONTINUITY-SEQUENCE (default 0).
    public var discontinuitySequence: UInt64
    /// EXT-X-PLAYLIST-TYPE: `VOD` or `EVENT`.
    public var playlistType: String?
    /// EXT-X-ENDLIST present.
    public var hasEndList: Bool
    /// EXT-X-I-FRAMES-ONLY present.
    public var iFramesOnly: Bool
    /// EXT-X-INDEPENDENT-SEGMENTS present.
    public var independentSegments: Bool
    /// EXT-X-START.
    public var start: StartPoint?
    /// EXT-X-PART-INF PART-TARGET.
    public var partTarget: MediaTime?
    /// EXT-X-SERVER-CONTROL.
    public var serverControl: ServerControl?
    /// EXT-X-SKIP.
    public var skip: Skip?
    /// The media segments in order.
    public var segments: MediaSegments
    /// EXT-X-PART tags after the last segment (of the segment being produced).
    public var trailingParts: [PartialSegment]
    /// EXT-X-PRELOAD-HINT tags.
    public var preloadHints: [PreloadHint]
    /// EXT-X-RENDITION-REPORT tags.
    public var renditionReports: [RenditionReport]
    /// Date ranges, consolidated by ID, in order of first appearance.
    public var dateRanges: [DateRange]
    /// EXT-X-DEFINE variables.
    public var definitions: [VariableDefinition]
    /// Unknown tags, in order.
    public var unknownTags: [UnknownTag]

    /// The sum of the segment durations (exact).
    public var duration: MediaTime {
        guard let last = segments.indices.last else { return .zero }
        return segments.startTime(at: last) + segments.duration(at: last)
    }

    /// Whether the playlist may still change (no EXT-X-ENDLIST).
    public var isLive: Bool { !hasEndList }

    /// The first and last segment dates (the last segment's end), if the playlist has dates.
    public var dateRange: ClosedRange<DateTime>? {
        guard let last = segments.indices.last, let first = segments.date(at: 0), let lastDate = segments.date(at: last)
        else { return nil }
        return first...max(first, lastDate + segments.duration(at: last))
    }
}

/// EXT-X-SERVER-CONTROL (§4.4.3.8).
public struct ServerControl: Hashable, Sendable, Codable {
    /// CAN-SKIP-UNTIL.
    public var canSkipUntil: MediaTime?
    /// CAN-SKIP-DATERANGES=YES.
    public var canSkipDateRanges: Bool
    /// HOLD-BACK.
    public var holdBack: MediaTime?
    /// PART-HOLD-BACK.
    public var partHoldBack: MediaTime?
    /// CAN-BLOCK-RELOAD=YES.
    public var canBlockReload: Bool
}

/// EXT-X-SKIP (§4.4.5.2).
public struct Skip: Hashable, Sendable, Codable {
    /// SKIPPED-SEGMENTS.
    public var skippedSegments: UInt64
    /// RECENTLY-REMOVED-DATERANGES (tab-separated IDs).
    public var recentlyRemovedDateRanges: [String]

    /// Creates a value.
    public init(skippedSegments: UInt64, recentlyRemovedDateRanges: [String]) {
        self.skippedSegments = skippedSegments
        self.recentlyRemovedDateRanges = recentlyRemovedDateRanges
    }
}

/// EXT-X-PRELOAD-HINT (§4.4.5.3).
public struct PreloadHint: Hashable, Sendable, Codable {
    /// `PART` or `MAP`.
    public var type: String
    /// The URI.
    public var uri: String
    /// BYTERANGE-START.
    public var byteRangeStart: UInt64?
    /// BYTERANGE-LENGTH.
    public var byteRangeLength: UInt64?
    /// The 1-based line number.
    public var line: Int

    /// Creates a value.
    public init(type: String, uri: String, byteRangeStart: UInt64?, byteRangeLength: UInt64?, line: Int) {
        self.type = type
        self.uri = uri
        self.byteRangeStart = byteRangeStart
        self.byteRangeLength = byteRangeLength
        self.line = line
    }
}

/// EXT-X-RENDITION-REPORT (§4.4.5.4).
public struct RenditionReport: Hashable, Sendable, Codable {
    /// The URI of the other rendition's playlist.
    public var uri: String
    /// LAST-MSN.
    public var lastMediaSequence: UInt64?
    /// LAST-PART.
    public var lastPart: UInt64?
    /// The 1-based line number.
    public var line: Int
}
