/// The text forms of a section: hex (`0xFC…` or `FC…`) and base64 (`/DA…`).
public enum SectionText {
    /// The bytes of hex text, with or without a `0x` prefix; surrounding whitespace is ignored.
    public static func bytes(hex text: String) throws(SCTE35Error) -> [UInt8] {
        let characters = Array(text.utf8)
        var index = 0
        while index < characters.count, isSpace(characters[index]) { index += 1 }
        var stop = characters.count
        while stop > index, isSpace(characters[stop - 1]) { stop -= 1 }
        if stop - index >= 2, characters[index] == UInt8(ascii: "0"), characters[index + 1] | 0x20 == UInt8(ascii: "x")
        {
            index += 2
        }
        guard (stop - index) % 2 == 0 else {
            throw SCTE35Error(.badHex, at: stop, path: "", "hex text has an odd number of digits (\(stop - index))")
        }
        guard stop > index else { throw SCTE35Error(.badHex, at: index, path: "", "hex text has no digits") }
        var result: [UInt8] = []
        result.reserveCapacity((stop - index) / 2)
        while index < stop {
            guard let high = nibble(characters[index]) else { throw badHexDigit(characters, index) }
            guard let low = nibble(characters[index + 1]) else { throw badHexDigit(characters, index + 1) }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    /// The bytes of base64 text (RFC 4648 alphabet; padding optional); surrounding whitespace is ignored.
    public static func bytes(base64 text: String) throws(SCTE35Error) -> [UInt8] {
        let characters = Array(text.utf8)
        var index = 0
        while index < characters.count, isSpace(characters[index]) { index += 1 }
        var stop = characters.count
        while stop > index, isSpace(characters[stop - 1]) { stop -= 1 }
        var padding = 0
        while stop > index, characters[stop - 1] == UInt8(ascii: "="), padding < 2 {
            stop -= 1
            padding += 1
        }
        guard stop > index else { throw SCTE35Error(.badBase64, at: index, path: "", "base64 text has no characters") }
        var result: [UInt8] = []
        result.reserveCapacity((stop - index) * 3 / 4)
        var accumulator: UInt32 = 0
        var count = 0
        for position in index..<stop {
            guard let value = sextet(characters[position]) else {
                let shown = Character(Unicode.Scalar(characters[position]))
                throw SCTE35Error(
                    .badBase64, at: position, path: "",
                    "'\(characters[position] < 0x20 || characters[position] >= 0x7F ? "\\u{\(String(characters[position], radix: 16))}" : String(shown))' is not a base64 character"
                )
            }
            accumulator = accumulator << 6 | UInt32(value)
            count += 1
            if count == 4 {
                result.append(UInt8(accumulator >> 16 & 0xFF))
                result.append(UInt8(accumulator >> 8 & 0xFF))
                result.append(UInt8(accumulator & 0xFF))
                accumulator = 0
                count = 0
            }
        }
        switch count {
        case 0: break
        case 2: result.append(UInt8(accumulator >> 4 & 0xFF))
        case 3:
            result.append(UInt8(accumulator >> 10 & 0xFF))
            result.append(UInt8(accumulator >> 2 & 0xFF))
        default:
            throw SCTE35Error(.badBase64, at: stop, path: "", "base64 text ends with a single character of a group")
        }
        return result
    }

    /// The bytes of text in either form: hex when it starts with `0x` or has only hex digits, else base64.
    ///
    /// A section's base64 form starts with `/` (table_id 0xFC), never a hex digit, so the two do not clash.
    public static func bytes(text: String) throws(SCTE35Error) -> [UInt8] {
        let trimmed = text.utf8.drop(while: isSpace)
        let isHex =
            (trimmed.count >= 2 && trimmed.first == UInt8(ascii: "0")
                && trimmed.dropFirst().first.map { $0 | 0x20 == UInt8(ascii: "x") } == true)
            || trimmed.allSatisfy { nibble($0) != nil || isSpace($0) }
        return isHex ? try bytes(hex: text) : try bytes(base64: text)
    }

    /// `bytes` as hex digits: `0xFC30…` by default.
    public static func hex(_ bytes: [UInt8], prefix: Bool = true, uppercase: Bool = true) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var result: [UInt8] = prefix ? Array("0x".utf8) : []
        result.reserveCapacity(result.count + bytes.count * 2)
        for byte in bytes {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `bytes` in base64 with padding.
    public static func base64(_ bytes: [UInt8]) -> String {
        var result: [UInt8] = []
        result.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<Swift.min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for (shift, byte) in zip([16, 8, 0], chunk) { value |= UInt32(byte) << UInt32(shift) }
            for position in 0..<4 {
                if position <= chunk.count {
                    result.append(alphabet[Int(value >> UInt32(18 - 6 * position) & 0x3F)])
                } else {
                    result.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    private static func badHexDigit(_ characters: [UInt8], _ index: Int) -> SCTE35Error {
        let byte = characters[index]
        let shown =
            byte >= 0x20 && byte < 0x7F
            ? String(Character(Unicode.Scalar(byte))) : "\\u{\(String(byte, radix: 16, uppercase: true))}"
        return SCTE35Error(.badHex, at: index, path: "", "'\(shown)' is not a hex digit")
    }
}
