/// Writes big-endian bit fields, refusing values that do not fit their field with a located error.
struct BitWriter {
    /// The bytes written so far; the last one may be partly filled.
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0
    /// The output offset the bytes of this writer start at, for error offsets.
    let base: Int
    /// The field path of the current structure.
    var path: String

    init(base: Int = 0, path: String = "") {
        self.base = base
        self.path = path
    }

    /// The byte offset of the next bit in the output.
    var offset: Int { base + bitCount / 8 }

    /// `path.field`, or `field` at the top.
    func fieldPath(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

    /// An error at the next byte for `field`.
    func error(_ code: SCTE35Error.Code, _ field: String, _ message: String) -> SCTE35Error {
        SCTE35Error(code, at: offset, path: fieldPath(field), message)
    }

    /// Writes the low `count` bits of `value`; throws `value-range` when it has more.
    mutating func bits(_ value: UInt64, _ count: Int, _ field: String) throws(SCTE35Error) {
        if count < 64, value >> UInt64(count) != 0 {
            throw error(.valueRange, field, "\(field) is \(value), more than its \(count) bits hold")
        }
        for index in stride(from: count - 1, through: 0, by: -1) {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> UInt64(index)) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (bitCount % 8)) }
            bitCount += 1
        }
    }

    /// Writes one flag bit.
    mutating func flag(_ value: Bool, _ field: String) throws(SCTE35Error) { try bits(value ? 1 : 0, 1, field) }

    /// Writes whole bytes (the writer must be byte aligned).
    mutating func append(_ data: [UInt8]) {
        precondition(bitCount % 8 == 0, "byte write at a bit offset")
        bytes.append(contentsOf: data)
        bitCount += data.count * 8
    }

    /// Writes `data` after its length in `lengthBits` bits; throws when the length does not fit.
    mutating func lengthPrefixed(_ data: [UInt8], lengthBits: Int, _ field: String) throws(SCTE35Error) {
        try bits(UInt64(data.count), lengthBits, field)
        append(data)
    }
}
