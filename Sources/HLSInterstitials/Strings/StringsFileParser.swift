/// Reads Apple's `.strings` text: `"key" = "value";` entries, `/* */` and `//` comments, quoted
/// strings with escapes (`\"`, `\\`, `\n`, `\t`, `\r`, octal `\101`, `\U00E9`, surrogate pairs), and
/// unquoted words (`key = value;`); `"key";` alone maps the key to itself. A later entry for a key
/// replaces an earlier one, as Apple's reader does.
///
/// Errors carry the line and column (from 1) where the text is wrong.
enum StringsFileParser {
    /// Parses the text of a `.strings` file.
    static func parse(_ text: String) throws(StringsTableError) -> LocalizedStringsTable {
        var cursor = Cursor(scalars: Array(text.unicodeScalars))
        var strings: [String: String] = [:]
        var count = 0
        while true {
            try cursor.skipSpace()
            guard let first = cursor.peek else { break }
            let (line, column) = (cursor.line, cursor.column)
            guard first == "\"" || Cursor.isWord(first) else {
                throw cursor.error("expected a quoted or unquoted key, found \(Cursor.show(first))")
            }
            let key = try cursor.string()
            try LocalizedStringsTable.checkLength(key, line: line, column: column)
            try cursor.skipSpace()
            var value = key
            if cursor.peek == "=" {
                cursor.advance()
                try cursor.skipSpace()
                guard let next = cursor.peek, next == "\"" || Cursor.isWord(next) else {
                    throw cursor.error("expected a value after '=' for key \"\(key)\"")
                }
                let (valueLine, valueColumn) = (cursor.line, cursor.column)
                value = try cursor.string()
                try LocalizedStringsTable.checkLength(value, line: valueLine, column: valueColumn)
                try cursor.skipSpace()
            }
            guard cursor.peek == ";" else {
                throw cursor.error("expected ';' after the entry for key \"\(key)\"")
            }
            cursor.advance()
            count += 1
            guard count <= LocalizedStringsTable.maximumEntries else {
                throw StringsTableError(
                    code: .tooMany, line: line, column: column,
                    "more than the \(LocalizedStringsTable.maximumEntries) entries allowed")
            }
            strings[key] = value
        }
        return LocalizedStringsTable(strings)
    }

    /// A place in the text, with its line and column.
    private struct Cursor {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        var column = 1

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        func peek(_ offset: Int) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }

        mutating func advance() {
            guard index < scalars.count else { return }
            if scalars[index] == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }

        func error(_ message: String) -> StringsTableError {
            StringsTableError(code: .syntax, line: line, column: column, message)
        }

        /// Passes white space and comments.
        mutating func skipSpace() throws(StringsTableError) {
            while let scalar = peek {
                if scalar.properties.isWhitespace {
                    advance()
                } else if scalar == "/", peek(1) == "*" {
                    let opening = error("a comment opened here is not closed with '*/'")
                    advance()
                    advance()
                    while !(peek == "*" && peek(1) == "/") {
                        guard peek != nil else { throw opening }
                        advance()
                    }
                    advance()
                    advance()
                } else if scalar == "/", peek(1) == "/" {
                    while let next = peek, next != "\n" { advance() }
                } else {
                    return
                }
            }
        }

        /// A quoted string or an unquoted word.
        mutating func string() throws(StringsTableError) -> String {
            var result = String.UnicodeScalarView()
            if peek != "\"" {
                while let scalar = peek, Self.isWord(scalar) {
                    result.append(scalar)
                    advance()
                    try checkLength(result)
                }
                return String(result)
            }
            let opening = error("a string opened here is not closed with '\"'")
            advance()
            while true {
                guard let scalar = peek else { throw opening }
                if scalar == "\"" {
                    advance()
                    return String(result)
                }
                if scalar == "\\" {
                    result.append(try escape())
                } else {
                    result.append(scalar)
                    advance()
                }
                try checkLength(result)
            }
        }

        /// Stops a string that grows past the limit before it is read to its end.
        private func checkLength(_ text: String.UnicodeScalarView) throws(StringsTableError) {
            guard text.count > LocalizedStringsTable.maximumTextLength else { return }
            throw StringsTableError(
                code: .tooMany, line: line, column: column,
                "a key or value longer than \(LocalizedStringsTable.maximumTextLength) characters")
        }

        /// The character of an escape sequence at the backslash.
        private mutating func escape() throws(StringsTableError) -> Unicode.Scalar {
            let start = error("")
            advance()
            guard let scalar = peek else {
                throw StringsTableError(
                    code: .syntax, line: start.line, column: start.column, "a backslash at the end of the text")
            }
            advance()
            switch scalar {
            case "n": return "\n"
            case "t": return "\t"
            case "r": return "\r"
            case "a": return "\u{07}"
            case "b": return "\u{08}"
            case "f": return "\u{0C}"
            case "v": return "\u{0B}"
            case "0"..."7":
                var value = scalar.value - 48
                for _ in 0..<2 {
                    guard let digit = peek, ("0"..."7").contains(digit) else { break }
                    value = value * 8 + digit.value - 48
                    advance()
                }
                return Unicode.Scalar(value) ?? "\u{FFFD}"
            case "U", "u":
                let high = try hex(start)
                if (0xD800...0xDBFF).contains(high) {
                    guard peek == "\\", peek(1) == "U" || peek(1) == "u" else {
                        throw located(start, "a high surrogate \\U\(String(high, radix: 16)) without its low surrogate")
                    }
                    advance()
                    advance()
                    let low = try hex(start)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw located(start, "a high surrogate not followed by a low surrogate")
                    }
                    return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                }
                guard let value = Unicode.Scalar(high) else {
                    throw located(start, "\\U\(String(high, radix: 16)) is a lone surrogate")
                }
                return value
            default:
                // `\"`, `\\`, `\'` and any other character stand for themselves, as in Apple's reader.
                return scalar
            }
        }

        /// One to four hex digits of a `\U` escape.
        private mutating func hex(_ start: StringsTableError) throws(StringsTableError) -> UInt32 {
            var value: UInt32 = 0
            var digits = 0
            while digits < 4, let scalar = peek, let digit = Self.hexDigit(scalar) ?? Self.hexLetter(scalar) {
                value = value * 16 + digit
                digits += 1
                advance()
            }
            guard digits > 0 else { throw located(start, "\\U must be followed by hex digits") }
            return value
        }

        private func located(_ start: StringsTableError, _ message: String) -> StringsTableError {
            StringsTableError(code: .syntax, line: start.line, column: start.column, message)
        }

        private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt32? {
            ("0"..."9").contains(scalar) ? scalar.value - 48 : nil
        }

        private static func hexLetter(_ scalar: Unicode.Scalar) -> UInt32? {
            if ("a"..."f").contains(scalar) { return scalar.value - 87 }
            if ("A"..."F").contains(scalar) { return scalar.value - 55 }
            return nil
        }

        /// Whether `scalar` may appear in an unquoted word.
        static func isWord(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "_$+/:.-".unicodeScalars.contains(scalar)
        }

        /// A character for a message.
        static func show(_ scalar: Unicode.Scalar) -> String {
            scalar.properties.isWhitespace || scalar.value < 0x20
                ? "U+\(String(scalar.value, radix: 16))" : "'\(scalar)'"
        }
    }
}
