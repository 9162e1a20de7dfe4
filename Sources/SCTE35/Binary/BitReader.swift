/// Reads big-endian bit fields from a byte array within a byte window, throwing located errors.
///
/// Every read checks the window first, so malformed input costs at most one pass over its bytes.
struct BitReader {
    /// The whole input: offsets in errors are offsets into it.
    let bytes: [UInt8]
    /// The next bit to read, counted from the start of ``bytes``.
    private(set) var bitPosition: Int
    /// The byte offset the current window ends at (exclusive).
    var end: Int
    /// The field path of the current structure, such as `splice_descriptor[1]`.
    var path: String

    init(_ bytes: [UInt8], start: Int = 0, end: Int? = nil, path: String = "") {
        self.bytes = bytes
        self.bitPosition = start * 8
        self.end = Swift.min(end ?? bytes.count, bytes.count)
        self.path = path
    }

    /// The byte offset of the next bit (rounded down).
    var offset: Int { bitPosition / 8 }

    /// The whole bytes left in the window.
    var remainingBytes: Int { Swift.max(0, end - (bitPosition + 7) / 8) }

    /// Whether the window is fully read.
    var isAtEnd: Bool { bitPosition >= end * 8 }

    /// `path.field`, or `field` at the top.
    func fieldPath(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

    /// An error at the next byte for `field`.
    func error(_ code: SCTE35Error.Code, _ field: String, _ message: String, at offset: Int? = nil) -> SCTE35Error {
        SCTE35Error(code, at: offset ?? self.offset, path: fieldPath(field), message)
    }

    /// Reads `count` (at most 64) bits as an unsigned integer.
    mutating func bits(_ count: Int, _ field: String) throws(SCTE35Error) -> UInt64 {
        guard bitPosition + count <= end * 8 else {
            throw error(
                .truncated, field,
                "\(field) needs \(count) bits but the \(path.isEmpty ? "section" : path) ends at byte \(end)")
        }
        var value: UInt64 = 0
        var left = count
        while left > 0 {
            let byte = bytes[bitPosition / 8]
            let used = bitPosition % 8
            let available = 8 - used
            let take = Swift.min(available, left)
            let shifted = (UInt64(byte) >> UInt64(available - take)) & ((1 << UInt64(take)) - 1)
            value = (value << UInt64(take)) | shifted
            bitPosition += take
            left -= take
        }
        return value
    }

    /// Reads one bit as a flag.
    mutating func flag(_ field: String) throws(SCTE35Error) -> Bool { try bits(1, field) == 1 }

    /// Reads 8 bits.
    mutating func uint8(_ field: String) throws(SCTE35Error) -> UInt8 { UInt8(try bits(8, field)) }

    /// Reads 16 bits.
    mutating func uint16(_ field: String) throws(SCTE35Error) -> UInt16 { UInt16(try bits(16, field)) }

    /// Reads 32 bits.
    mutating func uint32(_ field: String) throws(SCTE35Error) -> UInt32 { UInt32(try bits(32, field)) }

    /// Reads `count` whole bytes (the reader must be byte aligned).
    mutating func bytes(_ count: Int, _ field: String) throws(SCTE35Error) -> [UInt8] {
        guard count >= 0, offset + count <= end else {
            throw error(
                .truncated, field,
                "\(field) needs \(count) bytes but only \(remainingBytes) are left before byte \(end)")
        }
        let start = offset
        bitPosition += count * 8
        return Array(bytes[start..<(start + count)])
    }

    /// Reads every byte left in the window.
    mutating func rest(_ field: String) throws(SCTE35Error) -> [UInt8] { try bytes(remainingBytes, field) }

    /// The byte offset a length field's payload would end at, checked against the window.
    func window(length: Int, field: String, at fieldOffset: Int, of what: String) throws(SCTE35Error) -> Int {
        let stop = offset + length
        guard stop <= end else {
            throw error(
                .lengthOverrun, field,
                "\(field) is \(length) but \(what) has only \(end - offset) bytes left (it ends at byte \(end))",
                at: fieldOffset)
        }
        return stop
    }
}
