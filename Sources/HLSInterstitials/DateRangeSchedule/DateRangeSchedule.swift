import HLSPlaylist

/// A Date Range Schedule tag: an EXT-X-DATERANGE with `CLASS="com.apple.hls.daterange-schedule"`
/// whose `X-URI` names a JSON document of date ranges (``DateRangeScheduleDocument``) that a client
/// treats as if their tags were in the playlist (Apple, iOS/macOS 26.4; profile R27).
///
/// Its START-DATE is the origin of the entries' `X-SCHEDULE-OFFSET`. A client loads the document
/// once per ``identity`` (ID and resolved X-URI), not on every reload of a live playlist.
public struct DateRangeSchedule: Sendable, Hashable {
    /// The CLASS of schedule date ranges: `com.apple.hls.daterange-schedule`.
    public static let className = "com.apple.hls.daterange-schedule"

    /// The attribute names the schedule class defines.
    public enum AttributeName {
        /// `X-URI`: the schedule document, absolute or relative to the playlist.
        public static let uri = "X-URI"
        /// `X-SCHEDULE-OFFSET`: an entry's start, in seconds from the schedule tag's START-DATE.
        public static let scheduleOffset = "X-SCHEDULE-OFFSET"
    }

    /// What a schedule tag needs to be followed, one case per requirement.
    public enum Violation: String, Sendable, Hashable, CaseIterable {
        /// X-URI is missing or not a quoted-string.
        case missingURI = "schedule-uri"
        /// X-URI is not a URI reference (empty, or with spaces or control characters).
        case invalidURI = "schedule-uri-invalid"
        /// START-DATE is missing or not an ISO-8601 date: no offset can be counted from it.
        case missingStartDate = "schedule-start-date"
    }

    /// What identifies one document across reloads: the tag's ID and its resolved X-URI. A live
    /// playlist's schedule is loaded once per identity (R27); a Preload tag that targets a
    /// schedule names the same identity (X-TARGET-ID, its resolved X-URI).
    public struct Identity: Sendable, Hashable, CustomStringConvertible {
        /// The schedule tag's ID.
        public var identifier: String
        /// The document's URI, resolved against the playlist's URL.
        public var uri: String

        /// Creates an identity.
        public init(identifier: String, uri: String) {
            self.identifier = identifier
            self.uri = uri
        }

        /// `id <uri>`, for logs.
        public var description: String { "\(identifier) <\(uri)>" }
    }

    /// The tag's ID.
    public var identifier: String
    /// X-URI as written.
    public var uri: String
    /// X-URI resolved against the playlist's URL (as written when no URL was given).
    public var resolvedURI: String
    /// START-DATE: the origin of the entries' X-SCHEDULE-OFFSET.
    public var startDate: DateTime
    /// The 1-based lines of the tag in the playlist.
    public var lines: [Int]

    /// Creates a schedule.
    public init(identifier: String, uri: String, resolvedURI: String? = nil, startDate: DateTime, lines: [Int] = []) {
        self.identifier = identifier
        self.uri = uri
        self.resolvedURI = resolvedURI ?? uri
        self.startDate = startDate
        self.lines = lines
    }

    /// Reads a schedule tag, or nil when its CLASS is not the schedule class or it breaks a
    /// requirement (``violations(of:)``): such a tag schedules nothing.
    ///
    /// - Parameters:
    ///   - dateRange: the EXT-X-DATERANGE tag.
    ///   - playlistURL: the playlist's URL, against which a relative X-URI is resolved.
    public init?(dateRange: DateRange, playlistURL: String? = nil) {
        guard dateRange.className == Self.className, Self.violations(of: dateRange).isEmpty,
            let start = dateRange.startDate, let uri = dateRange.attributes[AttributeName.uri]?.quotedString
        else { return nil }
        self.init(
            identifier: dateRange.id, uri: uri, resolvedURI: playlistURL.map { URIReference.resolve(uri, against: $0) },
            startDate: start, lines: dateRange.lines)
    }

    /// The identity its document is loaded and kept under.
    public var identity: Identity { Identity(identifier: identifier, uri: resolvedURI) }

    /// The requirements a schedule date range breaks, each with the attribute concerned, in a fixed
    /// order; empty when it can be followed. The one rule the validator and resolution share.
    public static func violations(of dateRange: DateRange) -> [(violation: Violation, attribute: String)] {
        var found: [(violation: Violation, attribute: String)] = []
        if let value = dateRange.attributes[AttributeName.uri] {
            if let uri = value.quotedString {
                if !isURIReference(uri) { found.append((.invalidURI, AttributeName.uri)) }
            } else {
                found.append((.missingURI, AttributeName.uri))
            }
        } else {
            found.append((.missingURI, AttributeName.uri))
        }
        if dateRange.startDate == nil { found.append((.missingStartDate, "START-DATE")) }
        return found
    }

    /// Whether `text` can be a URI reference: not empty, no whitespace or control characters.
    static func isURIReference(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }

    /// The schedule tags of a playlist, in tag order.
    public static func schedules(of playlist: MediaPlaylist, playlistURL: String? = nil) -> [DateRangeSchedule] {
        playlist.dateRanges.compactMap { DateRangeSchedule(dateRange: $0, playlistURL: playlistURL) }
    }
}
