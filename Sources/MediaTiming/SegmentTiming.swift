/// What ``MediaTimingParser/parse(_:initSegment:)`` measured in one segment: its format and each
/// track's timing, with the problems that did not stop reading.
public struct SegmentTiming: Hashable, Sendable, Codable {
    /// The container format.
    public var format: MediaFormat
    /// The size of the segment in bytes.
    public var byteCount: Int
    /// Each track's timing, in the order the tracks appear (fMP4 `traf` order, PMT order).
    public var tracks: [TrackTiming]
    /// The initialization segment, when the input holds a `moov` (an initialization segment, or a
    /// self-contained MP4).
    public var initSegment: InitSegment?
    /// The `mfhd` sequence number of the first movie fragment.
    public var sequenceNumber: UInt32?
    /// The `sidx` boxes of an fMP4 media segment.
    public var segmentIndexes: [SegmentIndex]
    /// The `com.apple.streaming.transportStreamTimestamp` of packed audio's ID3 tag, in 90 kHz units.
    public var id3Timestamp: TimescaledTime?
    /// Problems that did not stop reading (lost packets, skipped bytes, a missing timestamp), at most
    /// ``MediaTimingParser/maximumWarnings`` and one ``MediaTimingError/Code/warningLimit`` summary.
    public var warnings: [MediaTimingError]

    /// Creates a segment timing.
    public init(
        format: MediaFormat, byteCount: Int, tracks: [TrackTiming], initSegment: InitSegment? = nil,
        sequenceNumber: UInt32? = nil, segmentIndexes: [SegmentIndex] = [], id3Timestamp: TimescaledTime? = nil,
        warnings: [MediaTimingError] = []
    ) {
        self.format = format
        self.byteCount = byteCount
        self.tracks = tracks
        self.initSegment = initSegment
        self.sequenceNumber = sequenceNumber
        self.segmentIndexes = segmentIndexes
        self.id3Timestamp = id3Timestamp
        self.warnings = warnings
    }

    /// The first track of `kind`.
    public func track(_ kind: TrackKind) -> TrackTiming? { tracks.first { $0.kind == kind } }
}
