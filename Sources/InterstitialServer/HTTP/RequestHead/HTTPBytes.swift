/// The byte classes and comparisons of HTTP/1.1 text (RFC 9110 §5.6, RFC 9112) that the request
/// head reader and its chunked framing read with: ASCII only, no allocation.
enum HTTPBytes {
    /// Whether `byte` may be in a token (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    /// Whether `byte` may be in a field value: HTAB, SP, visible ASCII or obs-text (not DEL or controls).
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// The value of a hexadecimal digit, or nil.
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    /// `bytes` without the spaces and tabs around them.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }

    /// Whether ASCII `name` equals the lower-case `lower`, ignoring case.
    static func equalsLowercased(_ name: ArraySlice<UInt8>, _ lower: [UInt8]) -> Bool {
        name.count == lower.count && zip(name, lower).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0) == $1 }
    }

    /// Whether ASCII `text` contains the lower-case `lower`, ignoring case.
    static func containsLowercased(_ text: ArraySlice<UInt8>, _ lower: [UInt8]) -> Bool {
        guard text.count >= lower.count else { return false }
        var start = text.startIndex
        while start + lower.count <= text.endIndex {
            if equalsLowercased(text[start..<(start + lower.count)], lower) { return true }
            start += 1
        }
        return false
    }
}
