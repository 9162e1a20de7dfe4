/// A Date Range: one or more EXT-X-DATERANGE tags with the same ID, consolidated (§4.4.5.1).
///
/// Later tags with the same ID may add attributes; an attribute that appears in several tags
/// must keep its value (a changed value is reported and the first value is kept).
public struct DateRange: Hashable, Sendable, Codable {
    /// ID: unique in the playlist.
    public var id: String
    /// CLASS, such as `com.apple.hls.interstitial`.
    public var className: String?
    /// START-DATE.
    public var startDate: DateTime?
    /// CUE: the trigger identifiers as written (PRE, POST, ONCE and any unknown ones).
    public var cue: [String]?
    /// END-DATE.
    public var endDate: DateTime?
    /// DURATION.
    public var duration: MediaTime?
    /// PLANNED-DURATION.
    public var plannedDuration: MediaTime?
    /// END-ON-NEXT=YES.
    public var endOnNext: Bool
    /// SCTE35-CMD, as written.
    public var scte35Command: String?
    /// SCTE35-OUT, as written.
    public var scte35Out: String?
    /// SCTE35-IN, as written.
    public var scte35In: String?
    /// The `X-` client attributes in order, with their typed values (quoted-string,
    /// hexadecimal-sequence or signed-decimal-floating-point).
    public var clientAttributes: AttributeList
    /// Every attribute of every tag with this ID, consolidated, in order of first appearance.
    public var attributes: AttributeList
    /// Where START-DATE falls on the playlist's timeline (behavior profile R1); nil without dates.
    public var startTime: MediaTime?
    /// The 1-based line numbers of its tags.
    public var lines: [Int]

    private enum CodingKeys: String, CodingKey {
        case id
        case className = "class"
        case startDate, cue, endDate, duration, plannedDuration, endOnNext, scte35Command, scte35Out, scte35In
        case clientAttributes, attributes, startTime, lines
    }

    /// The duration given by DURATION or by END-DATE − START-DATE.
    public var resolvedDuration: MediaTime? {
        if let duration { return duration }
        if let endDate, let startDate { return endDate - startDate }
        return nil
    }
}

extension DateRange {
    /// A date range from one attribute list that did not come from a playlist's tag (a Date Range
    /// Schedule's entry), its typed fields read as the playlist parser reads them; nil without a
    /// quoted ID.
    ///
    /// - Parameters:
    ///   - attributes: the attributes, as they would be written on the tag.
    ///   - lines: the 1-based lines the date range is reported at (the tag that stands for it).
    ///   - timeline: the playlist whose segments place START-DATE (R1); nil leaves ``startTime`` nil.
    package init?(attributes: AttributeList, lines: [Int], timeline: MediaPlaylist?) {
        guard let id = attributes["ID"]?.quotedString else { return nil }
        func date(_ name: String) -> DateTime? { attributes[name]?.quotedString.flatMap { DateTime(iso8601: $0) } }
        self.id = id
        className = attributes["CLASS"]?.quotedString
        startDate = date("START-DATE")
        endDate = date("END-DATE")
        cue = attributes["CUE"]?.enumeratedStringList
        duration = attributes["DURATION"]?.decimalFloatingPoint
        plannedDuration = attributes["PLANNED-DURATION"]?.decimalFloatingPoint
        endOnNext = attributes["END-ON-NEXT"]?.rawValue == "YES"
        scte35Command = attributes["SCTE35-CMD"]?.rawValue
        scte35Out = attributes["SCTE35-OUT"]?.rawValue
        scte35In = attributes["SCTE35-IN"]?.rawValue
        clientAttributes = AttributeList(attributes.filter(\.isClientAttribute))
        self.attributes = attributes
        startTime = startDate.flatMap { date in timeline?.time(at: date) }
        self.lines = lines
    }
}
