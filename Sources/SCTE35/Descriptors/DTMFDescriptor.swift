/// A `DTMF_descriptor()` (tag 0x01): DTMF tones a receiver sends before a splice.
///
/// ANSI/SCTE 35 §10.3.2: "preroll … the time the DTMF is presented to the analog output of the device in
/// tenths of seconds"; dtmf_count (3 bits) characters follow.
public struct DTMFDescriptor: Hashable, Sendable {
    /// preroll, in tenths of seconds.
    public var preroll: UInt8
    /// DTMF_char: the characters (at most 7), such as `1`, `*` or `#`.
    public var characters: [UInt8]
    /// The 5 reserved bits after dtmf_count as read; all ones by default.
    public var reservedBits: UInt8
    /// Bytes after the last field, within descriptor_length.
    public var trailingBytes: [UInt8]

    /// A DTMF descriptor.
    public init(preroll: UInt8, characters: [UInt8], reservedBits: UInt8 = 0x1F, trailingBytes: [UInt8] = []) {
        self.preroll = preroll
        self.characters = characters
        self.reservedBits = reservedBits
        self.trailingBytes = trailingBytes
    }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        preroll = try reader.uint8("preroll")
        let count = Int(try reader.bits(3, "dtmf_count"))
        reservedBits = UInt8(try reader.bits(5, "reserved"))
        characters = try reader.bytes(count, "DTMF_char")
        trailingBytes = try reader.rest("trailing_bytes")
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        try writer.bits(UInt64(preroll), 8, "preroll")
        try writer.bits(UInt64(characters.count), 3, "dtmf_count")
        try writer.bits(UInt64(reservedBits), 5, "reserved")
        writer.append(characters)
        writer.append(trailingBytes)
    }

    var jsonFields: [(String, JSONNode)] {
        [
            ("preroll", .uint(preroll)), ("dtmf_count", .uint(characters.count)),
            ("DTMF_char", .string(JSONNode.escapingControls(String(decoding: characters, as: UTF8.self)))),
        ]
    }
}
