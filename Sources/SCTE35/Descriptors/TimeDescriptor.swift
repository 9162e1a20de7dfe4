/// A `time_descriptor()` (tag 0x03): the wall-clock (TAI) time of the command's PTS.
///
/// ANSI/SCTE 35 §10.3.4: TAI_seconds (48 bits), TAI_ns (32 bits) and UTC_offset (16 bits), "the
/// number of seconds … to convert TAI to UTC".
public struct TimeDescriptor: Hashable, Sendable {
    /// TAI_seconds (48 bits).
    public var taiSeconds: UInt64
    /// TAI_ns.
    public var taiNanoseconds: UInt32
    /// UTC_offset.
    public var utcOffset: UInt16
    /// Bytes after the last field, within descriptor_length.
    public var trailingBytes: [UInt8]

    /// A time descriptor.
    public init(taiSeconds: UInt64, taiNanoseconds: UInt32, utcOffset: UInt16, trailingBytes: [UInt8] = []) {
        self.taiSeconds = taiSeconds
        self.taiNanoseconds = taiNanoseconds
        self.utcOffset = utcOffset
        self.trailingBytes = trailingBytes
    }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        taiSeconds = try reader.bits(48, "TAI_seconds")
        taiNanoseconds = try reader.uint32("TAI_ns")
        utcOffset = try reader.uint16("UTC_offset")
        trailingBytes = try reader.rest("trailing_bytes")
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        try writer.bits(taiSeconds, 48, "TAI_seconds")
        try writer.bits(UInt64(taiNanoseconds), 32, "TAI_ns")
        try writer.bits(UInt64(utcOffset), 16, "UTC_offset")
        writer.append(trailingBytes)
    }

    var jsonFields: [(String, JSONNode)] {
        [("TAI_seconds", .uint(taiSeconds)), ("TAI_ns", .uint(taiNanoseconds)), ("UTC_offset", .uint(utcOffset))]
    }
}
