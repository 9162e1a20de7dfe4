import Crypto
import HLSInterstitials
import HLSPlaylist

/// A target's breaks published as a Date Range Schedule (profile R27): one schedule tag in the
/// playlist and a JSON document listing the breaks' date ranges, with the attributes the plain
/// tags would have.
///
/// Pure and deterministic: the document is the events' attributes as JSON (keys sorted), and the
/// schedule's ID is derived from the document's bytes, so every replica that plans the same breaks
/// writes the same tag and document, and a change of breaks gives a new ID (a player loads a
/// schedule once per identity).
struct PublishedSchedule: Sendable, Hashable {
    /// The schedule tag's ID: `hlsi-schedule-` and 16 hex digits of the document's SHA-256.
    var identifier: String
    /// The schedule tag's attributes: ID, CLASS, START-DATE (the earliest break's), X-URI.
    var tag: AttributeList
    /// The document, `{"DATERANGES":[…]}`.
    var document: [UInt8]

    /// The prefix of the IDs of published schedules.
    static let identifierPrefix = "hlsi-schedule-"

    /// The document route's name under a content's path.
    static let documentName = "schedule.json"

    /// The URI of the document of schedule `identifier` of the content at `contentPath`.
    static func documentURI(contentPath: String, identifier: String) -> String {
        "\(contentPath)/\(documentName)?id=\(identifier)"
    }

    /// The schedule of `events` for the content at `contentPath`; nil when there are none, or when
    /// they do not fit one document (``DateRangeScheduleDocument/Limits/default``): the caller then
    /// writes plain tags.
    ///
    /// - Throws: the error of an event whose attributes cannot be written.
    static func make(
        events: [InterstitialEvent], contentPath: String
    ) throws(AttributeSyntaxError) -> PublishedSchedule? {
        let limits = DateRangeScheduleDocument.Limits.default
        guard !events.isEmpty, events.count <= limits.maximumEntries else { return nil }
        var entries: [JSONValue] = []
        var start: DateTime?
        for event in events {
            guard let date = event.date else { return nil }
            if start.map({ date < $0 }) ?? true { start = date }
            entries.append(entry(try event.dateRangeAttributes))
        }
        guard let start else { return nil }
        let document = Array(JSONValue.object(["DATERANGES": .array(entries)]).description.utf8)
        guard document.count <= limits.maximumBytes else { return nil }
        let digest = SHA256.hash(data: document).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }
        let identifier = identifierPrefix + digest.joined()
        var date = start
        if date.utcOffsetSeconds == nil { date.utcOffsetSeconds = 0 }
        let tag = AttributeList([
            Attribute(name: InterstitialEvent.AttributeName.id, value: try .quoted(identifier)),
            Attribute(name: "CLASS", value: try .quoted(DateRangeSchedule.className)),
            Attribute(name: InterstitialEvent.AttributeName.startDate, value: try .quoted(date.iso8601)),
            Attribute(
                name: DateRangeSchedule.AttributeName.uri,
                value: try .quoted(documentURI(contentPath: contentPath, identifier: identifier))),
        ])
        return PublishedSchedule(identifier: identifier, tag: tag, document: document)
    }

    /// One entry: each attribute keyed by name, a quoted-string or an enumerated-string or a
    /// hexadecimal-sequence as a JSON string, a number as a JSON number.
    static func entry(_ attributes: AttributeList) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for attribute in attributes {
            let value = attribute.value
            switch value.kind {
            case .quotedString: members[attribute.name] = .string(value.quotedString ?? "")
            case .signedDecimalFloatingPoint:
                if let integer = Int64(value.rawValue) {
                    members[attribute.name] = .integer(integer)
                } else if let number = Double(value.rawValue) {
                    members[attribute.name] = .number(number)
                } else {
                    members[attribute.name] = .string(value.rawValue)
                }
            case .hexadecimalSequence, .enumeratedString: members[attribute.name] = .string(value.rawValue)
            }
        }
        return .object(members)
    }
}
