import Foundation

/// Writes JSON straight into bytes, laid out byte for byte as `JSONEncoder` lays it out with
/// `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`: two spaces per level, `"key" : value`,
/// an empty array or object as its brackets around an empty line, numbers as `Double.description`
/// without a trailing `.0`.
///
/// It builds no tree: the caller writes the members of each object in sorted order (the writer
/// does not sort), which is what makes large documents (``ScheduleDocument``) fast to write.
package struct PrettyJSONWriter {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []
    /// The nesting level, and whether the container at each level has a member yet.
    private var hasMembers: [Bool] = []

    /// An empty writer; `capacity` bytes are reserved.
    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    private mutating func indent() {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * hasMembers.count))
    }

    /// Starts a value in the current container: a separator and a new indented line.
    private mutating func beginValue() {
        guard let last = hasMembers.indices.last else { return }
        if hasMembers[last] { bytes.append(UInt8(ascii: ",")) }
        hasMembers[last] = true
        bytes.append(UInt8(ascii: "\n"))
        indent()
    }

    private mutating func open(_ bracket: Unicode.Scalar) {
        bytes.append(UInt8(ascii: bracket))
        hasMembers.append(false)
    }

    private mutating func close(_ bracket: Unicode.Scalar) {
        let hadMembers = hasMembers.removeLast()
        bytes.append(UInt8(ascii: "\n"))
        if !hadMembers { bytes.append(UInt8(ascii: "\n")) }
        indent()
        bytes.append(UInt8(ascii: bracket))
    }

    /// Starts an object as the next value (after ``key(_:)`` in an object, or in an array).
    package mutating func beginObject() {
        if !isAfterKey { beginValue() }
        isAfterKey = false
        open("{")
    }

    /// Ends the current object.
    package mutating func endObject() { close("}") }

    /// Starts an array as the next value.
    package mutating func beginArray() {
        if !isAfterKey { beginValue() }
        isAfterKey = false
        open("[")
    }

    /// Ends the current array.
    package mutating func endArray() { close("]") }

    private var isAfterKey = false

    /// Writes an object member's key; its value comes next. Keys must come in sorted order.
    package mutating func key(_ name: String) {
        beginValue()
        writeString(name)
        bytes.append(contentsOf: " : ".utf8)
        isAfterKey = true
    }

    /// Writes a value that is already JSON text (a number, `true`, `null`, a quoted string).
    private mutating func scalar(_ text: some Sequence<UInt8>) {
        if !isAfterKey { beginValue() }
        isAfterKey = false
        bytes.append(contentsOf: text)
    }

    /// Writes a string value.
    package mutating func string(_ value: String) {
        if !isAfterKey { beginValue() }
        isAfterKey = false
        writeString(value)
    }

    /// Writes a number as `JSONEncoder` writes a `Double`: its description, without a trailing
    /// `.0`. A value that is not finite is written as `null` (`JSONEncoder` refuses it).
    package mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        scalar(text.utf8)
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) { scalar((value ? "true" : "false").utf8) }

    /// Writes `null`.
    package mutating func null() { scalar("null".utf8) }

    /// Writes a string value or `null`.
    package mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Writes a number or `null`.
    package mutating func number(_ value: Double?) {
        if let value { number(value) } else { null() }
    }

    /// Writes a value that `JSONEncoder` encodes (with the same options), indented to the current
    /// level: for the small parts of a document that have their own `Encodable` form.
    package mutating func encoded(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        if !isAfterKey { beginValue() }
        isAfterKey = false
        let indentation = 2 * hasMembers.count
        // Line feeds in JSON text are only the layout's: strings escape theirs. The empty line of
        // an empty container stays empty.
        var lineStart = false
        for byte in data {
            if lineStart, byte != UInt8(ascii: "\n") {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indentation))
            }
            bytes.append(byte)
            lineStart = byte == UInt8(ascii: "\n")
        }
    }

    /// A quoted string; text with a quote, a backslash or a control character is quoted by
    /// `JSONEncoder` itself, so that its escapes are exactly the encoder's.
    private mutating func writeString(_ value: String) {
        let needsEscapes = value.utf8.contains { byte in
            byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        }
        guard needsEscapes else {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // A string always encodes.
        bytes.append(contentsOf: (try? encoder.encode(value)) ?? Data("\"\"".utf8))
    }
}
