import HLSInterstitials
import HLSPlaylist

/// Whether, and how far ahead, a live channel's breaks are decided before the viewers ask (the
/// `prefetch` key of ``AdServerSettings``): `false` turns it off; `{"window": seconds}` caps the
/// retrieval window (``BreakWindows/maximumRetrieval``). On by default for live channels with a
/// VAST ad server.
///
/// `{"expectedBreak": seconds}` turns on standing decisions (`StandingBreak`): each viewer seen
/// keeps a decision for the channel's next break before any cue, sized for a break of that length
/// and made again every `refresh` seconds (default 300) so that it is never stale.
/// `{"expectedBreak": "learned"}` (or a number with `"learnFrom": N`) learns that length: the median
/// of the channel's last N signalled breaks (5 by default), the number (30 s for `"learned"`) until
/// N were seen.
public struct PrefetchSettings: Hashable, Sendable {
    /// Whether decisions are made ahead.
    public var enabled = true
    /// The longest retrieval window; nil: ``BreakWindows``' default (300 s).
    public var window: MediaTime?
    /// The length of break standing decisions are made for; nil: no standing decisions.
    public var expectedBreak: MediaTime?
    /// How often standing decisions are made again; nil: 300 s.
    public var refresh: MediaTime?
    /// How many of the channel's last signalled breaks the expected break is learned from (their
    /// median duration, ``expectedBreak`` until that many were seen); nil: not learned.
    public var learnFrom: Int?

    /// The expected break of `"expectedBreak": "learned"` until enough breaks were seen.
    public static let learnedInitial = MediaTime(seconds: 30)
    /// The largest `learnFrom`: how many breaks a learned expected break remembers at most.
    static let maximumLearnFrom = 50

    /// How many breaks `"expectedBreak": "learned"` learns from without `learnFrom`.
    public static let defaultLearnFrom = 5

    /// The default: on, the default window.
    public init() {}

    /// `false`, or `{"window": s}` (the window given); nil for the default.
    public var jsonValue: JSONValue? {
        guard enabled else { return .bool(false) }
        var object: [String: JSONValue] = [:]
        if let window { object["window"] = .seconds(window) }
        if let expectedBreak { object["expectedBreak"] = .seconds(expectedBreak) }
        if let refresh { object["refresh"] = .seconds(refresh) }
        if let learnFrom { object["learnFrom"] = .integer(Int64(learnFrom)) }
        return object.isEmpty ? nil : .object(object)
    }

    /// Reads `true`, `false` or `{"window": 10-3600 s, "expectedBreak": 5-600 s or "learned",
    /// "refresh": 60-3600 s, "learnFrom": 1-50}` (`learnFrom` with an `expectedBreak`).
    public static func decode(_ value: JSONValue, path: String) throws(APIError) -> PrefetchSettings {
        var settings = PrefetchSettings()
        if case .bool(let enabled) = value {
            settings.enabled = enabled
            return settings
        }
        var reader = try JSONObjectReader(value, path: path)
        if let window = try reader.seconds("window") {
            guard window >= MediaTime(seconds: 10), window <= MediaTime(seconds: 3600) else {
                throw reader.error("window", "expected 10 to 3600 seconds")
            }
            settings.window = window
        }
        let expectedPath = reader.at("expectedBreak")
        switch reader.take("expectedBreak") {
        case nil: break
        case .string("learned")?:
            settings.expectedBreak = learnedInitial
            settings.learnFrom = defaultLearnFrom
        case let value?:
            if case .string(let text) = value {
                throw APIError.badRequest(
                    code: .jsonSchema, path: expectedPath,
                    "expected a number of seconds (5 to 600) or \"learned\", found \"\(text.prefix(40))\"")
            }
            var given = try JSONObjectReader(.object(["expectedBreak": value]), path: path)
            guard let expected = try given.seconds("expectedBreak") else { break }
            guard expected >= MediaTime(seconds: 5), expected <= MediaTime(seconds: 600) else {
                throw reader.error("expectedBreak", "expected 5 to 600 seconds")
            }
            settings.expectedBreak = expected
        }
        if let count = try reader.integer("learnFrom", in: 1...Int64(Self.maximumLearnFrom)) {
            guard settings.expectedBreak != nil else {
                throw reader.error("learnFrom", "learns the expectedBreak: give \"expectedBreak\" too")
            }
            settings.learnFrom = count
        }
        if let refresh = try reader.seconds("refresh") {
            guard refresh >= MediaTime(seconds: 60), refresh <= MediaTime(seconds: 3600) else {
                throw reader.error("refresh", "expected 60 to 3600 seconds")
            }
            settings.refresh = refresh
        }
        try reader.finish()
        return settings
    }

    /// The break windows of a channel with these settings.
    var windows: BreakWindows {
        var windows = BreakWindows()
        if let window { windows.maximumRetrieval = window }
        return windows
    }
}
