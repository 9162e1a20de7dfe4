import MediaTiming

/// The segments of one media playlist that `StreamValidator` read, with what it measured in them.
public struct MeasuredPlaylist: Sendable, Hashable, Codable {
    /// One segment read (or that could not be read).
    public struct Segment: Sendable, Hashable, Codable {
        /// Its 0-based position in the playlist.
        public var index: Int
        /// Its URI as the playlist writes it.
        public var uri: String
        /// The 1-based line of its URI in the playlist.
        public var line: Int
        /// Its EXTINF duration in seconds.
        public var extinf: Double
        /// Whether EXT-X-DISCONTINUITY precedes it.
        public var discontinuity: Bool
        /// Its size in bytes (the byte range when it has one).
        public var byteCount: Int?
        /// The format read.
        public var format: MediaFormat?
        /// Each track's timing (see `TrackTiming`).
        public var tracks: [TrackTiming]
        /// How many problems the reader noted without stopping (`SegmentTiming.warnings`).
        public var readerWarnings: Int
        /// Why it could not be loaded or read.
        public var failure: String?

        /// Creates a segment measurement.
        public init(
            index: Int, uri: String, line: Int, extinf: Double, discontinuity: Bool, byteCount: Int? = nil,
            format: MediaFormat? = nil, tracks: [TrackTiming] = [], readerWarnings: Int = 0, failure: String? = nil
        ) {
            self.index = index
            self.uri = uri
            self.line = line
            self.extinf = extinf
            self.discontinuity = discontinuity
            self.byteCount = byteCount
            self.format = format
            self.tracks = tracks
            self.readerWarnings = readerWarnings
            self.failure = failure
        }

        /// The measured duration in seconds: the video track's, else the longest track's.
        public var measuredDuration: Double? {
            if let video = tracks.first(where: { $0.kind == .video }) { return video.duration.seconds }
            return tracks.map(\.duration.seconds).max()
        }

        /// The segment bit rate in bits per second: its size divided by its EXTINF duration (the
        /// specification's definition, container overhead included).
        public var bitrate: Double? {
            guard let byteCount, extinf > 0 else { return nil }
            return Double(byteCount) * 8 / extinf
        }

        /// The first track of `kind`.
        public func track(_ kind: TrackKind) -> TrackTiming? { tracks.first { $0.kind == kind } }

        private enum CodingKeys: String, CodingKey {
            case index, uri, line, extinf, discontinuity, byteCount, format, tracks, readerWarnings, failure
            case measuredDuration, bitrate
        }

        /// Decodes the form ``encode(to:)`` writes (the derived values are not read).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            index = try container.decode(Int.self, forKey: .index)
            uri = try container.decode(String.self, forKey: .uri)
            line = try container.decode(Int.self, forKey: .line)
            extinf = try container.decode(Double.self, forKey: .extinf)
            discontinuity = try container.decode(Bool.self, forKey: .discontinuity)
            byteCount = try container.decodeIfPresent(Int.self, forKey: .byteCount)
            format = try container.decodeIfPresent(MediaFormat.self, forKey: .format)
            tracks = try container.decode([TrackTiming].self, forKey: .tracks)
            readerWarnings = try container.decode(Int.self, forKey: .readerWarnings)
            failure = try container.decodeIfPresent(String.self, forKey: .failure)
        }

        /// Encodes the stored values and the derived `measuredDuration` and `bitrate`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(uri, forKey: .uri)
            try container.encode(line, forKey: .line)
            try container.encode(extinf, forKey: .extinf)
            try container.encode(discontinuity, forKey: .discontinuity)
            try container.encodeIfPresent(byteCount, forKey: .byteCount)
            try container.encodeIfPresent(format, forKey: .format)
            try container.encode(tracks, forKey: .tracks)
            try container.encode(readerWarnings, forKey: .readerWarnings)
            try container.encodeIfPresent(failure, forKey: .failure)
            try container.encodeIfPresent(measuredDuration, forKey: .measuredDuration)
            try container.encodeIfPresent(bitrate.map { Int($0.rounded()) }, forKey: .bitrate)
        }
    }

    /// The playlist's URL or path.
    public var location: String
    /// The interstitial whose asset it belongs to; nil for the primary presentation.
    public var interstitial: String?
    /// How many segments the playlist has.
    public var segmentCount: Int
    /// Its EXT-X-TARGETDURATION.
    public var targetDuration: Int?
    /// The segments read, in playlist order.
    public var segments: [Segment]
    /// Segments left out: encrypted, EXT-X-GAP, or past the download budget.
    public var skipped: Int

    /// Creates a playlist measurement.
    public init(
        location: String, interstitial: String? = nil, segmentCount: Int, targetDuration: Int? = nil,
        segments: [Segment] = [], skipped: Int = 0
    ) {
        self.location = location
        self.interstitial = interstitial
        self.segmentCount = segmentCount
        self.targetDuration = targetDuration
        self.segments = segments
        self.skipped = skipped
    }

    /// The segments whose timing was read.
    public var measured: [Segment] { segments.filter { $0.failure == nil } }

    /// The peak segment bit rate of the segments read, in bits per second: the largest bit rate of any
    /// run of consecutive segments lasting 0.5 to 1.5 times the target duration (the specification's
    /// definition), or of any single segment when no run qualifies.
    public var peakBitrate: Int? {
        let sized = segments.filter { $0.byteCount != nil && $0.extinf > 0 }
        guard !sized.isEmpty else { return nil }
        let target = Double(targetDuration ?? 0)
        var peak = 0.0
        var qualified = false
        for start in sized.indices {
            var bits = 0.0
            var seconds = 0.0
            var position = start
            while position < sized.endIndex,
                position == start || sized[position].index == sized[position - 1].index + 1
            {
                bits += Double(sized[position].byteCount ?? 0) * 8
                seconds += sized[position].extinf
                if target > 0, seconds > 1.5 * target { break }
                if target > 0, seconds >= 0.5 * target {
                    peak = qualified ? Swift.max(peak, bits / seconds) : bits / seconds
                    qualified = true
                }
                position += 1
            }
        }
        if !qualified { peak = sized.compactMap(\.bitrate).max() ?? 0 }
        return Int(peak.rounded())
    }

    /// The average segment bit rate of the segments read, in bits per second: their sizes over their
    /// EXTINF durations (an estimate of the playlist's when only a sample was read).
    public var averageBitrate: Int? {
        let sized = segments.filter { $0.byteCount != nil }
        let seconds = sized.map(\.extinf).reduce(0, +)
        guard seconds > 0 else { return nil }
        return Int((Double(sized.compactMap(\.byteCount).reduce(0, +)) * 8 / seconds).rounded())
    }

    /// The codecs measured, in order of first appearance.
    public var codecs: [String] {
        var seen: Set<String> = []
        return measured.flatMap(\.tracks).compactMap(\.codec).filter { seen.insert($0).inserted }
    }

    /// The largest difference between an EXTINF and the measured duration, in seconds.
    public var largestDurationError: Double? {
        measured.compactMap { segment in segment.measuredDuration.map { abs($0 - segment.extinf) } }.max()
    }

    private enum CodingKeys: String, CodingKey {
        case location, interstitial, segmentCount, targetDuration, segments, skipped, peakBitrate, averageBitrate
        case codecs
    }

    /// Decodes the form ``encode(to:)`` writes (the derived values are not read).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        location = try container.decode(String.self, forKey: .location)
        interstitial = try container.decodeIfPresent(String.self, forKey: .interstitial)
        segmentCount = try container.decode(Int.self, forKey: .segmentCount)
        targetDuration = try container.decodeIfPresent(Int.self, forKey: .targetDuration)
        segments = try container.decode([Segment].self, forKey: .segments)
        skipped = try container.decode(Int.self, forKey: .skipped)
    }

    /// Encodes the stored values and the derived peak and average bit rates and codecs.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(location, forKey: .location)
        try container.encodeIfPresent(interstitial, forKey: .interstitial)
        try container.encode(segmentCount, forKey: .segmentCount)
        try container.encodeIfPresent(targetDuration, forKey: .targetDuration)
        try container.encode(segments, forKey: .segments)
        try container.encode(skipped, forKey: .skipped)
        try container.encodeIfPresent(peakBitrate, forKey: .peakBitrate)
        try container.encodeIfPresent(averageBitrate, forKey: .averageBitrate)
        try container.encode(codecs, forKey: .codecs)
    }
}
