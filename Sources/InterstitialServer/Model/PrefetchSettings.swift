import HLSInterstitials
import HLSPlaylist

/// Whether, and how far ahead, a live channel's breaks are decided before the viewers ask (the
/// `prefetch` key of ``AdServerSettings``): `false` turns it off; `{"window": seconds}` caps the
/// retrieval window (``BreakWindows/maximumRetrieval``). On by default for live channels with a
/// VAST ad server.
public struct PrefetchSettings: Hashable, Sendable {
    /// Whether decisions are made ahead.
    public var enabled = true
    /// The longest retrieval window; nil: ``BreakWindows``' default (300 s).
    public var window: MediaTime?

    /// The default: on, the default window.
    public init() {}

    /// `false`, or `{"window": s}` (the window given); nil for the default.
    public var jsonValue: JSONValue? {
        guard enabled else { return .bool(false) }
        return window.map { .object(["window": .seconds($0)]) }
    }

    /// Reads `true`, `false` or `{"window": 10-3600 s}`.
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
