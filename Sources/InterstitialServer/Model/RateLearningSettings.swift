import HLSInterstitials
import HLSPlaylist

/// How the gate learns an ad server's rate when the operator did not give it (`maxPerSecond` not
/// set): the `rateLearning` key of the ad server settings (`AdServerRateLearner`).
///
/// `{"initial": 50, "minimum": 5, "maximum": 1000}` (requests a second, each optional): the learned
/// rate starts at `initial` and stays within `[minimum, maximum]`. Setting `maxPerSecond` fixes the
/// rate instead, a hard cap that is not learned.
public struct RateLearningSettings: Hashable, Sendable {
    /// The rate before anything is learned.
    public var initial = 50
    /// The least rate learned.
    public var minimum = 5
    /// The most rate learned.
    public var maximum = 1000

    /// The largest value accepted for any of the three, as for `maxPerSecond`.
    public static let largest = 100_000

    /// The default bounds: from 50 a second, within 5 and 1,000.
    public init() {}

    /// The object of the values that are not the defaults (`{}` when all are).
    public var jsonValue: JSONValue {
        let defaults = RateLearningSettings()
        var fields: [String: JSONValue] = [:]
        if initial != defaults.initial { fields["initial"] = .integer(Int64(initial)) }
        if minimum != defaults.minimum { fields["minimum"] = .integer(Int64(minimum)) }
        if maximum != defaults.maximum { fields["maximum"] = .integer(Int64(maximum)) }
        return .object(fields)
    }

    /// Reads `{"initial": 1-100000, "minimum": 1-100000, "maximum": 1-100000}` with `minimum` ≤
    /// `initial` ≤ `maximum`.
    ///
    /// - Throws: a 400 `json-schema` at the member's path.
    public static func decode(_ value: JSONValue, path: String) throws(APIError) -> RateLearningSettings {
        var reader = try JSONObjectReader(value, path: path)
        var settings = RateLearningSettings()
        for (key, field) in [
            ("initial", \RateLearningSettings.initial), ("minimum", \RateLearningSettings.minimum),
            ("maximum", \RateLearningSettings.maximum),
        ] {
            if let rate = try reader.integer(key, in: 1...Int64(largest)) { settings[keyPath: field] = rate }
        }
        guard settings.minimum <= settings.maximum else {
            throw reader.error(
                "maximum", "the most rate (\(settings.maximum)/s) is below the least (\(settings.minimum)/s)")
        }
        guard (settings.minimum...settings.maximum).contains(settings.initial) else {
            throw reader.error(
                "initial",
                "the initial rate (\(settings.initial)/s) is outside \(settings.minimum) to \(settings.maximum)/s")
        }
        try reader.finish(known: "initial, minimum, maximum")
        return settings
    }
}
