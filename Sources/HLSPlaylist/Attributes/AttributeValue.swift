/// An attribute value exactly as written, with typed readers for every §4.2 value type.
///
/// The raw text (quotes included) is kept so that writing never changes formatting:
/// `DURATION=6.000000` stays `6.000000`. Which type applies depends on the attribute's
/// definition, so the readers return `nil` when the text does not have that type.
public struct AttributeValue: Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as written, quotes included (set only through the checked initializers).
    public private(set) var rawValue: String

    /// A value from its raw text, checked so that it cannot break the attribute-list grammar.
    ///
    /// The text must be a whole quoted-string (`"…"` with no `"`, CR, LF or other control character
    /// inside) or a non-empty unquoted value with no `"`, `,`, whitespace or control character.
    ///
    /// - Throws: ``AttributeSyntaxError`` naming the offending character and its byte offset.
    public init(rawValue: String) throws(AttributeSyntaxError) {
        try AttributeGrammar.checkRawValue(rawValue)
        self.rawValue = rawValue
    }

    /// A value exactly as read, unchecked: the parser keeps any input verbatim (round trip).
    package init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The raw text.
    public var description: String { rawValue }

    /// The lexical kind of a value, the three kinds that client (`X-`) attributes may take plus the rest.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// `"…"`.
        case quotedString
        /// `0x…` or `0X…`.
        case hexadecimalSequence
        /// A decimal number, signed or not, integer or not.
        case signedDecimalFloatingPoint
        /// Anything else unquoted: an enumerated-string or a decimal-resolution.
        case enumeratedString
    }

    /// The lexical kind of the raw text.
    public var kind: Kind {
        let utf8 = rawValue.utf8
        guard let first = utf8.first else { return .enumeratedString }
        if first == UInt8(ascii: "\"") { return .quotedString }
        if first == UInt8(ascii: "0"), utf8.count > 2 {
            let second = utf8[utf8.index(after: utf8.startIndex)]
            if second == UInt8(ascii: "x") || second == UInt8(ascii: "X") { return .hexadecimalSequence }
        }
        if signedDecimal != nil { return .signedDecimalFloatingPoint }
        return .enumeratedString
    }

    // MARK: Readers

    /// Whether the text is a quoted-string: what ``quotedString`` checks, without making a copy.
    package var isQuotedString: Bool {
        let utf8 = rawValue.utf8
        return utf8.count >= 2 && utf8.first == UInt8(ascii: "\"") && utf8.last == UInt8(ascii: "\"")
    }

    /// The content of a quoted-string (without the quotes), or `nil` if the text is not quoted.
    public var quotedString: String? {
        guard isQuotedString else { return nil }
        let utf8 = rawValue.utf8
        // The quotes are single bytes: slicing the UTF-8 view avoids walking Characters.
        return String(decoding: utf8.dropFirst().dropLast(), as: UTF8.self)
    }

    /// A decimal-integer: 1–20 digits, 0…2⁶⁴−1.
    public var decimalInteger: UInt64? {
        let utf8 = rawValue.utf8
        guard (1...20).contains(utf8.count), utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
        return UInt64(rawValue)
    }

    /// A decimal-floating-point (non-negative, digits and `.`), exactly.
    public var decimalFloatingPoint: MediaTime? {
        guard let first = rawValue.utf8.first, first != UInt8(ascii: "-"), first != UInt8(ascii: "+") else {
            return nil
        }
        return MediaTime(decimal: rawValue)
    }

    /// A signed-decimal-floating-point, exactly.
    public var signedDecimal: MediaTime? {
        guard rawValue.utf8.first != UInt8(ascii: "+") else { return nil }
        return MediaTime(decimal: rawValue)
    }

    /// A decimal-floating-point as a binary `Double` (for values like FRAME-RATE that are not times).
    public var decimalNumber: Double? {
        guard decimalFloatingPoint != nil else { return nil }
        return Double(rawValue)
    }

    /// A hexadecimal-sequence (`0x` then hex digits) as its bytes; an odd digit count is
    /// read as if a leading zero were present.
    public var hexadecimalSequence: [UInt8]? {
        let utf8 = Array(rawValue.utf8)
        guard utf8.count > 2, utf8[0] == UInt8(ascii: "0"), utf8[1] == UInt8(ascii: "x") || utf8[1] == UInt8(ascii: "X")
        else { return nil }
        var digits: [UInt8] = []
        digits.reserveCapacity(utf8.count - 2)
        for byte in utf8[2...] {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        if digits.count % 2 == 1 { digits.insert(0, at: 0) }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// An enumerated-string: unquoted, with no `"`, `,` or whitespace.
    public var enumeratedString: String? {
        guard !rawValue.isEmpty,
            rawValue.utf8.allSatisfy({ $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: ",") && $0 > 0x20 })
        else { return nil }
        return rawValue
    }

    /// An enumerated-string-list: a quoted-string of comma-separated enumerated-strings.
    ///
    /// Every entry is returned, unknown ones included; consumers ignore those they do not know
    /// (§4.2: "clients MUST ignore any unrecognized enumerated-strings").
    public var enumeratedStringList: [String]? {
        guard let content = quotedString else { return nil }
        if content.isEmpty { return [] }
        return content.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// A decimal-resolution `WIDTHxHEIGHT`.
    public var resolution: Resolution? {
        let parts = rawValue.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = AttributeValue(unchecked: String(parts[0])).decimalInteger,
            let height = AttributeValue(unchecked: String(parts[1])).decimalInteger
        else { return nil }
        return Resolution(width: width, height: height)
    }

    // MARK: Constructors

    /// A quoted-string value.
    ///
    /// - Throws: ``AttributeSyntaxError`` (`attribute-quoted-string`) when the text contains `"`, CR, LF
    ///   or another control character (tab is allowed), naming the character and its byte offset.
    public static func quoted(_ text: String) throws(AttributeSyntaxError) -> AttributeValue {
        try AttributeGrammar.checkQuotedContent(text)
        return AttributeValue(unchecked: "\"" + text + "\"")
    }
    /// A decimal-integer value.
    public static func integer(_ value: UInt64) -> AttributeValue { AttributeValue(unchecked: String(value)) }
    /// A decimal or signed decimal value, written in its shortest exact form.
    public static func decimal(_ value: MediaTime) -> AttributeValue { AttributeValue(unchecked: value.description) }
    /// An enumerated-string value.
    ///
    /// - Throws: ``AttributeSyntaxError`` (`attribute-value-character`) when the text is empty or
    ///   contains `"`, `,`, whitespace or a control character.
    public static func enumerated(_ value: String) throws(AttributeSyntaxError) -> AttributeValue {
        try AttributeGrammar.checkUnquoted(value)
        return AttributeValue(unchecked: value)
    }
    /// An enumerated-string-list value: a quoted-string of comma-separated entries.
    ///
    /// An entry may not hold a comma (it would read back as two) nor anything a quoted-string cannot
    /// hold. Entries that are not valid enumerated-strings (empty, or with spaces) are written as
    /// given, so a list read from a playlist writes back unchanged; validators report them.
    ///
    /// - Throws: ``AttributeSyntaxError`` when an entry holds a comma, `"`, CR, LF or a control character.
    public static func enumeratedList(_ values: [String]) throws(AttributeSyntaxError) -> AttributeValue {
        for value in values {
            if let comma = value.utf8.firstIndex(of: UInt8(ascii: ",")) {
                let offset = value.utf8.distance(from: value.utf8.startIndex, to: comma)
                throw AttributeSyntaxError(
                    rule: Rule.attributeValueCharacter.id, text: value, offset: offset, character: ",",
                    message:
                        "an entry of an enumerated-string-list cannot contain ',' (at byte \(offset)); §4.2: \"An enumerated-string will never contain double quotes (\"), commas (,), or whitespace.\""
                )
            }
        }
        return try .quoted(values.joined(separator: ","))
    }
    /// A hexadecimal-sequence value, written `0x` and upper-case digits.
    public static func hexadecimal(_ bytes: [UInt8]) -> AttributeValue {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = Array("0x".utf8)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return AttributeValue(unchecked: String(decoding: text, as: UTF8.self))
    }
    /// A decimal-resolution value.
    public static func resolution(_ value: Resolution) -> AttributeValue {
        AttributeValue(unchecked: "\(value.width)x\(value.height)")
    }
}

extension AttributeValue: Codable {
    /// Decodes from the raw text, checked as ``init(rawValue:)`` checks it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(rawValue: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes as the raw text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A decimal-resolution: `WIDTHxHEIGHT` in pixels.
public struct Resolution: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The width in pixels.
    public var width: UInt64
    /// The height in pixels.
    public var height: UInt64

    /// Creates a resolution.
    public init(width: UInt64, height: UInt64) {
        self.width = width
        self.height = height
    }

    /// `WIDTHxHEIGHT`.
    public var description: String { "\(width)x\(height)" }
}
