/// A time on a media timeline: an integer count of ticks of a timescale (ticks per second).
///
/// fMP4 times use the track's `mdhd` timescale, MPEG-TS times the 90 kHz clock of PES timestamps,
/// packed audio durations the audio sample rate. Keeping the integer avoids rounding when times
/// are compared in the same timescale; ``seconds`` converts. Not `HLSPlaylist.MediaTime`, an exact
/// nanosecond time on a playlist's timeline: this one keeps the container's own ticks.
public struct TimescaledTime: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The number of ticks.
    public var value: Int64
    /// Ticks per second; never 0.
    public var timescale: UInt32

    /// Creates a time of `value` ticks of `timescale` per second (a timescale of 0 is taken as 1).
    public init(value: Int64, timescale: UInt32) {
        self.value = value
        self.timescale = max(timescale, 1)
    }

    /// The time in seconds.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// `seconds (value/timescale)`.
    public var description: String { "\(seconds) (\(value)/\(timescale))" }

    private enum CodingKeys: String, CodingKey { case value, timescale, seconds }

    /// Decodes `{"value", "timescale"}` (a `seconds` field is ignored).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            value: try container.decode(Int64.self, forKey: .value),
            timescale: try container.decode(UInt32.self, forKey: .timescale))
    }

    /// Encodes `{"value", "timescale", "seconds"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(timescale, forKey: .timescale)
        try container.encode(seconds, forKey: .seconds)
    }
}
