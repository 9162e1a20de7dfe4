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
        let value = try JSONValue.parse(bytes, code: .insertSchedule, as: InsertionError.self)
        let entries: [JSONValue]
        let prefix: String
        switch value {
        case .array(let items):
            entries = items
            prefix = ""
        case .object(let fields):
            guard case .array(let items)? = fields["interstitials"] else {
                throw InsertionError(
                    code: .insertSchedule, path: "interstitials", "expected an array of interstitials")
            }
            entries = items
            prefix = "interstitials"
        default:
            throw InsertionError(code: .insertSchedule, "expected an object with \"interstitials\" or an array")
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
        var reader = try JSONReader<InsertionError>(value, path: path, code: .insertSchedule)
        func fail(_ key: String, _ message: String) -> InsertionError { reader.error(key, message) }
        guard let id = try reader.string("id") else { throw fail("id", "missing; every interstitial needs an ID") }
        var request = InsertionRequest(id: id)
        request.at = try reader.seconds("at")
        request.date = try reader.date("date")
        request.assetURI = try reader.string("assetUri")
        request.assetListURI = try reader.string("assetList")
        request.duration = try reader.seconds("duration")
        request.plannedDuration = try reader.seconds("plannedDuration")
        request.resumeOffset = try reader.seconds("resumeOffset", signed: true)
        request.playoutLimit = try reader.seconds("playoutLimit")
        request.restrict = try reader.tokens("restrict")
        request.snap = try reader.tokens("snap")
        request.cue = try reader.tokens("cue")
        request.occupies = try reader.string("occupies")
        request.style = try reader.string("style")
        switch reader.take("contentMayVary") {
        case nil: break
        case .bool(let flag)?: request.contentMayVary = flag ? "YES" : "NO"
        case .string(let text)?: request.contentMayVary = text
        case let other?: throw fail("contentMayVary", "expected a boolean or \"YES\"/\"NO\", found \(other.typeName)")
        }
        request.skipControl.offset = try reader.seconds("skipControlOffset")
        request.skipControl.duration = try reader.seconds("skipControlDuration")
        request.skipControl.labelID = try reader.string("skipControlLabelId")
        switch reader.take("attributes") {
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
        try reader.finish(allowing: extraKeys)
        return request
    }
}

extension InsertionRequest {
    /// The request as a schedule entry, the form ``decode(_:path:allowing:)`` reads back.
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["id": .string(id)]
        func seconds(_ key: String, _ value: MediaTime?) {
            if let value { fields[key] = .seconds(value) }
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
