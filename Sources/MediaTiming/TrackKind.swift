/// What a track carries, from the fMP4 handler type or the MPEG-TS stream type.
public enum TrackKind: String, Hashable, Sendable, Codable {
    /// Video (`vide`, H.264, HEVC).
    case video
    /// Audio (`soun`, AAC, MP3, AC-3, E-AC-3).
    case audio
    /// Subtitles or captions (`subt`, `text`, `sbtl`).
    case subtitles
    /// Timed metadata (`meta`, ID3 in PES).
    case metadata
    /// Anything else.
    case other
}
