/// A diagnostic rule: its stable ID, its severity and the specification text it enforces.
///
/// Every diagnostic the library emits comes from a `Rule`, so the full catalog can be listed
/// (``Rule/playlistRules``) and documented.
public struct Rule: Hashable, Sendable {
    /// The stable ID.
    public var id: RuleID
    /// The severity of diagnostics from this rule.
    public var severity: Diagnostic.Severity
    /// A one-line summary.
    public var summary: String
    /// The specification text the rule enforces, with its section.
    public var reference: String

    /// Creates a rule.
    public init(id: RuleID, severity: Diagnostic.Severity, summary: String, reference: String) {
        self.id = id
        self.severity = severity
        self.summary = summary
        self.reference = reference
    }

    /// The quoted specification text without its section number.
    public var quote: String {
        guard reference.hasPrefix("§"), let separator = reference.range(of: ": ") else { return reference }
        return String(reference[separator.upperBound...])
    }

    /// Makes a diagnostic of this rule.
    public func diagnostic(at location: SourceLocation, _ message: String) -> Diagnostic {
        Diagnostic(severity, id, at: location, message)
    }
}

extension Rule {
    static let spec = "draft-pantos-hls-rfc8216bis-22"

    /// `playlist-header`: the first line must be `#EXTM3U`.
    public static let playlistHeader = Rule(
        id: "playlist-header", severity: .error, summary: "The first line is not #EXTM3U.",
        reference: "§4.4.1.1: \"It MUST be the first line of every Media Playlist and every Multivariant Playlist.\"")
    /// `playlist-encoding`: the text must be UTF-8 without a byte order mark or control characters.
    public static let playlistEncoding = Rule(
        id: "playlist-encoding", severity: .error,
        summary: "The playlist is not UTF-8, has a byte order mark, or contains control characters.",
        reference:
            "§4.1: \"Playlist files MUST be encoded in UTF-8 … MUST NOT contain any Byte Order Mark (BOM) … MUST NOT contain UTF-8 control characters (U+0000 to U+001F and U+007F to U+009F), with the exceptions of CR (U+000D) and LF (U+000A).\" Tabs are accepted: §4.4.5.2 uses them to separate RECENTLY-REMOVED-DATERANGES."
    )
    /// `playlist-kind`: media and multivariant tags must not be mixed.
    public static let playlistKind = Rule(
        id: "playlist-kind", severity: .error,
        summary: "The playlist mixes Media Playlist and Multivariant Playlist tags.",
        reference:
            "§4.4: \"A Playlist MUST be either a Media Playlist or a Multivariant Playlist; all Media Segment tags MUST NOT appear in a Multivariant Playlist … Multivariant Playlist tags MUST NOT appear in a Media Playlist.\""
    )
    /// `tag-value`: a known tag's value is malformed.
    public static let tagValue = Rule(
        id: "tag-value", severity: .error, summary: "A tag's value does not have the form its definition gives.",
        reference: "§4.4: each tag's value has the format given in its definition.")
    /// `tag-duplicate`: a tag that may appear once appears again.
    public static let tagDuplicate = Rule(
        id: "tag-duplicate", severity: .error, summary: "A tag that may appear at most once appears again.",
        reference:
            "§4.4.3: \"… MUST NOT appear more than once in a Playlist\" (EXT-X-TARGETDURATION, EXT-X-MEDIA-SEQUENCE, …)."
    )
    /// `tag-missing`: a required tag is absent.
    public static let tagMissing = Rule(
        id: "tag-missing", severity: .error, summary: "A required tag is missing.",
        reference: "§4.4.3.1: \"The EXT-X-TARGETDURATION tag is REQUIRED.\"")
    /// `attribute-syntax`: the attribute list is malformed.
    public static let attributeSyntax = Rule(
        id: "attribute-syntax", severity: .error, summary: "The attribute list is malformed.",
        reference:
            "§4.2: \"An attribute-list is a comma-separated list of attribute/value pairs with no whitespace. An attribute/value pair has the following syntax: AttributeName=AttributeValue\""
    )
    /// `attribute-name`: an AttributeName has a character outside `[A-Z]`, `[0-9]` and `-`.
    public static let attributeName = Rule(
        id: "attribute-name", severity: .error,
        summary: "An AttributeName has a character outside [A-Z], [0-9] and '-'.",
        reference:
            "§4.2: \"The AttributeName is an unquoted string containing characters from the set [A-Z], [0-9], and '-'.\""
    )
    /// `attribute-quoted-string`: a quoted-string contains a double quote or a carriage return, or is
    /// not terminated.
    public static let attributeQuotedString = Rule(
        id: "attribute-quoted-string", severity: .error,
        summary: "A quoted-string contains a double quote, CR or LF, or is not terminated.",
        reference:
            "§4.2: \"The following characters MUST NOT appear in a quoted-string: line feed (0xA), carriage return (0xD), or double quote (0x22).\""
    )
    /// `attribute-value-character`: an unquoted attribute value contains a double quote, whitespace or a
    /// control character.
    public static let attributeValueCharacter = Rule(
        id: "attribute-value-character", severity: .error,
        summary: "An unquoted attribute value contains a double quote, whitespace or a control character.",
        reference:
            "§4.2: \"An attribute-list is a comma-separated list of attribute/value pairs with no whitespace.\" \"An enumerated-string will never contain double quotes (\"), commas (,), or whitespace.\""
    )
    /// `diagnostic-limit`: more diagnostics were found than are kept; the rest are counted, not listed.
    public static let diagnosticLimit = Rule(
        id: "diagnostic-limit", severity: .note,
        summary: "More diagnostics were found than are kept (per line and per file); the rest are counted.",
        reference:
            "§4 (every rule of this catalog): not a rule of the specification of its own. Diagnostics are capped so that their cost stays proportional to the input; the summary has the highest severity of the diagnostics it stands for."
    )
    /// `attribute-duplicate`: an attribute name appears twice in one list.
    public static let attributeDuplicate = Rule(
        id: "attribute-duplicate", severity: .error, summary: "An attribute name appears twice in one attribute list.",
        reference:
            "§4.2: \"An AttributeName MUST NOT appear more than once in a given attribute-list. Clients SHOULD refuse to parse such Playlists.\""
    )
    /// `attribute-missing`: a required attribute is absent.
    public static let attributeMissing = Rule(
        id: "attribute-missing", severity: .error, summary: "A required attribute is missing.",
        reference: "§4.4: attributes marked REQUIRED in a tag's definition.")
    /// `attribute-type`: an attribute value has the wrong type.
    public static let attributeType = Rule(
        id: "attribute-type", severity: .error,
        summary: "An attribute value does not have the type its definition gives.",
        reference: "§4.2: attribute value types (decimal-integer, decimal-floating-point, quoted-string, …).")
    /// `attribute-enumeration`: an enumerated-string attribute has an unknown value, so the tag is ignored.
    public static let attributeEnumeration = Rule(
        id: "attribute-enumeration", severity: .warning,
        summary: "An enumerated-string attribute has an unrecognized value; clients ignore the tag.",
        reference:
            "§6.3.1: \"Clients MUST ignore a tag that has an unrecognized value for a recognized enumerated-string attribute, unless that attribute's definition says otherwise.\""
    )
    /// `segment-uri`: a media segment's tags are not followed by a URI, or a URI has no EXTINF.
    public static let segmentURI = Rule(
        id: "segment-uri", severity: .error, summary: "A media segment has no URI line, or a URI line has no EXTINF.",
        reference:
            "§4.4.4.1: \"This tag [EXTINF] is REQUIRED for each Media Segment.\" §4.4.2: each Media Segment is specified by a series of Media Segment tags followed by a URI."
    )
    /// `stream-uri`: EXT-X-STREAM-INF is not followed by a URI line.
    public static let streamURI = Rule(
        id: "stream-uri", severity: .error, summary: "An EXT-X-STREAM-INF tag is not followed by a URI line.",
        reference:
            "§4.4.6.2: \"The URI line that follows the EXT-X-STREAM-INF tag specifies a Media Playlist … REQUIRED.\"")
    /// `target-duration`: a segment is longer than the target duration.
    public static let targetDuration = Rule(
        id: "target-duration", severity: .error, summary: "A segment's duration, rounded, exceeds the target duration.",
        reference:
            "§4.4.3.1: \"The EXTINF duration of each Media Segment in a Playlist file, when rounded to the nearest integer, MUST be less than or equal to the Target Duration.\""
    )
    /// `variable-reference`: a variable is used but not defined, or defined twice.
    public static let variableReference = Rule(
        id: "variable-reference", severity: .error,
        summary: "A variable reference is undefined, or a variable is defined twice.",
        reference:
            "§4.3: \"If a Variable Reference in a Playlist … is not defined … the client MUST fail to parse the Playlist.\" §4.4.2.3: \"… MUST NOT contain more than one EXT-X-DEFINE tag with the same NAME attribute.\""
    )
    /// `date-format`: a date lacks a time zone or millisecond precision.
    public static let dateFormat = Rule(
        id: "date-format", severity: .warning, summary: "A date lacks a time zone or millisecond precision.",
        reference:
            "§4.4.4.6: dates \"SHOULD indicate a time zone and fractional parts of seconds, to millisecond accuracy.\"")
    /// `whitespace`: a line has leading or trailing whitespace.
    public static let whitespace = Rule(
        id: "whitespace", severity: .warning, summary: "A line has leading or trailing whitespace.",
        reference: "§4.1: lines are tags, comments or URIs; whitespace around them is not part of the syntax.")
    /// `daterange-conflict`: a same-ID date range changes a value.
    public static let dateRangeConflict = Rule(
        id: "daterange-conflict", severity: .error,
        summary: "A later EXT-X-DATERANGE with the same ID changes a value.",
        reference:
            "§4.4.5.1: \"If a Playlist contains two EXT-X-DATERANGE tags with the same ID attribute value, then any AttributeName that appears in both tags MUST have the same AttributeValue.\""
    )

    /// Every rule the playlist parser applies.
    public static let playlistRules: [Rule] = [
        .playlistHeader, .playlistEncoding, .playlistKind, .tagValue, .tagDuplicate, .tagMissing, .attributeSyntax,
        .attributeName, .attributeQuotedString, .attributeValueCharacter, .attributeDuplicate, .attributeMissing,
        .attributeType, .attributeEnumeration, .segmentURI, .streamURI,
        .targetDuration, .variableReference, .dateFormat, .whitespace, .dateRangeConflict, .diagnosticLimit,
    ]
}
