/// The text of skip control labels by key: what an application gives to turn an event's
/// X-SKIP-CONTROL-LABEL-ID into the words on its skip button (Apple's `localizedStringsBundle` and
/// `localizedStringsTableName`).
///
/// Read from a `.strings` file (`"key" = "value";` with comments and escapes), a String Catalog
/// (`.xcstrings`, one localization chosen by a list of preferred languages) or a flat JSON object
/// `{"key": "text"}`. Reading is pure and bounded: at most ``maximumBytes`` of input,
/// ``maximumEntries`` entries and ``maximumTextLength`` scalars per key or value.
public struct LocalizedStringsTable: Hashable, Sendable {
    /// The formats a table is read from.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Apple's `.strings` text: `"key" = "value";`, `/* */` and `//` comments, escapes.
        case strings
        /// Apple's String Catalog (`.xcstrings`), JSON.
        case stringCatalog = "xcstrings"
        /// A flat JSON object of strings: `{"key": "text"}`.
        case json

        /// The format a file name's extension names (`strings`, `xcstrings`, `json`); nil for others.
        public init?(fileName: String) {
            guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
            self.init(rawValue: fileName[fileName.index(after: dot)...].lowercased())
        }
    }

    /// The most bytes of input read (1 MiB).
    public static let maximumBytes = 1 << 20
    /// The most entries a table holds.
    public static let maximumEntries = 10_000
    /// The most Unicode scalars in one key or value.
    public static let maximumTextLength = 4_096

    /// The text of each key.
    public private(set) var strings: [String: String]

    /// A table of `strings`.
    public init(_ strings: [String: String] = [:]) { self.strings = strings }

    /// The text of `key`; nil when the table has none.
    public subscript(key: String) -> String? { strings[key] }

    /// Reads a table from `bytes` in `format`; for a String Catalog, each key's text is that of the
    /// first of `languages` it has (a language also matches its region variants' base: `fr-CA`
    /// falls back to `fr`), else that of the catalog's source language.
    ///
    /// - Throws: ``StringsTableError`` with where and why.
    public static func parse(
        _ bytes: [UInt8], format: Format, languages: [String] = []
    ) throws(StringsTableError) -> LocalizedStringsTable {
        guard bytes.count <= maximumBytes else {
            throw StringsTableError(code: .tooLarge, "\(bytes.count) bytes, more than the \(maximumBytes) allowed")
        }
        switch format {
        case .strings: return try StringsFileParser.parse(try text(of: bytes))
        case .stringCatalog: return try StringCatalogReader.read(json(bytes), languages: languages)
        case .json: return try flat(json(bytes))
        }
    }

    /// The text of `bytes`: UTF-8 (a byte order mark is dropped), or UTF-16 with a byte order mark.
    static func text(of bytes: [UInt8]) throws(StringsTableError) -> String {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return try utf8(Array(bytes.dropFirst(3)))
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            let body = bytes.dropFirst(2)
            guard body.count % 2 == 0 else {
                throw StringsTableError(code: .encoding, "UTF-16 text with an odd number of bytes")
            }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var index = body.startIndex
            while index < body.endIndex {
                let first = UInt16(body[index])
                let second = UInt16(body[index + 1])
                units.append(little ? first | second << 8 : first << 8 | second)
                index += 2
            }
            guard let text = String(validating: units, as: UTF16.self) else {
                throw StringsTableError(code: .encoding, "not valid UTF-16")
            }
            return text
        }
        return try utf8(bytes)
    }

    private static func utf8(_ bytes: [UInt8]) throws(StringsTableError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StringsTableError(code: .encoding, "not valid UTF-8 (nor UTF-16 with a byte order mark)")
        }
        return text
    }

    private static func json(_ bytes: [UInt8]) throws(StringsTableError) -> JSONValue {
        try JSONValue.parse(bytes, code: .json, as: StringsTableError.self)
    }

    /// A flat object of strings.
    private static func flat(_ value: JSONValue) throws(StringsTableError) -> LocalizedStringsTable {
        guard case .object(let members) = value else {
            throw StringsTableError(code: .schema, "the document must be an object of strings, not \(value.typeName)")
        }
        guard members.count <= maximumEntries else {
            throw StringsTableError(code: .tooMany, "\(members.count) entries, more than the \(maximumEntries) allowed")
        }
        var strings: [String: String] = [:]
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            guard case .string(let text) = member else {
                throw StringsTableError(code: .schema, path: key, "must be a string, not \(member.typeName)")
            }
            try checkLength(key, path: key)
            try checkLength(text, path: key)
            strings[key] = text
        }
        return LocalizedStringsTable(strings)
    }

    /// Throws when `text` is longer than ``maximumTextLength``.
    static func checkLength(
        _ text: String, path: String = "", line: Int? = nil, column: Int? = nil
    ) throws(StringsTableError) {
        guard text.unicodeScalars.count > maximumTextLength else { return }
        throw StringsTableError(
            code: .tooMany, path: path, line: line, column: column,
            "a key or value longer than \(maximumTextLength) characters")
    }
}
