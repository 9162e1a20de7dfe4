import HLSPlaylist

/// A Preload date range (`CLASS="com.apple.hls.preload"`, draft-pantos-hls-rfc8216bis-22, Appendix F):
/// a hint to load another date range's resource early, at a random point of its range.
///
/// Its own attributes name what to load: `X-URI` (the resource), `X-TARGET-ID` (the ID of the date
/// range that will use it, which may not be in the playlist yet) and `X-TARGET-CLASS` (that date
/// range's CLASS), all REQUIRED. It MUST have DURATION or END-DATE and MUST NOT have CUE or
/// END-ON-NEXT. The target interstitial's X-ASSET-URI or X-ASSET-LIST is what `X-URI` names: they are
/// not attributes of the Preload tag.
public struct PreloadDateRange: Sendable, Hashable {
    /// The CLASS of Preload date ranges: `com.apple.hls.preload`.
    public static let className = "com.apple.hls.preload"

    /// The attribute names App. F defines.
    public enum AttributeName {
        /// `X-URI`: the resource to preload.
        public static let uri = "X-URI"
        /// `X-TARGET-ID`: the ID of the date range that uses the resource.
        public static let targetID = "X-TARGET-ID"
        /// `X-TARGET-CLASS`: the CLASS of that date range.
        public static let targetClass = "X-TARGET-CLASS"
        /// The REQUIRED attributes, in the order App. F lists them.
        public static let required = [uri, targetID, targetClass]
    }

    /// What App. F requires of a Preload tag, one case per requirement.
    public enum Violation: String, Sendable, Hashable, CaseIterable {
        /// X-URI, X-TARGET-ID or X-TARGET-CLASS is missing or not a quoted-string.
        case missingAttribute = "preload-attribute"
        /// Neither DURATION nor END-DATE ("MUST have DURATION or END-DATE").
        case noExtent = "preload-duration"
        /// CUE or END-ON-NEXT ("MUST NOT have CUE or END-ON-NEXT").
        case cueOrEndOnNext = "preload-cue"
    }

    /// The date range's ID.
    public var identifier: String
    /// X-URI, as written (absolute or relative to the playlist).
    public var uri: String
    /// X-TARGET-ID.
    public var targetID: String
    /// X-TARGET-CLASS.
    public var targetClass: String
    /// START-DATE: where the preload range starts.
    public var startDate: DateTime
    /// END-DATE, when given.
    public var endDate: DateTime?
    /// DURATION, when given.
    public var duration: MediaTime?

    /// Reads a Preload date range, or nil when its CLASS is not `com.apple.hls.preload`, it has no
    /// START-DATE, or it breaks a requirement of App. F (``violations(of:)``): a client ignores it.
    public init?(dateRange: DateRange) {
        guard dateRange.className == Self.className, Self.violations(of: dateRange).isEmpty,
            let start = dateRange.startDate,
            let uri = dateRange.attributes[AttributeName.uri]?.quotedString,
            let targetID = dateRange.attributes[AttributeName.targetID]?.quotedString,
            let targetClass = dateRange.attributes[AttributeName.targetClass]?.quotedString
        else { return nil }
        identifier = dateRange.id
        self.uri = uri
        self.targetID = targetID
        self.targetClass = targetClass
        startDate = start
        endDate = dateRange.endDate
        duration = dateRange.duration
    }

    /// Where the range ends: END-DATE, else START-DATE plus DURATION.
    public var end: DateTime {
        endDate ?? duration.map { startDate + $0 } ?? startDate
    }

    /// The App. F requirements a Preload date range breaks, each with the attribute concerned (nil
    /// for the tag as a whole), in a fixed order; empty when it is a valid hint. The one rule the
    /// validator and the player share.
    public static func violations(of dateRange: DateRange) -> [(violation: Violation, attribute: String?)] {
        let attributes = dateRange.attributes
        var found: [(violation: Violation, attribute: String?)] = []
        for name in AttributeName.required where attributes[name]?.quotedString == nil {
            found.append((.missingAttribute, name))
        }
        if !attributes.contains("DURATION") && !attributes.contains("END-DATE") { found.append((.noExtent, nil)) }
        for name in ["CUE", "END-ON-NEXT"] where attributes.contains(name) { found.append((.cueOrEndOnNext, name)) }
        return found
    }
}
