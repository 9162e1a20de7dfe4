/// Unwraps 33-bit MPEG-TS timestamps (90 kHz, wrapping every 2^33 ticks, about 26.5 hours) into a
/// continuous count: each value is placed within ±2^32 ticks of the previous one.
struct TimestampUnwrapper {
    /// 2^33.
    static let modulus: Int64 = 1 << 33
    private(set) var last: Int64?

    /// An unwrapper whose first value is placed near `reference` (the segment's first timestamp, so
    /// that streams wrapping at different packets stay comparable).
    init(reference: Int64? = nil) { last = reference }

    /// The unwrapped value of the 33-bit `raw`.
    mutating func unwrap(_ raw: UInt64) -> Int64 {
        let value = Int64(raw & UInt64(Self.modulus - 1))
        guard let last else {
            self.last = value
            return value
        }
        var delta = (value - last) % Self.modulus
        if delta < 0 { delta += Self.modulus }
        if delta >= Self.modulus / 2 { delta -= Self.modulus }
        let result = last + delta
        self.last = result
        return result
    }
}
