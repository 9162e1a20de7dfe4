import HLSInterstitials
import HLSPlaylist

/// The preload hint the server writes for an upcoming live break filled by its asset list (pure):
/// a `com.apple.hls.preload` date range (App. F, `PreloadDateRange`) that asks players to load
/// the break's asset list at a random point of `range`, so that a large audience spreads its
/// requests over the time the ad server needs.
///
/// Its ID is the break's with ``idSuffix``; `X-URI` is exactly the break's `X-ASSET-LIST` value,
/// `X-TARGET-ID` the break's ID and `X-TARGET-CLASS` `com.apple.hls.interstitial`; START-DATE and
/// DURATION give the range (``BreakWindows/hint(start:sessions:perSecond:)``); no CUE, no
/// END-ON-NEXT. The attributes are recorded at their first serving, as a break's are, so every
/// replica writes them byte for byte as first written.
public struct PreloadHint: Sendable, Hashable {
    /// What a hint's ID adds to its break's: `<breakID>.preload`.
    public static let idSuffix = ".preload"

    /// The ID of the break it prepares (`X-TARGET-ID`).
    public var breakID: String
    /// The break's `X-ASSET-LIST` value (`X-URI`).
    public var uri: String
    /// When players load it (START-DATE, START-DATE plus DURATION).
    public var range: Range<DateTime>

    /// A hint for the break `breakID` whose asset list is `uri`, over `range`.
    public init(breakID: String, uri: String, range: Range<DateTime>) {
        self.breakID = breakID
        self.uri = uri
        self.range = range
    }

    /// The ID of the hint of the break `breakID`.
    public static func identifier(of breakID: String) -> String { breakID + idSuffix }

    /// The hint's date range ID.
    public var identifier: String { Self.identifier(of: breakID) }

    /// Whether recorded attributes are a Preload date range's (CLASS `com.apple.hls.preload`), not
    /// an interstitial's.
    public static func isHint(_ attributes: AttributeList) -> Bool {
        attributes[InterstitialEvent.AttributeName.className]?.quotedString == PreloadDateRange.className
    }

    /// The hint written with `attributes` (as ``attributes`` makes them); nil for another date range
    /// or a hint that does not target an interstitial.
    public init?(attributes: AttributeList) {
        typealias Name = InterstitialEvent.AttributeName
        guard Self.isHint(attributes),
            attributes[PreloadDateRange.AttributeName.targetClass]?.quotedString == InterstitialEvent.className,
            let breakID = attributes[PreloadDateRange.AttributeName.targetID]?.quotedString,
            let uri = attributes[PreloadDateRange.AttributeName.uri]?.quotedString,
            let start = attributes[Name.startDate]?.quotedString.flatMap({ DateTime(iso8601: $0) }),
            let duration = attributes[Name.duration]?.decimalFloatingPoint
        else { return nil }
        self.init(breakID: breakID, uri: uri, range: start..<(start + duration))
    }

    /// The date range's attributes, in the order written: ID, CLASS, START-DATE, DURATION, X-URI,
    /// X-TARGET-ID, X-TARGET-CLASS.
    ///
    /// - Throws: `AttributeSyntaxError` when the break's ID or URI cannot be a quoted-string.
    public var attributes: AttributeList {
        get throws(AttributeSyntaxError) {
            typealias Name = InterstitialEvent.AttributeName
            var list = AttributeList()
            list[Name.id] = try .quoted(identifier)
            list[Name.className] = try .quoted(PreloadDateRange.className)
            list[Name.startDate] = try .quoted(range.lowerBound.iso8601)
            list[Name.duration] = .decimal(range.upperBound - range.lowerBound)
            list[PreloadDateRange.AttributeName.uri] = try .quoted(uri)
            list[PreloadDateRange.AttributeName.targetID] = try .quoted(breakID)
            list[PreloadDateRange.AttributeName.targetClass] = try .quoted(InterstitialEvent.className)
            try list.checkWritable()
            return list
        }
    }
}
