/// A problem in a JSON document (or a request read like one) that belongs to no more specific error
/// type: a ``LocatedJSONError`` with a ``JSONErrorCode``.
public typealias JSONError = LocatedJSONError<JSONErrorCode>

/// The stable codes of ``JSONError``.
public enum JSONErrorCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A document is not JSON, where no more specific code applies (tools and tests).
    case json = "json"
    /// An asset list (X-ASSET-LIST response) is not JSON.
    case assetListJSON = "asset-list-json"
    /// A value the server stored is not the JSON it wrote.
    case storeJSON = "store-json"
    /// ffprobe's output is not the JSON asked for.
    case ffprobe = "ffprobe"
    /// An `insert` request (options or JSON) is not one that can be inserted.
    case insertRequest = "insert-request"
    /// An `insert` schedule file is not the JSON of a schedule.
    case insertSchedule = "insert-schedule"
    /// A playlist cannot take interstitials.
    case insertPlaylist = "insert-playlist"
    /// An ad's creative signaling (`X-AD-CREATIVE-SIGNALING`) is not the JSON of one.
    case adSignaling = "ad-signaling"

    /// The code as written.
    public var description: String { rawValue }
}
