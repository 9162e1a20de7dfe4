#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the specification says about a known tag: the form of its value, where it may appear,
/// and the type of each attribute it defines.
package final class TagDefinition: Sendable {
    package enum ValueForm: Sendable {
        case none, integer, extinf, byteRange, dateTime, enumerated, attributes
    }

    package enum Scope: Sendable {
        case basic, mediaOrMultivariant, mediaPlaylist, mediaSegment, mediaMetadata, multivariant
    }

    /// The type of an attribute value (§4.2).
    package enum AttributeType: Sendable, Equatable {
        case decimalInteger
        case decimalFloatingPoint
        case signedDecimalFloatingPoint
        case quotedString
        /// An enumerated-string; the known values (an unknown one makes clients ignore the tag).
        case enumeratedString([String])
        /// A quoted enumerated-string-list; unknown entries are ignored, not errors.
        case enumeratedStringList
        case hexadecimalSequence
        case resolution
        /// A quoted-string or an enumerated-string (CLOSED-CAPTIONS may be `NONE`).
        case quotedStringOrEnumerated([String])
        /// A `YES`-only enumerated-string (END-ON-NEXT).
        case yes
    }

    package let name: TagName
    /// Which tag it is.
    package let known: KnownTag
    package let form: ValueForm
    package let scope: Scope
    /// Whether the tag may appear at most once in a playlist.
    package let once: Bool
    /// Attribute types by name (for `.attributes` tags).
    package let attributes: [String: AttributeType]
    /// Attributes that are REQUIRED.
    package let required: [String]

    init(
        _ name: TagName, _ form: ValueForm, _ scope: Scope, once: Bool = false,
        attributes: [String: AttributeType] = [:], required: [String] = []
    ) {
        self.name = name
        self.known = name.known!
        self.form = form
        self.scope = scope
        self.once = once
        self.attributes = attributes
        self.required = required
    }
}

extension TagDefinition {
    private static let yesNo: AttributeType = .enumeratedString(["YES", "NO"])

    /// Every tag of draft-pantos-hls-rfc8216bis-22.
    package static let all: [TagDefinition] = [
        TagDefinition(.extm3u, .none, .basic, once: true),
        TagDefinition(.version, .integer, .basic, once: true),
        TagDefinition(.independentSegments, .none, .mediaOrMultivariant, once: true),
        TagDefinition(
            .start, .attributes, .mediaOrMultivariant, once: true,
            attributes: ["TIME-OFFSET": .signedDecimalFloatingPoint, "PRECISE": yesNo], required: ["TIME-OFFSET"]),
        TagDefinition(
            .define, .attributes, .mediaOrMultivariant,
            attributes: [
                "NAME": .quotedString, "VALUE": .quotedString, "IMPORT": .quotedString, "QUERYPARAM": .quotedString,
            ]),
        TagDefinition(.targetDuration, .integer, .mediaPlaylist, once: true),
        TagDefinition(.mediaSequence, .integer, .mediaPlaylist, once: true),
        TagDefinition(.discontinuitySequence, .integer, .mediaPlaylist, once: true),
        TagDefinition(.endList, .none, .mediaPlaylist, once: true),
        TagDefinition(.playlistType, .enumerated, .mediaPlaylist, once: true),
        TagDefinition(.iFramesOnly, .none, .mediaPlaylist, once: true),
        TagDefinition(
            .partInf, .attributes, .mediaPlaylist, once: true, attributes: ["PART-TARGET": .decimalFloatingPoint],
            required: ["PART-TARGET"]),
        TagDefinition(
            .serverControl, .attributes, .mediaPlaylist, once: true,
            attributes: [
                "CAN-SKIP-UNTIL": .decimalFloatingPoint, "CAN-SKIP-DATERANGES": yesNo,
                "HOLD-BACK": .decimalFloatingPoint,
                "PART-HOLD-BACK": .decimalFloatingPoint, "CAN-BLOCK-RELOAD": yesNo,
            ]),
        TagDefinition(.extinf, .extinf, .mediaSegment),
        TagDefinition(.byteRange, .byteRange, .mediaSegment),
        TagDefinition(.discontinuity, .none, .mediaSegment),
        TagDefinition(
            .key, .attributes, .mediaSegment,
            attributes: [
                "METHOD": .enumeratedString(["NONE", "AES-128", "SAMPLE-AES", "SAMPLE-AES-CTR"]), "URI": .quotedString,
                "IV": .hexadecimalSequence, "KEYFORMAT": .quotedString, "KEYFORMATVERSIONS": .quotedString,
            ], required: ["METHOD"]),
        TagDefinition(
            .map, .attributes, .mediaSegment, attributes: ["URI": .quotedString, "BYTERANGE": .quotedString],
            required: ["URI"]),
        TagDefinition(.programDateTime, .dateTime, .mediaSegment),
        TagDefinition(.gap, .none, .mediaSegment),
        TagDefinition(.bitrate, .integer, .mediaSegment),
        TagDefinition(
            .part, .attributes, .mediaSegment,
            attributes: [
                "URI": .quotedString, "DURATION": .decimalFloatingPoint, "INDEPENDENT": yesNo,
                "BYTERANGE": .quotedString,
                "GAP": yesNo,
            ], required: ["URI", "DURATION"]),
        TagDefinition(
            .dateRange, .attributes, .mediaMetadata,
            attributes: [
                "ID": .quotedString, "CLASS": .quotedString, "START-DATE": .quotedString, "CUE": .enumeratedStringList,
                "END-DATE": .quotedString, "DURATION": .decimalFloatingPoint, "PLANNED-DURATION": .decimalFloatingPoint,
                "SCTE35-CMD": .hexadecimalSequence, "SCTE35-OUT": .hexadecimalSequence,
                "SCTE35-IN": .hexadecimalSequence,
                "END-ON-NEXT": .yes,
            ], required: ["ID"]),
        TagDefinition(
            .skip, .attributes, .mediaMetadata, once: true,
            attributes: ["SKIPPED-SEGMENTS": .decimalInteger, "RECENTLY-REMOVED-DATERANGES": .quotedString],
            required: ["SKIPPED-SEGMENTS"]),
        TagDefinition(
            .preloadHint, .attributes, .mediaMetadata,
            attributes: [
                "TYPE": .enumeratedString(["PART", "MAP"]), "URI": .quotedString, "BYTERANGE-START": .decimalInteger,
                "BYTERANGE-LENGTH": .decimalInteger,
            ], required: ["TYPE", "URI"]),
        TagDefinition(
            .renditionReport, .attributes, .mediaMetadata,
            attributes: ["URI": .quotedString, "LAST-MSN": .decimalInteger, "LAST-PART": .decimalInteger],
            required: ["URI"]),
        TagDefinition(
            .media, .attributes, .multivariant,
            attributes: [
                "TYPE": .enumeratedString(["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"]), "URI": .quotedString,
                "GROUP-ID": .quotedString, "LANGUAGE": .quotedString, "ASSOC-LANGUAGE": .quotedString,
                "NAME": .quotedString, "STABLE-RENDITION-ID": .quotedString, "DEFAULT": yesNo, "AUTOSELECT": yesNo,
                "FORCED": yesNo, "INSTREAM-ID": .quotedString, "BIT-DEPTH": .decimalInteger,
                "SAMPLE-RATE": .decimalInteger, "CHARACTERISTICS": .quotedString, "CHANNELS": .quotedString,
            ], required: ["TYPE", "GROUP-ID", "NAME"]),
        TagDefinition(.streamInf, .attributes, .multivariant, attributes: streamAttributes, required: ["BANDWIDTH"]),
        TagDefinition(
            .iFrameStreamInf, .attributes, .multivariant,
            attributes: streamAttributes.merging(["URI": .quotedString]) { $1 }, required: ["BANDWIDTH", "URI"]),
        TagDefinition(
            .sessionData, .attributes, .multivariant,
            attributes: [
                "DATA-ID": .quotedString, "VALUE": .quotedString, "URI": .quotedString,
                "FORMAT": .enumeratedString(["JSON", "RAW"]), "LANGUAGE": .quotedString,
            ], required: ["DATA-ID"]),
        TagDefinition(
            .sessionKey, .attributes, .multivariant,
            attributes: [
                "METHOD": .enumeratedString(["NONE", "AES-128", "SAMPLE-AES", "SAMPLE-AES-CTR"]), "URI": .quotedString,
                "IV": .hexadecimalSequence, "KEYFORMAT": .quotedString, "KEYFORMATVERSIONS": .quotedString,
            ], required: ["METHOD"]),
        TagDefinition(
            .contentSteering, .attributes, .multivariant, once: true,
            attributes: ["SERVER-URI": .quotedString, "PATHWAY-ID": .quotedString], required: ["SERVER-URI"]),
    ]

    private static let streamAttributes: [String: AttributeType] = [
        "BANDWIDTH": .decimalInteger, "AVERAGE-BANDWIDTH": .decimalInteger, "SCORE": .decimalFloatingPoint,
        "CODECS": .quotedString, "SUPPLEMENTAL-CODECS": .quotedString, "RESOLUTION": .resolution,
        "FRAME-RATE": .decimalFloatingPoint, "HDCP-LEVEL": .enumeratedString(["TYPE-0", "TYPE-1", "NONE"]),
        "ALLOWED-CPC": .quotedString, "VIDEO-RANGE": .enumeratedString(["SDR", "HLG", "PQ"]),
        "REQ-VIDEO-LAYOUT": .quotedString, "STABLE-VARIANT-ID": .quotedString, "AUDIO": .quotedString,
        "VIDEO": .quotedString, "SUBTITLES": .quotedString, "CLOSED-CAPTIONS": .quotedStringOrEnumerated(["NONE"]),
        "PATHWAY-ID": .quotedString, "PROGRAM-ID": .decimalInteger,
    ]

    /// Known tags grouped by name length, for matching names straight from bytes.
    private static let byLength: [[KnownTag]] = {
        var table = [[KnownTag]](repeating: [], count: 32)
        for known in KnownTag.allCases { table[known.name.utf8.count].append(known) }
        return table
    }()

    /// The definition of a tag named by these bytes (without `#`), if it is known.
    @inline(__always)
    package static func lookup(_ name: UnsafeBufferPointer<UInt8>) -> TagDefinition? {
        guard name.count < 32, let base = name.baseAddress else { return nil }
        // Compared byte for byte against the static spelling: no String, no reference counting.
        return byLength[name.count].withUnsafeBufferPointer { candidates in
            for known in candidates where memcmp(known.staticName.utf8Start, base, name.count) == 0 {
                return byKnown[Int(known.rawValue)]
            }
            return nil
        }
    }

    private static let byKnown: [TagDefinition] = KnownTag.allCases.map { known in
        all.first { $0.name.known == known }!
    }

    private static let scopes: [Scope] = byKnown.map(\.scope)

    /// Where a known tag may appear.
    @inline(__always)
    package static func scope(of known: KnownTag) -> Scope { scopes[Int(known.rawValue)] }

    /// The definition of a known tag.
    @inline(__always)
    package static func lookup(_ name: TagName) -> TagDefinition? {
        name.known.map { byKnown[Int($0.rawValue)] }
    }
}
