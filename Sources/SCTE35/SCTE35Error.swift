/// Why SCTE 35 input could not be decoded or a section could not be encoded: a stable code, the byte
/// offset, the field path and a message.
///
/// The offset counts bytes of the section (for ``SpliceInfoSection/decode(text:)`` errors of the text
/// itself, `bad-hex` and `bad-base64`, it counts characters of the text). The path names the field with
/// the spec's names, such as `splice_descriptor[1].segmentation_upid`.
public struct SCTE35Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable error codes.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The input ends before a field does.
        case truncated
        /// The section's CRC_32 does not match its bytes.
        case crcMismatch = "crc-mismatch"
        /// A length field says more bytes than the structure around it holds.
        case lengthOverrun = "length-overrun"
        /// The section does not start with table_id 0xFC.
        case tableID = "table-id"
        /// The command's length cannot be known (an unknown or private command with the legacy
        /// splice_command_length 0xFFF).
        case unknownCommand = "unknown-command"
        /// Bytes follow the section that section_length covers.
        case trailingBytes = "trailing-bytes"
        /// A UPID does not have the structure its type requires (MID, ATSC).
        case upidMalformed = "upid-malformed"
        /// The hex text has an odd number of digits or a character that is not a hex digit.
        case badHex = "bad-hex"
        /// The base64 text has a character outside the alphabet or a bad length.
        case badBase64 = "bad-base64"
        /// Encoding: a value does not fit its field, or flags and values disagree.
        case valueRange = "value-range"
    }

    /// The stable code.
    public var code: Code
    /// The byte offset (or character offset for `bad-hex` and `bad-base64`).
    public var offset: Int
    /// The field path, such as `splice_command.break_duration.duration`; empty for the whole input.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, at offset: Int, path: String, _ message: String) {
        self.code = code
        self.offset = offset
        self.path = path
        self.message = message
    }

    /// `byte N, path: message` (`character N` for errors of the text).
    public var description: String {
        let unit = code == .badHex || code == .badBase64 ? "character" : "byte"
        return path.isEmpty ? "\(unit) \(offset): \(message)" : "\(unit) \(offset), \(path): \(message)"
    }

    /// The text form for a command line: `source: error: [code] byte N, path: message`.
    public func rendered(source: String) -> String { "\(source): error: [\(code.rawValue)] \(description)" }

    /// The JSON form: `{"code": …, "offset": …, "path": …, "message": …}` (no `path` when empty).
    public var errorJSON: String {
        var fields: [(String, JSONNode)] = [("code", .string(code.rawValue)), ("offset", .int(Int64(offset)))]
        if !path.isEmpty { fields.append(("path", .string(path))) }
        fields.append(("message", .string(message)))
        return JSONNode.object(fields).json(pretty: false)
    }
}
