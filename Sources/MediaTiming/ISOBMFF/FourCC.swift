/// A four-character code: a box type, handler type or sample entry type.
struct FourCC: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The four bytes, big-endian.
    let rawValue: UInt32

    /// The code of the four bytes `rawValue`.
    init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// The code of a four-character ASCII literal.
    init(stringLiteral value: String) {
        var raw: UInt32 = 0
        for byte in value.utf8.prefix(4) { raw = raw << 8 | UInt32(byte) }
        rawValue = raw
    }

    /// The four characters, with bytes outside printable ASCII written as `?`.
    var description: String {
        var text = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))
            text.unicodeScalars.append(Unicode.Scalar((0x20...0x7E).contains(byte) ? byte : 0x3F))
        }
        return text
    }
}
