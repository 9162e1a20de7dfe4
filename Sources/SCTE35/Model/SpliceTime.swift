/// A `splice_time()`: a presentation time, or none (the time is given elsewhere or is immediate).
///
/// ANSI/SCTE 35 §9.4.1: "time_specified_flag … When set to '1', indicates the presence of the pts_time
/// field"; pts_time is 33 bits of 90 kHz ticks, to which pts_adjustment is added.
public struct SpliceTime: Hashable, Sendable {
    /// The 33-bit pts_time in 90 kHz ticks; `nil` when time_specified_flag is 0.
    public var ptsTime: UInt64?
    /// The reserved bits after the flag as read (6 bits with a time, 7 without); all ones by default.
    public var reservedBits: UInt8

    /// A time at `ptsTime` ticks, or an unspecified time.
    public init(ptsTime: UInt64?, reservedBits: UInt8? = nil) {
        self.ptsTime = ptsTime
        self.reservedBits = reservedBits ?? (ptsTime == nil ? 0x7F : 0x3F)
    }

    /// Whether the time is given (time_specified_flag).
    public var timeSpecified: Bool { ptsTime != nil }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        if try reader.flag("time_specified_flag") {
            reservedBits = UInt8(try reader.bits(6, "reserved"))
            ptsTime = try reader.bits(33, "pts_time")
        } else {
            reservedBits = UInt8(try reader.bits(7, "reserved"))
            ptsTime = nil
        }
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        try writer.flag(ptsTime != nil, "time_specified_flag")
        if let ptsTime {
            try writer.bits(UInt64(reservedBits), 6, "reserved")
            try writer.bits(ptsTime, 33, "pts_time")
        } else {
            try writer.bits(UInt64(reservedBits), 7, "reserved")
        }
    }

    var json: JSONNode {
        var fields: [(String, JSONNode)] = [("time_specified_flag", .bool(ptsTime != nil))]
        if let ptsTime { fields.append(("pts_time", .ticks(ptsTime))) }
        return .object(fields)
    }
}
