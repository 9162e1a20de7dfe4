/// A big-endian reader over a window of the input that checks every read against the window's end.
///
/// Every read that would pass the end throws ``MediaTimingError/Code/truncated`` at the reader's
/// position and path, so callers never index past the bytes that are there.
struct ByteReader {
    /// The whole input; offsets are absolute.
    let bytes: [UInt8]
    /// The next byte to read.
    private(set) var position: Int
    /// One past the last byte of the window.
    let end: Int
    /// The structure read, for errors (a box path or a packet).
    let path: String

    /// A reader of `bytes[start..<end]`, clamped to the input.
    init(_ bytes: [UInt8], from start: Int, to end: Int, path: String) {
        self.bytes = bytes
        self.end = min(max(end, 0), bytes.count)
        self.position = min(max(start, 0), self.end)
        self.path = path
    }

    /// The bytes left in the window.
    var remaining: Int { end - position }

    /// An error at `offset` (default: the position) with this reader's path.
    func error(_ code: MediaTimingError.Code, _ message: String, at offset: Int? = nil) -> MediaTimingError {
        MediaTimingError(code, offset: offset ?? position, path: path, message)
    }

    /// Throws unless `count` more bytes are there.
    func require(_ count: Int, _ what: @autoclosure () -> String) throws(MediaTimingError) {
        guard count >= 0, count <= remaining else {
            throw error(.truncated, "\(what()) needs \(count) bytes but \(remaining) are left")
        }
    }

    /// Reads one byte.
    mutating func u8() throws(MediaTimingError) -> UInt8 {
        try require(1, "a byte")
        defer { position += 1 }
        return bytes[position]
    }

    /// Reads a 16-bit big-endian integer.
    mutating func u16() throws(MediaTimingError) -> UInt16 { UInt16(try uint(2)) }

    /// Reads a 24-bit big-endian integer.
    mutating func u24() throws(MediaTimingError) -> UInt32 { UInt32(try uint(3)) }

    /// Reads a 32-bit big-endian integer.
    mutating func u32() throws(MediaTimingError) -> UInt32 { UInt32(try uint(4)) }

    /// Reads a 64-bit big-endian integer.
    mutating func u64() throws(MediaTimingError) -> UInt64 { try uint(8) }

    /// Reads a `count`-byte (at most 8) big-endian unsigned integer.
    mutating func uint(_ count: Int) throws(MediaTimingError) -> UInt64 {
        try require(count, "a \(count * 8)-bit integer")
        var value: UInt64 = 0
        for index in position..<(position + count) { value = value << 8 | UInt64(bytes[index]) }
        position += count
        return value
    }

    /// Skips `count` bytes.
    mutating func skip(_ count: Int) throws(MediaTimingError) {
        try require(count, "skipping")
        position += count
    }

    /// Reads `count` bytes.
    mutating func read(_ count: Int) throws(MediaTimingError) -> ArraySlice<UInt8> {
        try require(count, "a field of \(count) bytes")
        defer { position += count }
        return bytes[position..<(position + count)]
    }
}
