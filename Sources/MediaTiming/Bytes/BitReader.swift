/// A most-significant-bit-first reader of bit fields in a short byte slice (codec configuration
/// records, frame headers); reading past the end yields zero bits and sets ``overrun``.
struct BitReader {
    private let bytes: ArraySlice<UInt8>
    private var bit = 0

    /// Whether a read went past the end.
    private(set) var overrun = false

    /// A reader of `bytes`.
    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// Reads `count` (at most 32) bits.
    mutating func read(_ count: Int) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            let index = bytes.startIndex + bit / 8
            var next: UInt32 = 0
            if index < bytes.endIndex {
                next = UInt32(bytes[index] >> (7 - UInt8(bit % 8))) & 1
            } else {
                overrun = true
            }
            value = value << 1 | next
            bit += 1
        }
        return value
    }
}
