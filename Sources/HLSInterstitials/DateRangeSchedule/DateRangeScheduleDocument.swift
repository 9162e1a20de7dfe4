import HLSPlaylist

/// The JSON document a Date Range Schedule's X-URI returns: `{"DATERANGES": [entry, …]}`, each entry
/// a date range keyed by attribute name (`ID` and `CLASS` required; `START-DATE`, or
/// `X-SCHEDULE-OFFSET` in seconds from the schedule tag's START-DATE; any other attribute).
///
/// Reading is bounded (``Limits``) and located: a document that cannot be read at all throws a
/// ``DateRangeScheduleError``; an entry that cannot be a date range is left out and reported in
/// ``problems`` with its JSON path, the others are kept (profile R27, ``DateRangeSchedulePolicy``).
public struct DateRangeScheduleDocument: Sendable, Hashable {
    /// How much a document may hold; beyond it the whole document is refused.
    public struct Limits: Sendable, Hashable {
        /// The largest document, in bytes (checked before parsing).
        public var maximumBytes: Int
        /// The most entries in `DATERANGES`.
        public var maximumEntries: Int
        /// The deepest nesting of arrays and objects (the document's object counts 1; checked by one
        /// pass over the bytes before parsing).
        public var maximumDepth: Int
        /// The largest X-SCHEDULE-OFFSET.
        public var maximumOffset: MediaTime

        /// Creates limits.
        public init(
            maximumBytes: Int = 1 << 20, maximumEntries: Int = 1000, maximumDepth: Int = 16,
            maximumOffset: MediaTime = .userInputLimit
        ) {
            self.maximumBytes = maximumBytes
            self.maximumEntries = maximumEntries
            self.maximumDepth = maximumDepth
            self.maximumOffset = maximumOffset
        }

        /// The defaults: 1 MiB, 1000 entries, depth 16, offsets up to `MediaTime.userInputLimit`.
        public static let `default` = Limits()
    }

    /// One entry: a date range as it would be written on its own EXT-X-DATERANGE tag.
    public struct Entry: Sendable, Hashable {
        /// `ID`.
        public var identifier: String
        /// `CLASS`.
        public var className: String
        /// `START-DATE`, when the entry is dated by it.
        public var startDate: DateTime?
        /// `X-SCHEDULE-OFFSET`, when the entry is dated by it: seconds from the schedule's START-DATE.
        public var scheduleOffset: MediaTime?
        /// The entry's attributes in writing order: ID, CLASS, START-DATE when given, then the others
        /// sorted by name; X-SCHEDULE-OFFSET is not among them (it becomes START-DATE).
        public var attributes: AttributeList
        /// The JSON path of the entry, such as `DATERANGES[2]`.
        public var path: String

        /// Creates an entry.
        public init(
            identifier: String, className: String, startDate: DateTime? = nil, scheduleOffset: MediaTime? = nil,
            attributes: AttributeList, path: String
        ) {
            self.identifier = identifier
            self.className = className
            self.startDate = startDate
            self.scheduleOffset = scheduleOffset
            self.attributes = attributes
            self.path = path
        }

        /// The entry's start: START-DATE, else the schedule's START-DATE plus X-SCHEDULE-OFFSET.
        public func start(scheduleStart: DateTime) -> DateTime {
            startDate ?? scheduleStart + (scheduleOffset ?? .zero)
        }

        /// The attributes of the tag the entry stands for: START-DATE placed (third, after ID and
        /// CLASS) from X-SCHEDULE-OFFSET when the entry is dated by it.
        public func tagAttributes(scheduleStart: DateTime) -> AttributeList {
            guard startDate == nil else { return attributes }
            var list = Array(attributes)
            let date = start(scheduleStart: scheduleStart).iso8601
            list.insert(Attribute(name: "START-DATE", value: AttributeValue(unchecked: "\"\(date)\"")), at: 2)
            return AttributeList(list)
        }
    }

    /// The entries that can be date ranges, in document order.
    public var entries: [Entry]
    /// The entries left out, each with its code and path, in document order.
    public var problems: [DateRangeScheduleError]

    /// Creates a document.
    public init(entries: [Entry], problems: [DateRangeScheduleError] = []) {
        self.entries = entries
        self.problems = problems
    }

    /// Reads a schedule document from JSON bytes, within `limits`.
    ///
    /// - Throws: ``DateRangeScheduleError`` with code `schedule-too-large`, `schedule-too-deep`,
    ///   `schedule-json`, `schedule-schema` or `schedule-too-many-entries` when the document cannot be
    ///   read at all; with `DateRangeSchedulePolicy/entryFailure` set to fail the whole document, the
    ///   first entry problem.
    public static func decode(
        _ bytes: some Collection<UInt8>, limits: Limits = .default, policy: DateRangeSchedulePolicy = .profile
    ) throws(DateRangeScheduleError) -> DateRangeScheduleDocument {
        guard bytes.count <= limits.maximumBytes else {
            throw DateRangeScheduleError(
                code: .tooLarge, "the document is \(bytes.count) bytes, larger than \(limits.maximumBytes) bytes")
        }
        if let offset = JSONDepthScan.firstOffset(beyond: limits.maximumDepth, in: bytes) {
            throw DateRangeScheduleError(
                code: .tooDeep,
                "arrays and objects are nested more than \(limits.maximumDepth) deep (at byte \(offset))")
        }
        let value = try JSONValue.parse(bytes, code: .json, as: DateRangeScheduleError.self)
        return try decode(value, limits: limits, policy: policy)
    }

    /// Reads a schedule document from a decoded JSON value (the count limit applies; the byte and
    /// depth limits are for ``decode(_:limits:policy:)``).
    ///
    /// - Throws: ``DateRangeScheduleError`` as ``decode(_:limits:policy:)`` does.
    public static func decode(
        _ value: JSONValue, limits: Limits = .default, policy: DateRangeSchedulePolicy = .profile
    ) throws(DateRangeScheduleError) -> DateRangeScheduleDocument {
        guard case .object(let top) = value else {
            throw DateRangeScheduleError(code: .schema, "expected an object with DATERANGES, found \(value.typeName)")
        }
        let items: [JSONValue]
        switch top["DATERANGES"] {
        case nil:
            throw DateRangeScheduleError(code: .schema, path: "DATERANGES", "missing; the document has no entries")
        case .array(let array)?: items = array
        case let other?:
            throw DateRangeScheduleError(
                code: .schema, path: "DATERANGES", "expected an array, found \(other.typeName)")
        }
        guard items.count <= limits.maximumEntries else {
            throw DateRangeScheduleError(
                code: .tooManyEntries, path: "DATERANGES",
                "\(items.count) entries, more than \(limits.maximumEntries)")
        }
        var document = DateRangeScheduleDocument(entries: [])
        var seen: Set<String> = []
        for (index, item) in items.enumerated() {
            let path = "DATERANGES[\(index)]"
            var entry: Entry
            do throws(DateRangeScheduleError) {
                entry = try Self.entry(item, path: path, limits: limits, policy: policy)
                guard seen.insert(entry.identifier).inserted else {
                    throw DateRangeScheduleError(
                        code: .entryDuplicate, path: "\(path).ID",
                        "\"\(Diagnostic.clipped(entry.identifier))\" is the ID of an earlier entry; the first is kept")
                }
            } catch {
                if policy.entryFailure == .wholeDocument { throw error }
                document.problems.append(error)
                continue
            }
            document.entries.append(entry)
        }
        return document
    }

    /// Reads one entry.
    private static func entry(
        _ item: JSONValue, path: String, limits: Limits, policy: DateRangeSchedulePolicy
    ) throws(DateRangeScheduleError) -> Entry {
        guard case .object(let fields) = item else {
            throw DateRangeScheduleError(code: .entryType, path: path, "expected an object, found \(item.typeName)")
        }
        func at(_ key: String) -> String { "\(path).\(key)" }
        func string(_ key: String) throws(DateRangeScheduleError) -> String? {
            switch fields[key] {
            case nil: return nil
            case .string(let text)?: return text
            case let other?:
                throw DateRangeScheduleError(
                    code: .entryType, path: at(key), "expected a string, found \(other.typeName)")
            }
        }
        guard let id = try string("ID"), !id.isEmpty else {
            throw DateRangeScheduleError(code: .entryID, path: at("ID"), "missing; each entry MUST have an ID")
        }
        guard let className = try string("CLASS"), !className.isEmpty else {
            throw DateRangeScheduleError(code: .entryClass, path: at("CLASS"), "missing; each entry MUST have a CLASS")
        }
        if !policy.accepts(className: className) {
            throw DateRangeScheduleError(
                code: .entryClass, path: at("CLASS"),
                "\"\(Diagnostic.clipped(className))\" is not a class this client schedules (profile R27)")
        }
        let offsetKey = DateRangeSchedule.AttributeName.scheduleOffset
        var startDate: DateTime?
        if let text = try string("START-DATE") {
            guard let date = DateTime(iso8601: text), date.isWithinUserInputBounds else {
                throw DateRangeScheduleError(
                    code: .entryStart, path: at("START-DATE"),
                    "expected an ISO-8601 date with a time zone, found \"\(Diagnostic.clipped(text))\"")
            }
            startDate = date
        }
        var offset: MediaTime?
        if let value = fields[offsetKey] {
            guard startDate == nil else {
                throw DateRangeScheduleError(
                    code: .entryStart, path: at(offsetKey),
                    "an entry is dated by START-DATE or X-SCHEDULE-OFFSET, not both")
            }
            guard let number = value.number else {
                throw DateRangeScheduleError(
                    code: .entryType, path: at(offsetKey), "expected a number of seconds, found \(value.typeName)")
            }
            guard number.isFinite, number >= 0,
                let time = MediaTime(checkedSeconds: number, limit: limits.maximumOffset)
            else {
                throw DateRangeScheduleError(
                    code: .entryOffset, path: at(offsetKey),
                    "expected a number of seconds from 0 to \(limits.maximumOffset.seconds), found \(value)")
            }
            offset = time
        }
        guard startDate != nil || offset != nil else {
            throw DateRangeScheduleError(
                code: .entryStart, path: at("START-DATE"), "missing; an entry needs START-DATE or X-SCHEDULE-OFFSET")
        }
        var attributes: [Attribute] = []
        let leading = ["ID", "CLASS", "START-DATE"]
        for key in leading + fields.keys.filter({ !leading.contains($0) && $0 != offsetKey }).sorted() {
            guard let value = fields[key] else { continue }
            attributes.append(Attribute(name: key, value: try attributeValue(value, name: key, path: at(key))))
        }
        return Entry(
            identifier: id, className: className, startDate: startDate, scheduleOffset: offset,
            attributes: AttributeList(attributes), path: path)
    }

    /// The value an attribute would have on a tag (§4.4.5.1 types; `X-` values: a string is a
    /// quoted-string, a number a signed-decimal-floating-point).
    private static func attributeValue(
        _ value: JSONValue, name: String, path: String
    ) throws(DateRangeScheduleError) -> AttributeValue {
        do throws(AttributeSyntaxError) {
            try Attribute.checkName(name)
        } catch {
            throw DateRangeScheduleError(code: .entryValue, path: path, "not an attribute name: \(error.message)")
        }
        func wrongType(_ expected: String) -> DateRangeScheduleError {
            DateRangeScheduleError(code: .entryType, path: path, "expected \(expected), found \(value.typeName)")
        }
        func written(
            _ make: () throws(AttributeSyntaxError) -> AttributeValue
        ) throws(DateRangeScheduleError)
            -> AttributeValue
        {
            do throws(AttributeSyntaxError) {
                return try make()
            } catch {
                throw DateRangeScheduleError(code: .entryValue, path: path, error.message)
            }
        }
        switch (name, value) {
        case ("DURATION", _), ("PLANNED-DURATION", _):
            guard let number = value.number else { throw wrongType("a number of seconds") }
            guard number >= 0, let time = MediaTime(exactlySeconds: number) else {
                throw DateRangeScheduleError(
                    code: .entryValue, path: path, "expected a non-negative number of seconds, found \(value)")
            }
            return .decimal(time)
        case ("END-DATE", .string(let text)):
            guard DateTime(iso8601: text) != nil else {
                throw DateRangeScheduleError(
                    code: .entryValue, path: path,
                    "expected an ISO-8601 date with a time zone, found \"\(Diagnostic.clipped(text))\"")
            }
            return try written { () throws(AttributeSyntaxError) in try .quoted(text) }
        case ("CUE", .array(let items)):
            var tokens: [String] = []
            for item in items {
                guard case .string(let token) = item else { throw wrongType("a string or an array of strings") }
                tokens.append(token)
            }
            return try written { () throws(AttributeSyntaxError) in try .enumeratedList(tokens) }
        case ("END-ON-NEXT", .string(let text)):
            // §4.4.5.1: "END-ON-NEXT=YES"; no other value exists.
            guard text == "YES" else {
                throw DateRangeScheduleError(
                    code: .entryValue, path: path, "expected \"YES\", found \"\(Diagnostic.clipped(text))\"")
            }
            return try written { () throws(AttributeSyntaxError) in try .enumerated(text) }
        case ("SCTE35-CMD", .string(let text)), ("SCTE35-OUT", .string(let text)), ("SCTE35-IN", .string(let text)):
            let value = try written { () throws(AttributeSyntaxError) in try AttributeValue(rawValue: text) }
            guard value.kind == .hexadecimalSequence, value.hexadecimalSequence != nil else {
                throw DateRangeScheduleError(
                    code: .entryValue, path: path,
                    "expected a hexadecimal-sequence (0x…), found \"\(Diagnostic.clipped(text))\"")
            }
            return value
        case (_, .string(let text)):
            return try written { () throws(AttributeSyntaxError) in try .quoted(text) }
        case (_, .integer(let number)) where name.hasPrefix("X-"):
            return try written { () throws(AttributeSyntaxError) in try AttributeValue(rawValue: String(number)) }
        case (_, .number(let number)) where name.hasPrefix("X-"):
            let text = "\(number)"
            guard number.isFinite, !text.contains("e") else {
                throw DateRangeScheduleError(
                    code: .entryValue, path: path, "\(value) cannot be written as a decimal number without an exponent")
            }
            return try written { () throws(AttributeSyntaxError) in try AttributeValue(rawValue: text) }
        case (_, _) where name.hasPrefix("X-"): throw wrongType("a string or a number")
        default: throw wrongType("a string")
        }
    }
}
