/// The container format of a segment, as ``MediaTimingParser/sniff(_:)`` recognises it.
public enum MediaFormat: String, Hashable, Sendable, Codable {
    /// ISO base media file format: fMP4 initialization or media segments, or a self-contained MP4.
    case isoBMFF = "iso-bmff"
    /// MPEG-2 transport stream (188-byte packets).
    case mpegTS = "mpeg-ts"
    /// Packed audio: ADTS AAC, MPEG audio (MP3), AC-3 or E-AC-3 frames, with ID3 tags.
    case packedAudio = "packed-audio"
}
