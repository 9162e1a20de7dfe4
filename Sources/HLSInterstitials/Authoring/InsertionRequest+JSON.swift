import Foundation
import HLSPlaylist

extension InsertionRequest {
    /// Reads a schedule file: `{"interstitials": [ … ]}` or a bare array of entries.
    ///
    /// Each entry has `id` and `at` (seconds) or `date` (ISO-8601), and optionally `assetUri`,
    /// `assetList`, `duration`, `plannedDuration`, `resumeOffset`, `playoutLimit`, `restrict`, `snap`,
    /// `cue` (arrays of identifiers, or one comma-separated string), `occupies`, `style`,
    /// `contentMayVary` (a string or a boolean), `skipControlOffset`, `skipControlDuration`,
    /// `skipControlLabelId`, and `attributes` (an object of `X-` names to strings or numbers).
    ///
    /// - Throws: ``InsertionError`` naming the JSON path, such as `interstitials[1].duration: expected a number`.
    public static func decodeSchedule(_ bytes: some Collection<UInt8>) throws(InsertionError) -> [InsertionRequest] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw InsertionError(code: "insert-schedule", "the schedule file is not valid JSON")
        }
        let entries: [JSONValue]
        let prefix: String
        switch value {
        case .array(let items):
            entries = items
            prefix = ""
        case .object(let fields):
            guard case .array(let items)? = fields["interstitials"] else {
                throw InsertionError(
                    code: "insert-schedule", path: "interstitials", "expected an array of interstitials")
            }
            entries = items
            prefix = "interstitials"
        default:
            throw InsertionError(code: "insert-schedule", "expected an object with \"interstitials\" or an array")
        }
        return try entries.enumerated().map { (index, entry) throws(InsertionError) in
            try decode(entry, path: "\(prefix)[\(index)]")
        }
    }

    /// Reads one schedule entry (see ``decodeSchedule(_:)``); `path` prefixes the JSON paths of errors,
    /// and keys in `allowing` are left for the caller instead of being refused as unknown.
    public static func decode(
        _ value: JSONValue, path: String = "", allowing extraKeys: Set<String> = []
    ) throws(InsertionError) -> InsertionRequest {
        func fail(_ key: String, _ message: String) -> InsertionError {
            InsertionError(
                code: "insert-schedule", path: key.isEmpty ? path : path.isEmpty ? key : "\(path).\(key)", message)
        }
        guard case .object(var fields) = value else { throw fail("", "expected an object, found \(value.typeName)") }
        func string(_ key: String) throws(InsertionError) -> String? {
            switch fields.removeValue(forKey: key) {
            case nil: return nil
            case .string(let text)?: return text
            case let other?: throw fail(key, "expected a string, found \(other.typeName)")
            }
        }
        func seconds(_ key: String, signed: Bool = false) throws(InsertionError) -> MediaTime? {
            guard let value = fields.removeValue(forKey: key) else { return nil }
            guard let number = value.number else {
                throw fail(key, "expected a number of seconds, found \(value.typeName)")
            }
            if !signed, number < 0 { throw fail(key, "must not be negative, found \(value)") }
            guard let time = MediaTime(exactlySeconds: number) else {
                throw fail(key, "\(value) s is out of range (at most \(MediaTime.userInputLimit) s either way)")
            }
            return time
        }
        func tokens(_ key: String) throws(InsertionError) -> [String]? {
            switch fields.removeValue(forKey: key) {
            case nil: return nil
            case .string(let text)?: return text.isEmpty ? [] : text.split(separator: ",").map(String.init)
            case .array(let items)?:
                var result: [String] = []
                for (index, item) in items.enumerated() {
                    guard case .string(let text) = item else {
                        throw fail("\(key)[\(index)]", "expected a string, found \(item.typeName)")
                    }
                    result.append(text)
                }
                return result
            case let other?: throw fail(key, "expected an array of strings, found \(other.typeName)")
            }
        }
        guard let id = try string("id") else { throw fail("id", "missing; every interstitial needs an ID") }
        var request = InsertionRequest(id: id)
        request.at = try seconds("at")
        if let text = try string("date") {
            guard let date = DateTime(iso8601: text) else {
                throw fail("date", "expected an ISO-8601 date, found \"\(Diagnostic.clipped(text))\"")
            }
            guard date.isWithinUserInputBounds else { throw fail("date", "\(text) is out of the supported range") }
            request.date = date
        }
        request.assetURI = try string("assetUri")
        request.assetListURI = try string("assetList")
        request.duration = try seconds("duration")
        request.plannedDuration = try seconds("plannedDuration")
        request.resumeOffset = try seconds("resumeOffset", signed: true)
        request.playoutLimit = try seconds("playoutLimit")
        request.restrict = try tokens("restrict")
        request.snap = try tokens("snap")
        request.cue = try tokens("cue")
        request.occupies = try string("occupies")
        request.style = try string("style")
        switch fields.removeValue(forKey: "contentMayVary") {
        case nil: break
        case .bool(let flag)?: request.contentMayVary = flag ? "YES" : "NO"
        case .string(let text)?: request.contentMayVary = text
        case let other?: throw fail("contentMayVary", "expected a boolean or \"YES\"/\"NO\", found \(other.typeName)")
        }
        request.skipControl.offset = try seconds("skipControlOffset")
        request.skipControl.duration = try seconds("skipControlDuration")
        request.skipControl.labelID = try string("skipControlLabelId")
        switch fields.removeValue(forKey: "attributes") {
        case nil: break
        case .object(let attributes)?:
            for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
                let key = "attributes.\(Diagnostic.clipped(name))"
                do {
                    try Attribute.checkClientName(name)
                    switch value {
                    case .string(let text): request.attributes.append(Attribute(name: name, value: try .quoted(text)))
                    case .integer, .number:
                        let number = AttributeValue(unchecked: value.description)
                        guard number.signedDecimal != nil else {
                            throw fail(key, "expected a plain decimal number, found \(value.description)")
                        }
                        request.attributes.append(Attribute(name: name, value: number))
                    default: throw fail(key, "expected a string or a number, found \(value.typeName)")
                    }
                } catch let error as AttributeSyntaxError {
                    throw fail(key, error.description)
                } catch let error as InsertionError {
                    throw error
                } catch {
                    throw fail(key, "\(error)")
                }
            }
        case let other?: throw fail("attributes", "expected an object, found \(other.typeName)")
        }
        if let unknown = fields.keys.sorted().first(where: { !extraKeys.contains($0) }) {
            throw fail(unknown, "unknown key")
        }
        return request
    }
}

extension InsertionRequest {
    /// The request as a schedule entry, the form ``decode(_:path:allowing:)`` reads back.
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["id": .string(id)]
        func seconds(_ key: String, _ value: MediaTime?) {
            guard let value else { return }
            fields[key] =
                value.nanoseconds % 1_000_000_000 == 0
                ? .integer(value.nanoseconds / 1_000_000_000) : .number(value.seconds)
        }
        func tokens(_ key: String, _ value: [String]?) {
            if let value { fields[key] = .array(value.map(JSONValue.string)) }
        }
        func string(_ key: String, _ value: String?) {
            if let value { fields[key] = .string(value) }
        }
        seconds("at", at)
        string("date", date?.iso8601)
        string("assetUri", assetURI)
        string("assetList", assetListURI)
        seconds("duration", duration)
        seconds("plannedDuration", plannedDuration)
        seconds("resumeOffset", resumeOffset)
        seconds("playoutLimit", playoutLimit)
        tokens("restrict", restrict)
        tokens("snap", snap)
        tokens("cue", cue)
        string("occupies", occupies)
        string("style", style)
        string("contentMayVary", contentMayVary)
        seconds("skipControlOffset", skipControl.offset)
        seconds("skipControlDuration", skipControl.duration)
        string("skipControlLabelId", skipControl.labelID)
        if !attributes.isEmpty {
            var object: [String: JSONValue] = [:]
            for attribute in attributes {
                if let text = attribute.value.quotedString {
                    object[attribute.name] = .string(text)
                } else if attribute.value.signedDecimal != nil, let number = Double(attribute.value.rawValue) {
                    object[attribute.name] = .number(number)
                } else {
                    object[attribute.name] = .string(attribute.value.rawValue)
                }
            }
            fields["attributes"] = .object(object)
        }
        return .object(fields)
    }
}
