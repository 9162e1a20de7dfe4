/// Why a playlist could not be stitched: a stable code, where (the primary's line, or the event and
/// ad), and a message that quotes the rule (profile R28).
public struct StitchingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The primary is not a VOD media playlist (it lacks EXT-X-ENDLIST), or is not live when the
        /// live stitcher is given it.
        case primaryKind = "stitch-primary-kind"
        /// The primary cannot take stitched segments: an I-frame playlist or a delta update (EXT-X-SKIP).
        case primaryUnsupported = "stitch-primary-unsupported"
        /// A scheduled event has no pod: the caller gave no ads (not even an empty pod) for its ID.
        case missingPod = "stitch-missing-pod"
        /// An ad's media playlist is not a complete VOD playlist (no EXT-X-ENDLIST), or has no segments.
        case adPlaylist = "stitch-ad-playlist"
        /// An ad's segment format does not match the primary's: fMP4 (EXT-X-MAP) into TS, or TS into fMP4.
        case format = "stitch-format"
        /// An ad's URL is not absolute, so its segment, map and key URIs cannot be made absolute.
        case adURI = "stitch-ad-uri"
        /// No variant of an ad has the codecs, resolution and frame rate of the variant it would be
        /// stitched into, or no audio rendition of it the channel count and sample rate of the
        /// rendition it would be stitched into (``StitchVariantChooser``, ``StitchRenditionChooser``).
        case media = "stitch-media"
        /// A line made from an ad (a URI, a key or map attribute) cannot be written as one line of the
        /// playlist grammar.
        case unwritable = "stitch-unwritable"

        /// The code as written.
        public var description: String { rawValue }
    }

    /// The stable code.
    public var code: Code
    /// Where: `primary line 12`, `event "ad1", ad 2 (https://ads.example.com/a.m3u8)`.
    public var location: String
    /// What is wrong, quoting the rule.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, at location: String, _ message: String) {
        self.code = code
        self.location = location
        self.message = message
    }

    /// `location: [code] message`.
    public var description: String { "\(location): [\(code)] \(message)" }
}
