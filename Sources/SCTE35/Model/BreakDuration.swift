/// A `break_duration()`: how long a break lasts and whether the splicer returns by itself.
///
/// ANSI/SCTE 35 §9.4.2: "auto_return … When set to '1', denotes that the duration shall be used by the
/// splicing device to know when the return to the network feed (end of break) is to take place"; duration
/// is 33 bits of 90 kHz ticks.
public struct BreakDuration: Hashable, Sendable {
    /// auto_return.
    public var autoReturn: Bool
    /// The 33-bit duration in 90 kHz ticks.
    public var duration: UInt64
    /// The 6 reserved bits as read; all ones by default.
    public var reservedBits: UInt8

    /// A break of `duration` ticks.
    public init(autoReturn: Bool, duration: UInt64, reservedBits: UInt8 = 0x3F) {
        self.autoReturn = autoReturn
        self.duration = duration
        self.reservedBits = reservedBits
    }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        let path = reader.path
        reader.path = reader.fieldPath("break_duration")
        defer { reader.path = path }
        autoReturn = try reader.flag("auto_return")
        reservedBits = UInt8(try reader.bits(6, "reserved"))
        duration = try reader.bits(33, "duration")
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        let path = writer.path
        writer.path = writer.fieldPath("break_duration")
        defer { writer.path = path }
        try writer.flag(autoReturn, "auto_return")
        try writer.bits(UInt64(reservedBits), 6, "reserved")
        try writer.bits(duration, 33, "duration")
    }

    var json: JSONNode { .object([("auto_return", .bool(autoReturn)), ("duration", .ticks(duration))]) }
}
