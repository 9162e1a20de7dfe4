import HLSPlaylist

/// An interstitial event: instructions to suspend primary playback, play separate content, then resume.
///
/// It carries everything the `com.apple.hls.interstitial` date-range schema (draft-pantos-hls-rfc8216bis-22,
/// Appendix D.2) and Apple's `AVPlayerInterstitialEvent` carry. Server events come from EXT-X-DATERANGE tags
/// (``init(dateRange:)``) and go back to them (``dateRangeAttributes``) without losing anything: unknown
/// enumerated strings, invalid values and vendor `X-` attributes are kept, and attributes that were not
/// changed are written back exactly as they were read.
///
/// Enumerated lists (CUE, X-RESTRICT, X-SNAP) and the quoted-string enumerations (X-CONTENT-MAY-VARY,
/// X-TIMELINE-OCCUPIES, X-TIMELINE-STYLE) are stored as written; typed properties such as
/// ``restrictions``, ``cue`` and ``timelineOccupancy`` read and write them.
public struct InterstitialEvent: Sendable, CustomStringConvertible {
    /// The CLASS of interstitial date ranges: `com.apple.hls.interstitial` (App. D.2: "MUST be").
    public static let className = "com.apple.hls.interstitial"

    /// The ID: unique among the playlist's date ranges (`identifier` in AVFoundation).
    public var identifier: String
    /// The time in the primary item at which to suspend, for events made with a time (client events).
    ///
    /// Nil for events made with a date; server events are placed by ``date`` (START-DATE).
    public var time: MediaTime?
    /// START-DATE: the date in the primary item at which to suspend.
    public var date: DateTime?
    /// X-ASSET-URI: the absolute URI of a single interstitial asset.
    public var assetURI: String?
    /// X-ASSET-LIST: the URI of a JSON asset list, absolute or relative to the playlist.
    public var assetListURI: String?
    /// The resolved assets: the X-ASSET-LIST response once loaded, or assets given directly
    /// (`assetListResponse` / `templateItems` in AVFoundation). Not written to the tag.
    public var assetList: AssetList?
    /// CUE trigger identifiers as written (PRE, POST, ONCE and any unknown ones); nil when absent.
    public var cueTokens: [String]?
    /// X-RESTRICT identifiers as written (SKIP, JUMP and any unknown ones); nil when absent.
    public var restrictTokens: [String]?
    /// X-SNAP identifiers as written (OUT, IN and any unknown ones); nil when absent.
    public var snapTokens: [String]?
    /// X-RESUME-OFFSET: where primary resumes, relative to the scheduled start; nil when absent.
    ///
    /// Absent means the interstitial's duration for server events (App. D.2, profile R3).
    public var resumptionOffset: ResumptionOffset?
    /// X-PLAYOUT-LIMIT: the offset from the start of the interstitial at which it ends; nil for no limit.
    public var playoutLimit: MediaTime?
    /// DURATION of the date range: "SHOULD be the duration of the interstitial asset(s)" (App. D.2).
    public var duration: MediaTime?
    /// PLANNED-DURATION: the expected duration while the actual one is unknown.
    public var plannedDuration: MediaTime?
    /// END-DATE.
    public var endDate: DateTime?
    /// X-TIMELINE-OCCUPIES as written (`POINT`, `RANGE` or an unknown value); nil when absent.
    public var timelineOccupiesValue: String?
    /// X-TIMELINE-STYLE as written (`HIGHLIGHT`, `PRIMARY` or an unknown value); nil when absent.
    public var timelineStyleValue: String?
    /// X-CONTENT-MAY-VARY as written (`YES`, `NO` or an unknown value); nil when absent.
    public var contentMayVaryValue: String?
    /// X-SKIP-CONTROL-OFFSET, X-SKIP-CONTROL-DURATION and X-SKIP-CONTROL-LABEL-ID (App. D.3).
    public var skipControl: SkipControl
    /// Vendor and client `X-` attributes that the interstitial schema does not define, with their
    /// typed values in their original order (`userDefinedAttributes` in AVFoundation).
    public var userDefinedAttributes: AttributeList
    /// Every other attribute of the date range, as written: SCTE35-*, END-ON-NEXT, unknown names,
    /// and schema attributes whose value does not have the schema's type.
    public var otherAttributes: AttributeList
    /// The ID of the Date Range Schedule tag whose document the event came from
    /// (`scheduleIdentifier` in AVFoundation); nil for an event of a plain tag or a client event.
    /// Not written to the tag (profile R27).
    public var scheduleIdentifier: String?
    /// The attributes this event was read from, used to write untouched attributes back verbatim.
    package var sourceAttributes: AttributeList?

    /// Creates a client event at a time in the primary item (Apple's `init(primaryItem:time:)`).
    ///
    /// Client-created events resume where they were scheduled: the resumption offset defaults to
    /// zero (profile R4).
    public init(identifier: String, time: MediaTime) {
        self.init(identifier: identifier)
        self.time = time
        self.resumptionOffset = .time(.zero)
    }

    /// Creates a client event at a date in the primary item (Apple's `init(primaryItem:date:)`).
    ///
    /// The resumption offset defaults to zero (profile R4).
    public init(identifier: String, date: DateTime) {
        self.init(identifier: identifier)
        self.date = date
        self.resumptionOffset = .time(.zero)
    }

    /// Creates an event with only an ID; every attribute is absent, as in a server date range.
    public init(identifier: String) {
        self.identifier = identifier
        self.skipControl = SkipControl()
        self.userDefinedAttributes = []
        self.otherAttributes = []
    }

    /// `id@date` or `id@time`, for logs.
    public var description: String {
        if let date { return "\(identifier)@\(date)" }
        if let time { return "\(identifier)@\(time)s" }
        return identifier
    }
}

extension InterstitialEvent: Hashable {
    /// Events are equal when their values are; where they were read from does not matter.
    public static func == (lhs: InterstitialEvent, rhs: InterstitialEvent) -> Bool {
        lhs.identifier == rhs.identifier && lhs.time == rhs.time && lhs.date == rhs.date
            && lhs.assetURI == rhs.assetURI && lhs.assetListURI == rhs.assetListURI && lhs.assetList == rhs.assetList
            && lhs.cueTokens == rhs.cueTokens && lhs.restrictTokens == rhs.restrictTokens
            && lhs.snapTokens == rhs.snapTokens && lhs.resumptionOffset == rhs.resumptionOffset
            && lhs.playoutLimit == rhs.playoutLimit && lhs.duration == rhs.duration
            && lhs.plannedDuration == rhs.plannedDuration && lhs.endDate == rhs.endDate
            && lhs.timelineOccupiesValue == rhs.timelineOccupiesValue
            && lhs.timelineStyleValue == rhs.timelineStyleValue && lhs.contentMayVaryValue == rhs.contentMayVaryValue
            && lhs.skipControl == rhs.skipControl && lhs.userDefinedAttributes == rhs.userDefinedAttributes
            && lhs.otherAttributes == rhs.otherAttributes && lhs.scheduleIdentifier == rhs.scheduleIdentifier
    }

    /// Hashes the identity and placement; equal events hash equally.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(time)
        hasher.combine(date)
    }
}
