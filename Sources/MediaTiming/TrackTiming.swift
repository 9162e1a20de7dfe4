/// The timing of one track (fMP4 track, MPEG-TS elementary stream, or packed audio stream) in one segment.
public struct TrackTiming: Hashable, Sendable, Codable {
    /// The fMP4 `track_ID`, the MPEG-TS elementary PID, or 0 for packed audio.
    public var id: UInt32
    /// What the track carries.
    public var kind: TrackKind
    /// The codec as the HLS `CODECS` attribute writes it, when known (such as `avc1.64001f`, `mp4a.40.2`).
    public var codec: String?
    /// The MPEG-TS `stream_type` from the PMT (nil for other formats).
    public var streamType: UInt8?
    /// The decode time of the first sample: `tfdt`, the first PES DTS (or PTS), or the packed audio
    /// ID3 timestamp.
    public var decodeStart: TimescaledTime
    /// The earliest presentation time of any sample: `tfdt` plus the smallest composition offset, or
    /// the smallest PES PTS. Edit lists are not applied (see ``editListOffset``).
    public var presentationStart: TimescaledTime
    /// For fMP4, the shift the initialization segment's edit list applies to presentation times
    /// (nil when there is none; players that honour edit lists present at ``editedPresentationStart``).
    public var editListOffset: TimescaledTime?
    /// How long the track plays: the sum of the sample durations (fMP4), the PTS span plus one frame
    /// (MPEG-TS), or the frames' samples over the sample rate (audio).
    public var duration: TimescaledTime
    /// The bytes of media data: sample sizes (fMP4), PES payloads (MPEG-TS) or frames (packed audio).
    public var byteCount: Int
    /// The number of samples: fMP4 samples, video PES packets, or audio frames.
    public var sampleCount: Int
    /// Whether the first sample is a sync sample (a key frame): from the fMP4 sample flags, or the first
    /// video access unit's NAL unit types (H.264 IDR, HEVC IRAP). Audio frames are always sync samples;
    /// nil when there are no samples or it cannot be told.
    public var startsWithKeyFrame: Bool?
    /// The audio sample rate in Hz, when known.
    public var sampleRate: Int?

    /// Creates a track timing.
    public init(
        id: UInt32, kind: TrackKind, codec: String? = nil, streamType: UInt8? = nil, decodeStart: TimescaledTime,
        presentationStart: TimescaledTime, editListOffset: TimescaledTime? = nil, duration: TimescaledTime,
        byteCount: Int, sampleCount: Int, startsWithKeyFrame: Bool?, sampleRate: Int? = nil
    ) {
        self.id = id
        self.kind = kind
        self.codec = codec
        self.streamType = streamType
        self.decodeStart = decodeStart
        self.presentationStart = presentationStart
        self.editListOffset = editListOffset
        self.duration = duration
        self.byteCount = byteCount
        self.sampleCount = sampleCount
        self.startsWithKeyFrame = startsWithKeyFrame
        self.sampleRate = sampleRate
    }

    /// ``presentationStart`` shifted by ``editListOffset`` (the same when there is no edit list).
    public var editedPresentationStart: TimescaledTime {
        guard let editListOffset, editListOffset.timescale == presentationStart.timescale else {
            return presentationStart
        }
        return TimescaledTime(
            value: presentationStart.value &+ editListOffset.value, timescale: presentationStart.timescale)
    }

    /// Where the track ends, in seconds: ``presentationStart`` plus ``duration``.
    public var presentationEndSeconds: Double { presentationStart.seconds + duration.seconds }
}
