/// Why an attribute name or value cannot be written: it would break the attribute-list grammar of §4.2.
///
/// Thrown by the checked constructors (``AttributeValue/quoted(_:)``, ``AttributeValue/enumerated(_:)``,
/// ``AttributeValue/init(rawValue:)``, ``Attribute/checkName(_:)``, ``AttributeList/checkWritable()``),
/// so that no tag built in code can inject a line, a second attribute or an unbalanced quote. Its
/// ``rule`` is the ID the parser reports for the same fault when it reads one.
public struct AttributeSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule broken: `attribute-name`, `attribute-quoted-string` or `attribute-value-character`.
    public var rule: RuleID
    /// The text refused (a name, the content of a quoted-string, or a raw value).
    public var text: String
    /// The 0-based UTF-8 byte offset of the offending character in ``text``.
    public var offset: Int
    /// The offending character; nil when the text is refused for being empty.
    public var character: Unicode.Scalar?
    /// What is wrong, quoting §4.2.
    public var message: String

    /// Creates an error.
    public init(rule: RuleID, text: String, offset: Int, character: Unicode.Scalar?, message: String) {
        self.rule = rule
        self.text = text
        self.offset = offset
        self.character = character
        self.message = message
    }

    /// `[rule] message`.
    public var description: String { "[\(rule)] \(message)" }
}

extension Unicode.Scalar {
    /// `"` for printable characters, `U+000A (line feed)` style for the others.
    package var diagnosticName: String {
        switch value {
        case 0x0A: return "U+000A (line feed)"
        case 0x0D: return "U+000D (carriage return)"
        case 0x09: return "U+0009 (tab)"
        case 0x20: return "U+0020 (space)"
        case 0x22: return "'\"' (double quote)"
        case 0x2C: return "',' (comma)"
        case 0...0x1F, 0x7F...0x9F:
            let hex = String(value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + " (control character)"
        default: return "'\(Character(self))'"
        }
    }
}

/// The lexical checks of §4.2 for values and names built in code. One place for each rule.
package enum AttributeGrammar {
    /// Whether a scalar may not appear in a quoted-string: `"`, CR, LF (§4.2), or another control
    /// character (§4.1 forbids them in playlists; tab is allowed, as the parser allows it).
    package static func isForbiddenInQuotedString(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x22 || (scalar.value != 0x09 && isControl(scalar))
    }

    /// Whether a byte may not appear in an unquoted value: `"`, `,`, whitespace or a control byte.
    package static func isForbiddenInUnquotedValue(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: ",") || byte <= 0x20 || byte == 0x7F
    }

    /// Whether a byte may appear in an AttributeName: `[A-Z]`, `[0-9]` and `-`.
    package static func isAttributeNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte &- UInt8(ascii: "0") < 10)
            || byte == UInt8(ascii: "-")
    }

    static let quotedReference =
        "§4.2: \"The following characters MUST NOT appear in a quoted-string: line feed (0xA), carriage return (0xD), or double quote (0x22).\""
    static let unquotedReference =
        "§4.2: \"An enumerated-string will never contain double quotes (\"), commas (,), or whitespace.\""
    static let nameReference =
        "§4.2: \"The AttributeName is an unquoted string containing characters from the set [A-Z], [0-9], and '-'.\""

    /// Checks the content of a quoted-string (without its quotes).
    package static func checkQuotedContent(_ text: String) throws(AttributeSyntaxError) {
        if let (offset, scalar) = firstScalar(in: text, where: isForbiddenInQuotedString) {
            throw AttributeSyntaxError(
                rule: Rule.attributeQuotedString.id, text: text, offset: offset, character: scalar,
                message:
                    "a quoted-string cannot contain \(scalar.diagnosticName) (at byte \(offset)); \(quotedReference)")
        }
    }

    /// The first scalar of `text` that `isForbidden` picks, with its UTF-8 byte offset.
    package static func firstScalar(
        in text: String, where isForbidden: (Unicode.Scalar) -> Bool
    ) -> (offset: Int, scalar: Unicode.Scalar)? {
        var offset = 0
        for scalar in text.unicodeScalars {
            if isForbidden(scalar) { return (offset, scalar) }
            offset += UTF8.width(scalar)
        }
        return nil
    }

    /// Whether a scalar is a C0 or C1 control character, or DEL.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Checks an unquoted value (an enumerated-string, a number, a hexadecimal-sequence, a resolution).
    package static func checkUnquoted(_ text: String) throws(AttributeSyntaxError) {
        guard !text.isEmpty else {
            throw AttributeSyntaxError(
                rule: Rule.attributeValueCharacter.id, text: text, offset: 0, character: nil,
                message: "an attribute value cannot be empty; \(unquotedReference)")
        }
        let forbidden = { (scalar: Unicode.Scalar) in
            (scalar.isASCII && isForbiddenInUnquotedValue(UInt8(scalar.value))) || isControl(scalar)
        }
        if let (offset, scalar) = firstScalar(in: text, where: forbidden) {
            throw AttributeSyntaxError(
                rule: Rule.attributeValueCharacter.id, text: text, offset: offset, character: scalar,
                message:
                    "an unquoted attribute value cannot contain \(scalar.diagnosticName) (at byte \(offset)); \(unquotedReference)"
            )
        }
    }

    /// Checks a raw value: a whole quoted-string, or an unquoted value.
    package static func checkRawValue(_ raw: String) throws(AttributeSyntaxError) {
        let utf8 = raw.utf8
        if utf8.first == UInt8(ascii: "\"") {
            guard utf8.count >= 2, utf8.last == UInt8(ascii: "\"") else {
                throw AttributeSyntaxError(
                    rule: Rule.attributeQuotedString.id, text: raw, offset: 0, character: "\"",
                    message: "the quoted-string is not terminated; \(quotedReference)")
            }
            do {
                try checkQuotedContent(String(raw.dropFirst().dropLast()))
            } catch {
                var shifted = error
                shifted.text = raw
                shifted.offset += 1
                throw shifted
            }
        } else {
            try checkUnquoted(raw)
        }
    }

    /// Checks an AttributeName.
    package static func checkName(_ name: String) throws(AttributeSyntaxError) {
        guard !name.isEmpty else {
            throw AttributeSyntaxError(
                rule: Rule.attributeName.id, text: name, offset: 0, character: nil,
                message: "an AttributeName cannot be empty; \(nameReference)")
        }
        var offset = 0
        for scalar in name.unicodeScalars {
            if !(scalar.isASCII && isAttributeNameByte(UInt8(scalar.value))) {
                throw AttributeSyntaxError(
                    rule: Rule.attributeName.id, text: name, offset: offset, character: scalar,
                    message:
                        "an AttributeName cannot contain \(scalar.diagnosticName) (at byte \(offset)); \(nameReference)"
                )
            }
            offset += UTF8.width(scalar)
        }
    }
}
