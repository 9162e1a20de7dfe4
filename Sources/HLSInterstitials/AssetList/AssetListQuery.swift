import HLSPlaylist

/// The query parameters of an X-ASSET-LIST request, read and checked (App. D.4; profile R11, R19).
///
/// A server reads `_HLS_interstitial_id` (which break), `_HLS_start_offset` (how far into the break a
/// joining viewer starts) and `_HLS_primary_id` (the playback session) with
/// ``init(parameters:maximumPrimaryIDLength:)``; anything out of bounds is refused with an
/// ``AssetListQueryError`` naming the parameter, never clamped.
public struct AssetListQuery: Hashable, Sendable {
    /// `_HLS_interstitial_id`: the ID of the date range whose assets are asked for.
    public var interstitialID: String
    /// `_HLS_start_offset`: the offset into the interstitial to start from; nil when absent.
    public var startOffset: MediaTime?
    /// `_HLS_primary_id`: the playback session's identifier; nil when absent or empty.
    public var primaryID: String?

    /// The longest `_HLS_interstitial_id` accepted, in UTF-8 bytes.
    public static let maximumInterstitialIDLength = 256

    /// The default for the longest `_HLS_primary_id` accepted, in bytes.
    public static let defaultMaximumPrimaryIDLength = 128

    /// Creates a query.
    public init(interstitialID: String, startOffset: MediaTime? = nil, primaryID: String? = nil) {
        self.interstitialID = interstitialID
        self.startOffset = startOffset
        self.primaryID = primaryID
    }

    /// Reads and checks the parameters of a request.
    ///
    /// - `_HLS_interstitial_id` is required: 1 to ``maximumInterstitialIDLength`` bytes, with no
    ///   character a quoted-string cannot hold (it names a date range ID).
    /// - `_HLS_start_offset` is optional: a plain decimal number of seconds, not negative, at most
    ///   `MediaTime.userInputLimit`.
    /// - `_HLS_primary_id` is optional (empty counts as absent): at most `maximumPrimaryIDLength`
    ///   bytes of printable ASCII (U+0020 to U+007E).
    ///
    /// - Throws: ``AssetListQueryError`` with code `asset-list-request` and the parameter's name.
    public init(
        parameters: [String: String], maximumPrimaryIDLength: Int = AssetListQuery.defaultMaximumPrimaryIDLength
    ) throws(AssetListQueryError) {
        let idName = "_HLS_interstitial_id"
        guard let id = parameters[idName], !id.isEmpty else {
            throw AssetListQueryError(parameter: idName, "the break's ID is required")
        }
        guard id.utf8.count <= Self.maximumInterstitialIDLength else {
            throw AssetListQueryError(
                parameter: idName, "the ID is longer than \(Self.maximumInterstitialIDLength) bytes")
        }
        if id.unicodeScalars.contains(where: AttributeGrammar.isForbiddenInQuotedString) {
            throw AssetListQueryError(
                parameter: idName, "the ID contains a character no date range ID can have (a quote or a control)")
        }
        var offset: MediaTime?
        let offsetName = "_HLS_start_offset"
        if let text = parameters[offsetName] {
            guard text.utf8.count <= 64, let value = MediaTime(decimal: text), value >= .zero else {
                throw AssetListQueryError(
                    parameter: offsetName,
                    "expected a non-negative decimal number of seconds, found \"\(Diagnostic.clipped(text, limit: 64))\""
                )
            }
            do {
                offset = try value.checkedUserInput()
            } catch {
                throw AssetListQueryError(parameter: offsetName, error.description)
            }
        }
        var primary: String?
        let primaryName = "_HLS_primary_id"
        if let text = parameters[primaryName], !text.isEmpty {
            guard text.utf8.count <= max(maximumPrimaryIDLength, 0) else {
                throw AssetListQueryError(
                    parameter: primaryName, "the playback session ID is longer than \(maximumPrimaryIDLength) bytes")
            }
            guard text.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
                throw AssetListQueryError(
                    parameter: primaryName, "the playback session ID must be printable ASCII (U+0020 to U+007E)")
            }
            primary = text
        }
        self.init(interstitialID: id, startOffset: offset, primaryID: primary)
    }
}

/// Why the query of an asset-list request was refused: the parameter and the reason.
public struct AssetListQueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code (one so far).
    public enum Code: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A query parameter of an asset-list request is missing, repeated or malformed.
        case assetListRequest = "asset-list-request"

        /// The code as written.
        public var description: String { rawValue }
    }

    /// The stable code: `asset-list-request`.
    public var code: Code
    /// The query parameter at fault, such as `_HLS_start_offset`.
    public var parameter: String
    /// What is wrong.
    public var message: String

    /// Creates an error with the code `asset-list-request`.
    public init(parameter: String, _ message: String) {
        self.code = .assetListRequest
        self.parameter = parameter
        self.message = message
    }

    /// `parameter: message`.
    public var description: String { "\(parameter): \(message)" }
}
