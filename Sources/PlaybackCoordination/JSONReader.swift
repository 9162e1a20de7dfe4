import Foundation
import HLSInterstitials
import HLSPlaylist

/// Reads the members of a JSON object one by one with errors that name their path, and refuses the
/// members nobody read.
struct JSONReader {
    private var fields: [String: JSONValue]
    let path: String
    let code: String

    init(_ value: JSONValue, path: String, code: String) throws(CoordinationError) {
        guard case .object(let fields) = value else {
            throw CoordinationError(code: code, path: path, "expected an object, found \(value.typeName)")
        }
        self.fields = fields
        self.path = path
        self.code = code
    }

    /// Parses JSON bytes into a value; `code` is the error code's prefix (`session` → `session-json`).
    static func parse(_ bytes: some Collection<UInt8>, code: String) throws(CoordinationError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw CoordinationError(code: "\(code)-json", path: "", "not valid JSON")
        }
    }

    func at(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func error(_ key: String, _ message: String) -> CoordinationError {
        CoordinationError(code: code, path: at(key), message)
    }

    /// The member, or nil when absent or null.
    mutating func take(_ key: String) -> JSONValue? {
        switch fields.removeValue(forKey: key) {
        case nil, .null?: nil
        case let value?: value
        }
    }

    mutating func string(_ key: String) throws(CoordinationError) -> String? {
        switch take(key) {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw error(key, "expected a string, found \(other.typeName)")
        }
    }

    mutating func requiredString(_ key: String) throws(CoordinationError) -> String {
        guard let text = try string(key) else { throw error(key, "missing") }
        return text
    }

    mutating func bool(_ key: String) throws(CoordinationError) -> Bool? {
        switch take(key) {
        case nil: return nil
        case .bool(let value)?: return value
        case let other?: throw error(key, "expected true or false, found \(other.typeName)")
        }
    }

    mutating func number(_ key: String) throws(CoordinationError) -> Double? {
        guard let value = take(key) else { return nil }
        guard let number = value.number, number.isFinite else {
            throw error(key, "expected a number, found \(value.typeName)")
        }
        return number
    }

    mutating func integer(_ key: String) throws(CoordinationError) -> Int64? {
        guard let value = take(key) else { return nil }
        guard case .integer(let number) = value else {
            throw error(key, "expected an integer, found \(value.typeName)")
        }
        return number
    }

    /// A playback rate: above 0 and at most 64 (the player's limit); 1 when absent.
    mutating func rate(_ key: String) throws(CoordinationError) -> Double {
        let rate = try number(key) ?? 1
        guard rate > 0, rate <= 64 else { throw error(key, "expected a rate above 0 and at most 64, found \(rate)") }
        return rate
    }

    /// Seconds as a media time: a finite number within ``MediaTime/userInputLimit`` either way
    /// (non-negative unless `signed`).
    mutating func time(_ key: String, signed: Bool = false) throws(CoordinationError) -> MediaTime? {
        guard let seconds = try number(key) else { return nil }
        guard signed || seconds >= 0, let time = MediaTime(exactlySeconds: seconds) else {
            throw error(
                key,
                "expected \(signed ? "a " : "a non-negative ")number of seconds of at most \(MediaTime.userInputLimit), found \(seconds)"
            )
        }
        return time
    }

    mutating func requiredTime(_ key: String, signed: Bool = false) throws(CoordinationError) -> MediaTime {
        guard let time = try time(key, signed: signed) else { throw error(key, "missing") }
        return time
    }

    mutating func array(_ key: String) throws(CoordinationError) -> [JSONValue]? {
        switch take(key) {
        case nil: return nil
        case .array(let items)?: return items
        case let other?: throw error(key, "expected an array, found \(other.typeName)")
        }
    }

    /// Fails on any member that was not read.
    func finish(known: String) throws(CoordinationError) {
        if let key = fields.keys.sorted().first { throw error(key, "unknown member (\(known))") }
    }
}

extension MediaTime {
    /// Seconds as a JSON number.
    var json: JSONValue { .number(seconds) }
}
