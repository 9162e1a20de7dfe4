import HLSInterstitials
import HLSPlaylist

/// Reads the fields of a JSON object one by one, with errors that name the JSON path, and refuses
/// keys nobody read.
struct JSONObjectReader {
    private(set) var fields: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(APIError) {
        guard case .object(let fields) = value else {
            throw APIError.badRequest(
                code: "json-schema", path: path, "expected an object, found \(value.typeName)")
        }
        self.fields = fields
        self.path = path
    }

    func fieldPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func error(_ key: String, _ message: String) -> APIError {
        .badRequest(code: "json-schema", path: fieldPath(key), message)
    }

    mutating func take(_ key: String) -> JSONValue? {
        switch fields.removeValue(forKey: key) {
        case nil, .null?: nil
        case let value?: value
        }
    }

    mutating func string(_ key: String) throws(APIError) -> String? {
        switch take(key) {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw error(key, "expected a string, found \(other.typeName)")
        }
    }

    mutating func requiredString(_ key: String) throws(APIError) -> String {
        guard let text = try string(key) else { throw error(key, "missing") }
        return text
    }

    /// A non-empty identifier of letters, digits, `-`, `_` and `.`, usable in a URL path and as a
    /// date range ID.
    mutating func identifier(_ key: String) throws(APIError) -> String {
        let text = try requiredString(key)
        guard Self.isIdentifier(text) else {
            throw error(key, "\"\(text)\" is not an identifier: use 1 to 64 of A-Z a-z 0-9 - _ .")
        }
        return text
    }

    static func isIdentifier(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text != "." && text != ".."
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                    || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E
            }
    }

    /// A non-negative number of seconds, at most ``MediaTime/userInputLimit`` (the one bound for
    /// user-given times).
    mutating func seconds(_ key: String) throws(APIError) -> MediaTime? {
        guard let value = take(key) else { return nil }
        guard let number = value.number else {
            throw error(key, "expected a number of seconds, found \(value.typeName)")
        }
        guard number >= 0 else { throw error(key, "must not be negative, found \(value)") }
        guard let time = MediaTime(exactlySeconds: number) else {
            throw error(key, "\(value) s is out of range (at most \(MediaTime.userInputLimit) s)")
        }
        return time
    }

    mutating func integer(_ key: String) throws(APIError) -> Int? {
        guard let value = take(key) else { return nil }
        guard case .integer(let number) = value, number >= 0, number < 1_000_000 else {
            throw error(key, "expected a whole number, found \(value)")
        }
        return Int(number)
    }

    mutating func date(_ key: String) throws(APIError) -> DateTime? {
        guard let text = try string(key) else { return nil }
        guard let date = DateTime(iso8601: text) else {
            throw error(key, "expected an ISO-8601 date with a time zone, found \"\(Diagnostic.clipped(text))\"")
        }
        guard date.isWithinUserInputBounds else { throw error(key, "\(text) is out of the supported range") }
        return date
    }

    /// Fails on the first key that nobody read.
    func finish() throws(APIError) {
        if let unknown = fields.keys.sorted().first { throw error(unknown, "unknown key") }
    }
}

extension JSONValue {
    /// Seconds as a JSON number, an integer when whole.
    static func seconds(_ time: MediaTime) -> JSONValue {
        time.nanoseconds % 1_000_000_000 == 0 ? .integer(time.nanoseconds / 1_000_000_000) : .number(time.seconds)
    }
}
