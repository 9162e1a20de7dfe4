import HLSPlaylist

/// Reads the members of a JSON object one by one, with errors that name their JSON path, and refuses
/// the members nobody read: the one reader of every JSON input of the project.
///
/// The error type is the caller's (an HTTP error for the server, a coordination error for
/// sessions); every error carries the reader's `code` (such as `json-schema`) and the path.
public struct JSONReader<Failure: JSONPathError> {
    private var fields: [String: JSONValue]
    /// The path of the object, such as `cadence`; empty for the document.
    public let path: String
    /// The code of the errors the reader throws.
    public let code: Failure.Code

    /// A reader of `value`, which must be an object.
    public init(_ value: JSONValue, path: String = "", code: Failure.Code) throws(Failure) {
        guard case .object(let fields) = value else {
            throw Failure.jsonProblem(code: code, path: path, message: "expected an object, found \(value.typeName)")
        }
        self.fields = fields
        self.path = path
        self.code = code
    }

    /// The path of a member.
    public func at(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The error for a member.
    public func error(_ key: String, _ message: String) -> Failure {
        Failure.jsonProblem(code: code, path: at(key), message: message)
    }

    /// The member, or nil when it is absent or null; it counts as read.
    public mutating func take(_ key: String) -> JSONValue? {
        switch fields.removeValue(forKey: key) {
        case nil, .null?: nil
        case let value?: value
        }
    }

    /// A string member.
    public mutating func string(_ key: String) throws(Failure) -> String? {
        switch take(key) {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw error(key, "expected a string, found \(other.typeName)")
        }
    }

    /// A string member that must be there.
    public mutating func requiredString(_ key: String) throws(Failure) -> String {
        guard let text = try string(key) else { throw error(key, "missing") }
        return text
    }

    /// A boolean member.
    public mutating func bool(_ key: String) throws(Failure) -> Bool? {
        switch take(key) {
        case nil: return nil
        case .bool(let value)?: return value
        case let other?: throw error(key, "expected true or false, found \(other.typeName)")
        }
    }

    /// A finite number member.
    public mutating func number(_ key: String) throws(Failure) -> Double? {
        guard let value = take(key) else { return nil }
        guard let number = value.number, number.isFinite else {
            throw error(key, "expected a number, found \(value.typeName)")
        }
        return number
    }

    /// A whole-number member.
    public mutating func integer(_ key: String) throws(Failure) -> Int64? {
        guard let value = take(key) else { return nil }
        guard case .integer(let number) = value else {
            throw error(key, "expected an integer, found \(value.typeName)")
        }
        return number
    }

    /// A whole number in `range`.
    public mutating func integer(_ key: String, in range: ClosedRange<Int64>) throws(Failure) -> Int? {
        guard let value = take(key) else { return nil }
        guard case .integer(let number) = value, range.contains(number) else {
            throw error(key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(value)")
        }
        return Int(number)
    }

    /// Seconds as a media time: a finite number within `MediaTime.userInputLimit` either way, the
    /// one bound for user-given times (non-negative unless `signed`).
    public mutating func seconds(_ key: String, signed: Bool = false) throws(Failure) -> MediaTime? {
        guard let value = take(key) else { return nil }
        guard let number = value.number else {
            throw error(key, "expected a number of seconds, found \(value.typeName)")
        }
        guard signed || number >= 0 else { throw error(key, "must not be negative, found \(value)") }
        do {
            return try MediaTime.userInput(seconds: number, text: "\(value)")
        } catch {
            throw self.error(key, error.description)
        }
    }

    /// Seconds that must be there.
    public mutating func requiredSeconds(_ key: String, signed: Bool = false) throws(Failure) -> MediaTime {
        guard let time = try seconds(key, signed: signed) else { throw error(key, "missing") }
        return time
    }

    /// An ISO-8601 date with a time zone, within the supported range.
    public mutating func date(_ key: String) throws(Failure) -> DateTime? {
        guard let text = try string(key) else { return nil }
        guard let date = DateTime(iso8601: text) else {
            throw error(key, "expected an ISO-8601 date with a time zone, found \"\(Diagnostic.clipped(text))\"")
        }
        guard date.isWithinUserInputBounds else { throw error(key, "\(text) is out of the supported range") }
        return date
    }

    /// An array member.
    public mutating func array(_ key: String) throws(Failure) -> [JSONValue]? {
        switch take(key) {
        case nil: return nil
        case .array(let items)?: return items
        case let other?: throw error(key, "expected an array, found \(other.typeName)")
        }
    }

    /// An array of strings, or one comma-separated string.
    public mutating func tokens(_ key: String) throws(Failure) -> [String]? {
        switch take(key) {
        case nil: return nil
        case .string(let text)?: return text.isEmpty ? [] : text.split(separator: ",").map(String.init)
        case .array(let items)?:
            var result: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    throw error("\(key)[\(index)]", "expected a string, found \(item.typeName)")
                }
                result.append(text)
            }
            return result
        case let other?: throw error(key, "expected an array of strings, found \(other.typeName)")
        }
    }

    /// A reader of an object member.
    public mutating func object(_ key: String) throws(Failure) -> JSONReader? {
        guard let value = take(key) else { return nil }
        return try JSONReader(value, path: at(key), code: code)
    }

    /// Fails on the first member (in sorted order) that nobody read, unless it is in `allowing`;
    /// `known` lists the members the object may have.
    public func finish(known: String? = nil, allowing extra: Set<String> = []) throws(Failure) {
        if let key = fields.keys.sorted().first(where: { !extra.contains($0) }) {
            throw error(key, known.map { "unknown member (\($0))" } ?? "unknown key")
        }
    }
}
