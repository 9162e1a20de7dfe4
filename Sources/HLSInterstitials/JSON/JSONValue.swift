import Foundation
import HLSPlaylist

/// A JSON value, used to keep the keys of an asset list that the schema does not define.
public enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; its keys are kept sorted so that equal objects compare equal.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The type name used in error messages: `a number`, `a string`, ….
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses JSON bytes, the one place the project turns bytes into JSON.
    ///
    /// The text is checked against RFC 8259's grammar first (`JSONSyntaxCheck`): what the RFC
    /// refuses, a trailing comma among it, is refused with its line and column.
    ///
    /// - Throws: `Failure` with `code` and a message that says where the text is wrong:
    ///   `not valid JSON: line L, column C: …`.
    public static func parse<Failure: JSONPathError>(
        _ bytes: some Collection<UInt8>, code: Failure.Code, as failure: Failure.Type = JSONError.self
    ) throws(Failure) -> JSONValue {
        if let syntax = JSONSyntaxCheck.firstError(in: bytes) {
            throw Failure.jsonProblem(code: code, path: "", message: "not valid JSON: \(syntax)")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw Failure.jsonProblem(code: code, path: "", message: "not valid JSON: \(reason(error))")
        }
    }

    /// The parser's explanation, without Foundation's wrapping.
    private static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return Diagnostic.clipped(underlying ?? context.debugDescription)
        }
        return Diagnostic.clipped("\(error)")
    }

    /// Seconds as a JSON number: an integer when whole, so 30 s is written `30`.
    public static func seconds(_ time: MediaTime) -> JSONValue {
        time.nanoseconds % 1_000_000_000 == 0 ? .integer(time.nanoseconds / 1_000_000_000) : .number(time.seconds)
    }

    /// The numeric value of a number.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// Compact JSON text with object keys in sorted order.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    /// Appends compact JSON text.
    func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .integer(let value): text += String(value)
        case .number(let value):
            text +=
                value.isFinite
                ? (value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)") : "null"
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case .object(let members):
            Self.writeObject(members.sorted { $0.key < $1.key }, to: &text)
        }
    }

    /// Appends an object with its members in the given order.
    static func writeObject(_ members: [(key: String, value: JSONValue)], to text: inout String) {
        text += "{"
        for (index, member) in members.enumerated() {
            if index > 0 { text += "," }
            writeString(member.key, to: &text)
            text += ":"
            member.value.write(to: &text)
        }
        text += "}"
    }

    /// Appends a JSON string literal.
    package static func writeString(_ value: String, to text: inout String) {
        text += "\""
        // Most strings (URIs, keys, IDs) need no escape: appended whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text += value
            text += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
