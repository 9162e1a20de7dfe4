import HLSInterstitials
import HLSPlaylist

/// Whether and how the server writes preload hints (App. F, ``PreloadHint``) for the live breaks a
/// VAST ad server fills: the `preload` key of the ad server settings.
///
/// `false` writes none; `{"endsBefore": 12, "minimum": 6, "maximum": 120}` (seconds, each optional)
/// overrides the hint's range of ``BreakWindows``: it ends `endsBefore` ahead of the break and lasts
/// `sessions / maxPerSecond`, within `[minimum, maximum]`.
public struct PreloadSettings: Hashable, Sendable {
    /// Whether hints are written (`"preload": false` turns them off).
    public var isEnabled = true
    /// How long before the break the hint's range ends (``BreakWindows/endsBefore``).
    public var endsBefore = BreakWindows().endsBefore
    /// The shortest hint range (``BreakWindows/minimum``).
    public var minimum = BreakWindows().minimum
    /// The longest hint range (``BreakWindows/maximum``).
    public var maximum = BreakWindows().maximum

    /// The largest `endsBefore` accepted: two minutes, well past any player's look-ahead.
    public static let longestEndsBefore = MediaTime(seconds: 120)
    /// The longest range accepted (`minimum`, `maximum`): 15 minutes. The breaks that far ahead are
    /// planned for every playlist rendered, so the bound keeps that planning small.
    public static let longestRange = MediaTime(seconds: 900)

    /// The default settings: hints on, with ``BreakWindows``' defaults.
    public init() {}

    /// `base` with the hint's range set from these settings (the retrieval window's fields stay).
    public func windows(_ base: BreakWindows = BreakWindows()) -> BreakWindows {
        var windows = base
        windows.endsBefore = endsBefore
        windows.minimum = minimum
        windows.maximum = maximum
        return windows
    }

    /// `false`, or the object of the values that are not the defaults.
    public var jsonValue: JSONValue {
        guard isEnabled else { return .bool(false) }
        let defaults = PreloadSettings()
        var fields: [String: JSONValue] = [:]
        if endsBefore != defaults.endsBefore { fields["endsBefore"] = .seconds(endsBefore) }
        if minimum != defaults.minimum { fields["minimum"] = .seconds(minimum) }
        if maximum != defaults.maximum { fields["maximum"] = .seconds(maximum) }
        return .object(fields)
    }

    /// Reads `true`, `false` or `{"endsBefore": 0-120 s, "minimum": 1-900 s, "maximum": 1-900 s}`
    /// with `minimum` at most `maximum`.
    ///
    /// - Throws: a 400 `json-schema` at the member's path.
    public static func decode(_ value: JSONValue, path: String) throws(APIError) -> PreloadSettings {
        var settings = PreloadSettings()
        if case .bool(let enabled) = value {
            settings.isEnabled = enabled
            return settings
        }
        guard case .object = value else {
            throw APIError.badRequest(
                code: .jsonSchema, path: path,
                "expected false, true or {\"endsBefore\", \"minimum\", \"maximum\"}, found \(value.typeName)")
        }
        var reader = try JSONObjectReader(value, path: path)
        if let seconds = try reader.seconds("endsBefore") {
            guard seconds <= longestEndsBefore else {
                throw reader.error("endsBefore", "expected 0 to \(longestEndsBefore) seconds")
            }
            settings.endsBefore = seconds
        }
        for (key, field) in [("minimum", \PreloadSettings.minimum), ("maximum", \PreloadSettings.maximum)] {
            guard let seconds = try reader.seconds(key) else { continue }
            guard seconds >= MediaTime(seconds: 1), seconds <= longestRange else {
                throw reader.error(key, "expected 1 to \(longestRange) seconds")
            }
            settings[keyPath: field] = seconds
        }
        guard settings.minimum <= settings.maximum else {
            throw reader.error(
                "maximum",
                "the longest range (\(settings.maximum) s) is shorter than the shortest (\(settings.minimum) s)")
        }
        try reader.finish(known: "endsBefore, minimum, maximum")
        return settings
    }
}
