/// Where and why JSON text breaks RFC 8259's grammar: a typed code and the line and column of the
/// first byte at fault.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Code: String, Hashable, Sendable {
        /// A `,` right before `}` or `]` (RFC 8259 §4, §5: values are separated, not terminated, by commas).
        case trailingComma = "trailing-comma"
        /// A byte that cannot start or continue what the grammar expects there.
        case unexpectedCharacter = "unexpected-character"
        /// The text ends inside a value, an object or an array.
        case unexpectedEnd = "unexpected-end"
        /// A control character (below U+0020) inside a string (RFC 8259 §7: it must be escaped).
        case controlCharacter = "control-character"
        /// A `\` escape that is not one of `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case badEscape = "bad-escape"
        /// A number that breaks the grammar (`01`, `1.`, `-`, `1e`).
        case badNumber = "bad-number"
        /// Text after the one top-level value.
        case trailingText = "trailing-text"
    }

    /// What is wrong.
    public var code: Code
    /// The 1-based line of the byte at fault.
    public var line: Int
    /// The 1-based column (in bytes) of the byte at fault.
    public var column: Int
    /// The 0-based byte offset of the byte at fault.
    public var offset: Int
    /// What was expected and found.
    public var message: String

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict, linear check of JSON text against RFC 8259's grammar, run before any parser reads it,
/// so that every JSON input of the project refuses what the RFC refuses (a trailing comma among
/// them, which Foundation's reader accepts) and says at which line and column.
///
/// One pass, one byte of look-ahead, a nesting stack bounded by the input's length: its cost is
/// linear in the bytes.
package enum JSONSyntaxCheck {
    /// The first syntax error of `bytes`, or nil when they are one JSON value (with optional white space around).
    package static func firstError(in bytes: some Collection<UInt8>) -> JSONSyntaxError? {
        var scanner = Scanner(bytes: Array(bytes))
        return scanner.run()
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// Open containers: `true` for an object, `false` for an array.
        var stack: [Bool] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// The state between tokens.
        enum Expect {
            /// A value (document start, after `:`, after `[` with `allowsClose`, after `,`).
            case value(allowsClose: Bool, afterComma: Bool)
            /// A key (after `{` with `allowsClose`, after `,` in an object).
            case key(allowsClose: Bool, afterComma: Bool)
            /// The `:` after a key.
            case colon
            /// `,` or the container's close, after a value.
            case separator
            /// Nothing but white space: the top-level value ended.
            case end
        }

        mutating func run() -> JSONSyntaxError? {
            var expect = Expect.value(allowsClose: false, afterComma: false)
            while true {
                skipSpace()
                guard index < bytes.count else {
                    if case .end = expect { return nil }
                    return fail(.unexpectedEnd, "the text ends \(place(expect))")
                }
                let byte = bytes[index]
                switch expect {
                case .end:
                    return fail(.trailingText, "expected the end of the text after the value, found \(shown(byte))")
                case .colon:
                    guard byte == UInt8(ascii: ":") else {
                        return fail(.unexpectedCharacter, "expected : after the key, found \(shown(byte))")
                    }
                    index += 1
                    expect = .value(allowsClose: false, afterComma: false)
                case .separator:
                    let inObject = stack.last ?? false
                    if byte == UInt8(ascii: ",") {
                        index += 1
                        expect =
                            inObject
                            ? .key(allowsClose: false, afterComma: true) : .value(allowsClose: false, afterComma: true)
                    } else if byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        stack.removeLast()
                        expect = stack.isEmpty ? .end : .separator
                    } else {
                        let close = inObject ? "}" : "]"
                        return fail(
                            .unexpectedCharacter,
                            "expected , or \(close) after the \(inObject ? "member" : "element"), found \(shown(byte))")
                    }
                case .key(let allowsClose, let afterComma):
                    if byte == UInt8(ascii: "}") {
                        guard allowsClose else { return trailingComma(afterComma, byte) }
                        index += 1
                        stack.removeLast()
                        expect = stack.isEmpty ? .end : .separator
                    } else if byte == UInt8(ascii: "\"") {
                        if let error = string() { return error }
                        expect = .colon
                    } else {
                        return fail(.unexpectedCharacter, "expected a key in double quotes, found \(shown(byte))")
                    }
                case .value(let allowsClose, let afterComma):
                    if byte == UInt8(ascii: "]"), !stack.isEmpty, stack.last == false {
                        guard allowsClose else { return trailingComma(afterComma, byte) }
                        index += 1
                        stack.removeLast()
                        expect = stack.isEmpty ? .end : .separator
                        continue
                    }
                    switch byte {
                    case UInt8(ascii: "{"):
                        stack.append(true)
                        index += 1
                        expect = .key(allowsClose: true, afterComma: false)
                    case UInt8(ascii: "["):
                        stack.append(false)
                        index += 1
                        expect = .value(allowsClose: true, afterComma: false)
                    case UInt8(ascii: "\""):
                        if let error = string() { return error }
                        expect = stack.isEmpty ? .end : .separator
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        if let error = number() { return error }
                        expect = stack.isEmpty ? .end : .separator
                    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                        if let error = literal() { return error }
                        expect = stack.isEmpty ? .end : .separator
                    default:
                        return fail(
                            .unexpectedCharacter,
                            "expected a value (an object, array, string, number, true, false or null), found \(shown(byte))"
                        )
                    }
                }
            }
        }

        func place(_ expect: Expect) -> String {
            switch expect {
            case .value: "where a value is expected"
            case .key: "where a key is expected"
            case .colon: "where : is expected"
            case .separator: stack.last == true ? "inside an object (no closing })" : "inside an array (no closing ])"
            case .end: ""
            }
        }

        mutating func trailingComma(_ afterComma: Bool, _ byte: UInt8) -> JSONSyntaxError {
            guard afterComma else {
                return fail(.unexpectedCharacter, "expected a value, found \(shown(byte))")
            }
            // Points at the comma: that is what to delete.
            var comma = index - 1
            while comma > 0, bytes[comma] != UInt8(ascii: ",") { comma -= 1 }
            index = comma
            return fail(.trailingComma, "a trailing comma before \(shown(byte)); JSON allows none: delete it")
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// A string from its opening quote; `index` ends after the closing quote.
        mutating func string() -> JSONSyntaxError? {
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count else {
                        index = bytes.count
                        return fail(.unexpectedEnd, "the text ends inside a string (no closing \")")
                    }
                    let escape = bytes[index + 1]
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 2
                    case UInt8(ascii: "u"):
                        for offset in 2..<6 {
                            guard index + offset < bytes.count else {
                                index = bytes.count
                                return fail(.unexpectedEnd, "the text ends inside a \\u escape")
                            }
                            guard Self.isHexDigit(bytes[index + offset]) else {
                                return fail(.badEscape, "\\u must be followed by 4 hexadecimal digits")
                            }
                        }
                        index += 6
                    default:
                        return fail(
                            .badEscape,
                            "\\\(shown(escape, quoted: false)) is not a JSON escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"
                        )
                    }
                case 0x00..<0x20:
                    return fail(
                        .controlCharacter,
                        "a control character (0x\(String(byte, radix: 16))) inside a string: escape it")
                default:
                    index += 1
                }
            }
            return fail(.unexpectedEnd, "the text ends inside a string (no closing \")")
        }

        /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        mutating func number() -> JSONSyntaxError? {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { return badNumber(start) }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, Self.isDigit(bytes[index]) { return badNumber(start) }
            } else {
                digits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, Self.isDigit(bytes[index]) else { return badNumber(start) }
                digits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, Self.isDigit(bytes[index]) else { return badNumber(start) }
                digits()
            }
            return nil
        }

        mutating func digits() {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }

        mutating func badNumber(_ start: Int) -> JSONSyntaxError {
            let end = min(bytes.count, index + 1)
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            index = start
            return fail(
                .badNumber, "\"\(text)\" is not a JSON number (no leading zeros, no + sign, digits on both sides of .)")
        }

        mutating func literal() -> JSONSyntaxError? {
            for word in ["true", "false", "null"] {
                let utf8 = Array(word.utf8)
                if bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 {
                    index += utf8.count
                    return nil
                }
            }
            return fail(.unexpectedCharacter, "expected true, false or null, found \(shown(bytes[index]))")
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
        }

        func shown(_ byte: UInt8, quoted: Bool = true) -> String {
            guard byte >= 0x20, byte < 0x7F else { return "the byte 0x\(String(byte, radix: 16))" }
            let text = String(UnicodeScalar(byte))
            return quoted ? "'\(text)'" : text
        }

        /// The error at `index`, with its line and column.
        func fail(_ code: JSONSyntaxError.Code, _ message: String) -> JSONSyntaxError {
            let offset = min(index, bytes.count)
            var line = 1
            var lineStart = 0
            for position in 0..<offset where bytes[position] == 0x0A {
                line += 1
                lineStart = position + 1
            }
            return JSONSyntaxError(
                code: code, line: line, column: offset - lineStart + 1, offset: offset, message: message)
        }
    }
}
