import HLSPlaylist

extension InterstitialEvent {
    /// The attribute names of the interstitial schema (App. D.2, D.3) and of EXT-X-DATERANGE (§4.4.5.1)
    /// that the event reads, in the order it writes them.
    public enum AttributeName {
        /// `ID`.
        public static let id = "ID"
        /// `CLASS`.
        public static let className = "CLASS"
        /// `START-DATE`.
        public static let startDate = "START-DATE"
        /// `CUE`.
        public static let cue = "CUE"
        /// `END-DATE`.
        public static let endDate = "END-DATE"
        /// `DURATION`.
        public static let duration = "DURATION"
        /// `PLANNED-DURATION`.
        public static let plannedDuration = "PLANNED-DURATION"
        /// `X-ASSET-URI`.
        public static let assetURI = "X-ASSET-URI"
        /// `X-ASSET-LIST`.
        public static let assetList = "X-ASSET-LIST"
        /// `X-RESUME-OFFSET`.
        public static let resumeOffset = "X-RESUME-OFFSET"
        /// `X-PLAYOUT-LIMIT`.
        public static let playoutLimit = "X-PLAYOUT-LIMIT"
        /// `X-SNAP`.
        public static let snap = "X-SNAP"
        /// `X-RESTRICT`.
        public static let restrict = "X-RESTRICT"
        /// `X-CONTENT-MAY-VARY`.
        public static let contentMayVary = "X-CONTENT-MAY-VARY"
        /// `X-TIMELINE-OCCUPIES`.
        public static let timelineOccupies = "X-TIMELINE-OCCUPIES"
        /// `X-TIMELINE-STYLE`.
        public static let timelineStyle = "X-TIMELINE-STYLE"
        /// `X-SKIP-CONTROL-OFFSET`.
        public static let skipControlOffset = "X-SKIP-CONTROL-OFFSET"
        /// `X-SKIP-CONTROL-DURATION`.
        public static let skipControlDuration = "X-SKIP-CONTROL-DURATION"
        /// `X-SKIP-CONTROL-LABEL-ID`.
        public static let skipControlLabelID = "X-SKIP-CONTROL-LABEL-ID"

        /// Every name the event models, in writing order.
        public static let all: [String] = [
            id, className, startDate, cue, endDate, duration, plannedDuration, assetURI, assetList, resumeOffset,
            playoutLimit, snap, restrict, contentMayVary, timelineOccupies, timelineStyle, skipControlOffset,
            skipControlDuration, skipControlLabelID,
        ]

        /// The `X-` attributes the interstitial schema defines.
        public static let schema: Set<String> = Set(all.filter { $0.hasPrefix("X-") })
    }

    /// Reads an interstitial date range (consolidated from all its tags), or nil when its CLASS is not
    /// `com.apple.hls.interstitial`.
    public init?(dateRange: DateRange) {
        guard dateRange.className == Self.className else { return nil }
        self.init(attributes: dateRange.attributes)
    }

    /// Reads an interstitial from the attribute list of an EXT-X-DATERANGE tag, or nil when it has no
    /// quoted ID or its CLASS is not `com.apple.hls.interstitial`.
    ///
    /// Values that do not have the schema's type are kept in ``otherAttributes`` (and reported by the
    /// validator), so nothing is lost.
    public init?(attributes: AttributeList) {
        guard let id = attributes[AttributeName.id]?.quotedString,
            attributes[AttributeName.className]?.quotedString == Self.className
        else { return nil }
        self.init(identifier: id)
        var seen: Set<String> = []
        for attribute in attributes {
            let first = seen.insert(attribute.name).inserted
            if first, read(attribute) { continue }
            if attribute.isClientAttribute, !AttributeName.schema.contains(attribute.name), first {
                userDefinedAttributes.append(attribute)
            } else {
                otherAttributes.append(attribute)
            }
        }
        sourceAttributes = attributes
    }

    /// Stores a schema attribute in its typed field; false when the name is not modelled or the value
    /// does not have the schema's type.
    private mutating func read(_ attribute: Attribute) -> Bool {
        let value = attribute.value
        func tokens() -> [String]? { value.enumeratedStringList }
        // SKIP-CONTROL fields: the rule the asset list's SKIP-CONTROL object is read with too.
        func seconds() -> MediaTime? { value.decimalInteger.flatMap { SkipControl.wholeSeconds(Double($0)) } }
        switch attribute.name {
        case AttributeName.id, AttributeName.className: return true
        case AttributeName.startDate: date = value.quotedString.flatMap { DateTime(iso8601: $0) }; return date != nil
        case AttributeName.endDate:
            endDate = value.quotedString.flatMap { DateTime(iso8601: $0) }; return endDate != nil
        case AttributeName.cue: cueTokens = tokens(); return cueTokens != nil
        case AttributeName.duration: duration = value.decimalFloatingPoint; return duration != nil
        case AttributeName.plannedDuration: plannedDuration = value.decimalFloatingPoint; return plannedDuration != nil
        case AttributeName.assetURI: assetURI = value.quotedString; return assetURI != nil
        case AttributeName.assetList: assetListURI = value.quotedString; return assetListURI != nil
        case AttributeName.resumeOffset:
            resumptionOffset = value.signedDecimal.map(ResumptionOffset.time); return resumptionOffset != nil
        case AttributeName.playoutLimit: playoutLimit = value.decimalFloatingPoint; return playoutLimit != nil
        case AttributeName.snap: snapTokens = tokens(); return snapTokens != nil
        case AttributeName.restrict: restrictTokens = tokens(); return restrictTokens != nil
        case AttributeName.contentMayVary: contentMayVaryValue = value.quotedString; return contentMayVaryValue != nil
        case AttributeName.timelineOccupies:
            timelineOccupiesValue = value.quotedString; return timelineOccupiesValue != nil
        case AttributeName.timelineStyle: timelineStyleValue = value.quotedString; return timelineStyleValue != nil
        case AttributeName.skipControlOffset: skipControl.offset = seconds(); return skipControl.offset != nil
        case AttributeName.skipControlDuration: skipControl.duration = seconds(); return skipControl.duration != nil
        case AttributeName.skipControlLabelID:
            skipControl.labelID = value.quotedString.flatMap(SkipControl.labelID); return skipControl.labelID != nil
        default: return false
        }
    }

    /// The attribute list of the event's EXT-X-DATERANGE tag.
    ///
    /// An event read from a tag writes its attributes back in their original order, and every
    /// attribute whose value was not changed exactly as it was written (`DURATION=15.000` stays so);
    /// changed and new attributes are written canonically, new ones after the others. START-DATE is
    /// absent for an event made with a time only: place it with ``dateRangeAttributes(date:)``. An
    /// ``ResumptionOffset/indefinite`` offset cannot be written and is left out, which for live
    /// streams means the same thing (profile R10).
    ///
    /// Every name and value is checked before it is returned, so the list always writes one
    /// well-formed tag line (§4.2).
    ///
    /// - Throws: `AttributeSyntaxError` when a field or attribute would break the attribute-list
    ///   grammar: a `"`, CR, LF or other control character in a quoted-string (ID, URIs, …), a bad
    ///   enumerated-string token, or a bad attribute name or raw value.
    public var dateRangeAttributes: AttributeList {
        get throws(AttributeSyntaxError) {
            let list = try uncheckedDateRangeAttributes()
            try list.checkWritable()
            return list
        }
    }

    private func uncheckedDateRangeAttributes() throws(AttributeSyntaxError) -> AttributeList {
        let current = try canonicalAttributes()
        guard let sourceAttributes, let original = InterstitialEvent(attributes: sourceAttributes) else {
            return AttributeList(current)
        }
        // A source value that cannot be written canonically is compared as absent.
        let before = (try? original.canonicalAttributes()) ?? []
        func occurrences(_ list: [Attribute]) -> [(key: String, attribute: Attribute)] {
            var counts: [String: Int] = [:]
            return list.map { attribute in
                let count = counts[attribute.name, default: 0]
                counts[attribute.name] = count + 1
                return ("\(count):\(attribute.name)", attribute)
            }
        }
        let sourceEntries = occurrences(Array(sourceAttributes))
        let position = Dictionary(sourceEntries.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        let sourceValue = Dictionary(
            sourceEntries.map { ($0.key, $0.attribute.value) }, uniquingKeysWith: { a, _ in a })
        let beforeValue = Dictionary(
            occurrences(before).map { ($0.key, $0.attribute.value) }, uniquingKeysWith: { a, _ in a })
        var written = occurrences(current).enumerated().map { index, entry in
            var attribute = entry.attribute
            if beforeValue[entry.key] == attribute.value, let raw = sourceValue[entry.key] { attribute.value = raw }
            return (order: position[entry.key] ?? (sourceEntries.count + index), attribute: attribute)
        }
        written.sort { $0.order < $1.order }
        return AttributeList(written.map(\.attribute))
    }

    /// The attribute list with START-DATE set to `date` (for events placed by time).
    ///
    /// - Throws: `AttributeSyntaxError` as ``dateRangeAttributes`` does.
    public func dateRangeAttributes(date: DateTime) throws(AttributeSyntaxError) -> AttributeList {
        var event = self
        event.date = date
        return try event.dateRangeAttributes
    }

    /// The event's EXT-X-DATERANGE tag.
    ///
    /// - Throws: `AttributeSyntaxError` as ``dateRangeAttributes`` does.
    public var dateRangeTag: Tag {
        get throws(AttributeSyntaxError) { Tag(.dateRange, attributes: try dateRangeAttributes) }
    }

    /// Every attribute from the fields, canonically written, in writing order.
    private func canonicalAttributes() throws(AttributeSyntaxError) -> [Attribute] {
        var list: [Attribute] = []
        func add(_ name: String, _ value: AttributeValue?) {
            if let value { list.append(Attribute(name: name, value: value)) }
        }
        func integerOrDecimal(_ time: MediaTime?) -> AttributeValue? {
            guard let time else { return nil }
            if time.nanoseconds >= 0, time.nanoseconds % 1_000_000_000 == 0 {
                return .integer(UInt64(time.nanoseconds / 1_000_000_000))
            }
            return .decimal(time)
        }
        func quoted(_ text: String?) throws(AttributeSyntaxError) -> AttributeValue? {
            guard let text else { return nil }
            return try .quoted(text)
        }
        func tokenList(_ tokens: [String]?) throws(AttributeSyntaxError) -> AttributeValue? {
            guard let tokens else { return nil }
            return try .enumeratedList(tokens)
        }
        add(AttributeName.id, try .quoted(identifier))
        add(AttributeName.className, try .quoted(Self.className))
        add(AttributeName.startDate, try quoted(date?.iso8601))
        add(AttributeName.cue, try tokenList(cueTokens))
        add(AttributeName.endDate, try quoted(endDate?.iso8601))
        add(AttributeName.duration, duration.map(AttributeValue.decimal))
        add(AttributeName.plannedDuration, plannedDuration.map(AttributeValue.decimal))
        add(AttributeName.assetURI, try quoted(assetURI))
        add(AttributeName.assetList, try quoted(assetListURI))
        add(AttributeName.resumeOffset, resumptionOffset?.time.map(AttributeValue.decimal))
        add(AttributeName.playoutLimit, playoutLimit.map(AttributeValue.decimal))
        add(AttributeName.snap, try tokenList(snapTokens))
        add(AttributeName.restrict, try tokenList(restrictTokens))
        add(AttributeName.contentMayVary, try quoted(contentMayVaryValue))
        add(AttributeName.timelineOccupies, try quoted(timelineOccupiesValue))
        add(AttributeName.timelineStyle, try quoted(timelineStyleValue))
        add(AttributeName.skipControlOffset, integerOrDecimal(skipControl.offset))
        add(AttributeName.skipControlDuration, integerOrDecimal(skipControl.duration))
        add(AttributeName.skipControlLabelID, try quoted(skipControl.labelID))
        list += userDefinedAttributes
        list += otherAttributes
        return list
    }
}
