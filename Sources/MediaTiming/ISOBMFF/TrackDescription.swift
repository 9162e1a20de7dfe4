/// One track of an ISO BMFF initialization segment (a `trak` box, with its `trex` defaults).
public struct TrackDescription: Hashable, Sendable, Codable {
    /// `track_ID` from `tkhd`.
    public var trackID: UInt32
    /// What the track carries, from the `hdlr` handler type.
    public var kind: TrackKind
    /// The `hdlr` handler type, such as `vide` or `soun`.
    public var handlerType: String
    /// The `mdhd` timescale: ticks per second of every time in the track.
    public var timescale: UInt32
    /// The `mdhd` duration (0 in fragmented files, whose fragments carry the samples).
    public var duration: TimescaledTime
    /// The sample entry type of the first `stsd` entry, such as `avc1`, `mp4a`, `ec-3` or `encv`.
    public var sampleEntryType: String
    /// The codec as the HLS `CODECS` attribute writes it (RFC 6381), such as `avc1.64001f` or `mp4a.40.2`.
    public var codec: String?
    /// Video width in pixels, from the visual sample entry.
    public var width: Int?
    /// Video height in pixels, from the visual sample entry.
    public var height: Int?
    /// Audio sample rate in Hz, from the audio sample entry or its decoder configuration.
    public var sampleRate: Int?
    /// Audio channel count, from the audio sample entry or its decoder configuration.
    public var channelCount: Int?
    /// The `trex` defaults for the track's fragments (all zero when the file is not fragmented).
    public var fragmentDefaults: TrackFragmentDefaults
    /// The shift an edit list (`edts/elst`) applies to presentation times, in the track's timescale:
    /// the empty edits' duration minus the first media edit's `media_time`; nil without an edit list.
    public var editListOffset: TimescaledTime?

    /// Creates a track description.
    public init(
        trackID: UInt32, kind: TrackKind, handlerType: String, timescale: UInt32, duration: TimescaledTime,
        sampleEntryType: String, codec: String? = nil, width: Int? = nil, height: Int? = nil, sampleRate: Int? = nil,
        channelCount: Int? = nil, fragmentDefaults: TrackFragmentDefaults = TrackFragmentDefaults(),
        editListOffset: TimescaledTime? = nil
    ) {
        self.trackID = trackID
        self.kind = kind
        self.handlerType = handlerType
        self.timescale = timescale
        self.duration = duration
        self.sampleEntryType = sampleEntryType
        self.codec = codec
        self.width = width
        self.height = height
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.fragmentDefaults = fragmentDefaults
        self.editListOffset = editListOffset
    }
}
