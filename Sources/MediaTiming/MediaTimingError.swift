/// A problem in a media segment: a stable code, where it is (byte offset and box path, or packet
/// index and PID) and what is wrong.
///
/// Reading never crashes on bad input: every declared size, count and length is checked against the
/// bytes that are actually there before it is used, and the first problem that stops reading is
/// thrown as this error. Problems that do not stop reading are kept in ``SegmentTiming/warnings``.
public struct MediaTimingError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The stable code of a media timing problem.
    public enum Code: String, Hashable, Sendable, Codable, CaseIterable {
        /// The input is none of the formats HLS allows for media segments.
        case unknownFormat = "media-format-unknown"
        /// The input ends inside a structure (box, header, table) that declares more bytes.
        case truncated = "media-truncated"
        /// A box size is smaller than its header or larger than its parent.
        case boxSize = "media-box-size"
        /// Boxes are nested deeper than ``MediaTimingParser/maximumBoxDepth``.
        case boxDepth = "media-box-depth"
        /// A box that the format requires is missing.
        case missingBox = "media-box-missing"
        /// A box holds a value that the format does not allow.
        case invalidBox = "media-box-invalid"
        /// A `trun` declares more samples than its box holds.
        case sampleCountOverrun = "media-trun-overrun"
        /// Sample data lies outside the bytes given.
        case sampleDataOutside = "media-sample-data-outside"
        /// A media segment refers to a track that its initialization segment does not describe.
        case unknownTrack = "media-track-unknown"
        /// An fMP4 media segment was given without the initialization segment that holds its timescales.
        case initSegmentRequired = "media-init-required"
        /// A media segment has no `tfdt`, so its start time is not known.
        case missingDecodeTime = "media-tfdt-missing"
        /// A transport stream packet does not start with the sync byte 0x47.
        case syncByte = "media-ts-sync"
        /// A transport stream ends with a partial packet.
        case partialPacket = "media-ts-partial-packet"
        /// A continuity counter skips, so packets were lost.
        case continuity = "media-ts-continuity"
        /// A PAT or PMT section is malformed.
        case programTable = "media-ts-psi"
        /// A transport stream has no PAT or no PMT.
        case missingProgramTable = "media-ts-psi-missing"
        /// A PES packet header is malformed.
        case pesHeader = "media-ts-pes"
        /// An elementary stream packet belongs to no PES packet (the stream was cut mid-packet).
        case orphanPayload = "media-ts-orphan-payload"
        /// An audio frame header (ADTS, MPEG audio, AC-3) is malformed.
        case audioFrame = "media-audio-frame"
        /// An ID3 tag is malformed.
        case id3Tag = "media-id3"
        /// Packed audio has no `com.apple.streaming.transportStreamTimestamp` ID3 PRIV frame.
        case missingTimestamp = "media-id3-timestamp-missing"
        /// Input was skipped that is neither a frame nor a tag.
        case skippedBytes = "media-skipped-bytes"
        /// More warnings were found than are kept.
        case warningLimit = "media-warning-limit"
    }

    /// The stable code, such as `media-trun-overrun`.
    public var code: Code
    /// The byte offset in the input where the problem is.
    public var offset: Int
    /// The structure at that offset: a box path such as `moof/traf[1]/trun`, or `packet 12 PID 0x0100`.
    public var path: String
    /// What is wrong, quoting the rule where there is one.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, offset: Int, path: String, _ message: String) {
        self.code = code
        self.offset = offset
        self.path = path
        self.message = message
    }

    /// `byte OFFSET (PATH): [code] message`.
    public var description: String {
        let place = path.isEmpty ? "byte \(offset)" : "byte \(offset) (\(path))"
        return "\(place): [\(code.rawValue)] \(message)"
    }

    /// The text form for a command line: `source: error: byte OFFSET (PATH): [code] message`.
    public func rendered(source: String, severity: String = "error") -> String {
        "\(source): \(severity): \(description)"
    }
}
