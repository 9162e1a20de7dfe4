/// A VAST error code, the value a player puts in `[ERRORCODE]` when it calls an `<Error>` URL.
///
/// VAST 4.3 §2.3.6 lists the codes; VAST 3.0 introduced `[ERRORCODE]`, VAST 2.0 `<Error>` URLs
/// have no code. Only the codes this project reports have names; any other is kept by value.
public struct VASTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public var rawValue: Int

    /// Creates a code from its number.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// 100: "XML parsing error."
    public static let xmlParsing = VASTErrorCode(rawValue: 100)
    /// 101: "VAST schema validation error."
    public static let schemaValidation = VASTErrorCode(rawValue: 101)
    /// 102: "VAST version of response not supported."
    public static let versionNotSupported = VASTErrorCode(rawValue: 102)
    /// 200: "Trafficking error. Media player received an Ad type that it was not expecting."
    public static let trafficking = VASTErrorCode(rawValue: 200)
    /// 300: "General Wrapper error."
    public static let wrapperGeneral = VASTErrorCode(rawValue: 300)
    /// 301: "Timeout of VAST URI provided in Wrapper element, or of VAST URI provided in a subsequent
    /// Wrapper element" (request errors such as an unreachable URI included).
    public static let wrapperTimeout = VASTErrorCode(rawValue: 301)
    /// 302: "Wrapper limit reached, as defined by the media player. Too many Wrapper responses have
    /// been received with no InLine response."
    public static let wrapperLimit = VASTErrorCode(rawValue: 302)
    /// 303: "No VAST response after one or more Wrappers." Also used for an empty response.
    public static let noAdsAfterWrapper = VASTErrorCode(rawValue: 303)
    /// 400: "General Linear error. Media player is unable to display the Linear Ad."
    public static let linearGeneral = VASTErrorCode(rawValue: 400)
    /// 401: "File not found. Unable to find Linear/MediaFile from URI."
    public static let fileNotFound = VASTErrorCode(rawValue: 401)
    /// 402: "Timeout of MediaFile URI."
    public static let mediaFileTimeout = VASTErrorCode(rawValue: 402)
    /// 403: "Couldn't find MediaFile that is supported by this media player, based on the
    /// attributes of the MediaFile element."
    public static let noSupportedMediaFile = VASTErrorCode(rawValue: 403)
    /// 405: "Problem displaying MediaFile."
    public static let mediaFileDisplay = VASTErrorCode(rawValue: 405)
    /// 900: "Undefined Error."
    public static let undefined = VASTErrorCode(rawValue: 900)

    /// The number, as it is written into `[ERRORCODE]`.
    public var description: String { String(rawValue) }
}
