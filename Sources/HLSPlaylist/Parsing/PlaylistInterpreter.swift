import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Phase two of parsing: reads the meaning of a document's tags into a ``Playlist``.
///
/// It reads one line at a time (``consume(_:line:uriRange:)``), as the parser reads them: lines
/// before the first Media or Multivariant Playlist tag wait until that tag decides the kind (§4.4).
struct PlaylistInterpreter {
    /// The document: complete when an edited document is read again, filled line by line by the
    /// parser otherwise. Diagnostics locate attributes in its lines.
    var document: PlaylistDocument
    let options: ParseOptions
    private var collector: DiagnosticCollector
    private var variables: [String: String] = [:]
    private var definitions: [VariableDefinition] = []
    private var seenOnce: Set<TagName> = []
    private var unknownTags: [UnknownTag] = []
    private var survey = DocumentSurvey()
    /// Lines read before the kind was decided.
    private var undecided: [(content: LineContent, line: Int, uriRange: Range<Int>?)] = []
    private var mediaBuilder: MediaPlaylistBuilder
    private var multivariant = Self.emptyMultivariant
    private static let emptyMultivariant = MultivariantPlaylist(
        version: nil, independentSegments: false, start: nil, definitions: [], variants: [], iFrameVariants: [],
        renditions: [], sessionData: [], sessionKeys: [], contentSteering: nil, unknownTags: [])
    private var pendingStream: (attributes: AttributeList?, line: Int)? = nil

    init(document: PlaylistDocument, options: ParseOptions) {
        self.document = document
        self.options = options
        self.collector = DiagnosticCollector(file: document.file)
        self.mediaBuilder = MediaPlaylistBuilder(
            source: document.source, segments: document.source.count / 40,
            compactSourceLimit: options.compactSourceLimit)
    }

    /// The diagnostics, at most ``Diagnostic/maximumPerLine`` per line plus a summary of the rest.
    var diagnostics: [Diagnostic] { collector.finished() }

    // MARK: Reporting

    /// Reports at line `index` (0-based), at `attribute` when given. Past the per-line limit neither
    /// the location nor the message is computed.
    mutating func report(
        _ rule: Rule, line index: Int, attribute: String? = nil, _ message: @autoclosure () -> String
    ) {
        collector.report(rule, in: document, line: index, attribute: attribute, message)
    }

    // MARK: Entry

    /// Reads every line of the (complete) document, then the playlist.
    mutating func interpretDocument() -> Playlist {
        for index in document.lines.indices {
            consume(document.lines[index].content, line: index, uriRange: nil)
        }
        return finish()
    }

    /// Reads line `index`. `uriRange` is where a URI line's text is in the document's source.
    mutating func consume(_ content: LineContent, line index: Int, uriRange: Range<Int>?) {
        switch content {
        case .blank, .comment: return
        case .uri: break
        case .tag(let tag):
            if let known = tag.name.known, let misplaced = survey.noteTag(known, line: index) {
                reportMisplaced(misplaced)
            }
        }
        if !survey.isDecided {
            undecided.append((content, index, uriRange))
            return
        }
        if !undecided.isEmpty { startKind() }
        read(content, line: index, uriRange: uriRange)
    }

    /// Whether the playlist is a Media Playlist and no line waits: a segment's lines can then go
    /// straight to the builder.
    private var readsMediaDirectly: Bool { survey.isDecided && !survey.isMultivariant && undecided.isEmpty }

    /// Reads URI line `index`, whose text is `range` of the document's source (`bytes` are the
    /// source's bytes). In a Media Playlist without variables in the URI no string is made.
    mutating func consumeURI(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, line index: Int) {
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        if readsMediaDirectly, memchr(text.baseAddress!, Int32(UInt8(ascii: "{")), text.count) == nil {
            let problem = mediaBuilder.addURI(range: range, line: index) { String(decoding: text, as: UTF8.self) }
            if let problem { report(problem) }
            return
        }
        consume(.uri(String(decoding: text, as: UTF8.self)), line: index, uriRange: range)
    }

    /// Reads line `index`, a plain EXTINF or EXT-X-PROGRAM-DATE-TIME (`bytes` are the source's
    /// bytes): in a Media Playlist, without making a tag.
    mutating func consumeTiming(_ timing: DocumentParser.Timing, _ bytes: UnsafeBufferPointer<UInt8>, line index: Int) {
        let tag: Tag
        switch timing {
        case .duration(let duration, let title):
            let titleText = String(decoding: UnsafeBufferPointer(rebasing: bytes[title]), as: UTF8.self)
            if readsMediaDirectly {
                let problem = mediaBuilder.addDuration(duration, title: titleText, line: index)
                if let problem { report(problem) }
                return
            }
            tag = Tag(.extinf, .extinf(duration: duration, title: titleText))
        case .programDateTime(let date):
            if readsMediaDirectly {
                mediaBuilder.addProgramDateTime(date, line: index)
                return
            }
            tag = Tag(.programDateTime, .dateTime(date))
        }
        consume(.tag(tag), line: index, uriRange: nil)
    }

    /// Reads the lines that waited for the kind.
    private mutating func startKind() {
        let waiting = undecided
        undecided = []
        for (content, line, uriRange) in waiting { read(content, line: line, uriRange: uriRange) }
    }

    private mutating func reportMisplaced(_ tag: DocumentSurvey.Misplaced) {
        let kind = { (multivariant: Bool) in multivariant ? "Multivariant" : "Media" }
        report(
            .playlistKind, line: tag.line,
            "#\(tag.tag.name) is a \(kind(tag.isMultivariant)) Playlist tag in a \(kind(!tag.isMultivariant)) Playlist")
    }

    private mutating func read(_ content: LineContent, line index: Int, uriRange: Range<Int>?) {
        if survey.isMultivariant {
            readMultivariant(content, line: index)
        } else {
            readMedia(content, line: index, uriRange: uriRange)
        }
    }

    /// The playlist, once every line was read.
    mutating func finish() -> Playlist {
        startKind()
        if survey.isMultivariant { return .multivariant(finishMultivariant()) }
        var builder = MediaPlaylistBuilder(source: [], segments: 0)
        swap(&builder, &mediaBuilder)
        var playlist = builder.finish(interpreter: &self)
        playlist.definitions = definitions
        playlist.unknownTags = unknownTags
        return .media(playlist)
    }

    // MARK: Common tags

    /// Checks a tag against its definition. Returns its attributes when it should be used,
    /// nil when clients must ignore it.
    mutating func checked(_ tag: Tag, _ definition: TagDefinition, line index: Int) -> AttributeList? {
        if definition.once {
            if seenOnce.contains(tag.name) {
                report(.tagDuplicate, line: index, "#\(tag.name) MUST NOT appear more than once in a Playlist")
            }
            seenOnce.insert(tag.name)
        }
        guard definition.form == .attributes else { return AttributeList() }
        guard let attributes = tag.value.attributes else { return nil }
        var usable = true
        for name in definition.required where !attributes.contains(name) {
            report(.attributeMissing, line: index, "#\(tag.name) is missing the REQUIRED attribute \(name)")
            usable = false
        }
        for attribute in attributes {
            if let type = definition.attributes[attribute.name] {
                if !check(attribute, type, tag: tag.name, line: index) { usable = false }
            } else if tag.name == .dateRange, attribute.isClientAttribute,
                attribute.value.kind == .enumeratedString
            {
                report(
                    .attributeType, line: index, attribute: attribute.name,
                    "\(Diagnostic.clipped(attribute.name))=\(Diagnostic.clipped(attribute.value.rawValue)) must be a quoted-string, a hexadecimal-sequence or a signed-decimal-floating-point (§4.4.5.1)"
                )
            }
        }
        return usable ? attributes : nil
    }

    /// Checks one attribute's type. Returns false when the tag must be ignored.
    private mutating func check(
        _ attribute: Attribute, _ type: TagDefinition.AttributeType, tag: TagName, line index: Int
    )
        -> Bool
    {
        let value = attribute.value
        let typeName: String
        switch type {
        case .decimalInteger:
            if value.decimalInteger != nil { return true }
            typeName = "a decimal-integer"
        case .decimalFloatingPoint:
            if value.decimalFloatingPoint != nil { return true }
            typeName =
                value.signedDecimal != nil
                ? "a decimal-floating-point, which is never negative" : "a decimal-floating-point"
        case .signedDecimalFloatingPoint:
            if value.signedDecimal != nil { return true }
            typeName = "a signed-decimal-floating-point"
        case .quotedString, .enumeratedStringList:
            if value.isQuotedString { return true }
            typeName = type == .quotedString ? "a quoted-string" : "a quoted enumerated-string-list"
        case .hexadecimalSequence:
            if value.hexadecimalSequence != nil { return true }
            typeName = "a hexadecimal-sequence"
        case .resolution:
            if value.resolution != nil { return true }
            typeName = "a decimal-resolution (WIDTHxHEIGHT)"
        case .enumeratedString(let allowed), .quotedStringOrEnumerated(let allowed):
            if case .quotedStringOrEnumerated = type, value.isQuotedString { return true }
            if let text = value.enumeratedString {
                if allowed.contains(text) { return true }
                report(
                    .attributeEnumeration, line: index, attribute: attribute.name,
                    "\(Diagnostic.clipped(attribute.name))=\(Diagnostic.clipped(text)) is not one of \(allowed.joined(separator: ", ")); clients MUST ignore this #\(tag) tag (§6.3.1)"
                )
                return false
            }
            typeName = "an enumerated-string (\(allowed.joined(separator: ", ")))"
        case .yes:
            if value.rawValue == "YES" { return true }
            typeName = "the enumerated-string YES"
        }
        report(
            .attributeType, line: index, attribute: attribute.name,
            "\(Diagnostic.clipped(attribute.name)) must be \(typeName), found \(Diagnostic.clipped(value.rawValue))")
        return false
    }

    /// The content of a quoted-string attribute, variables substituted.
    mutating func string(_ attributes: AttributeList, _ name: String, line index: Int) -> String? {
        guard let text = attributes[name]?.quotedString else { return nil }
        return substitute(text, line: index)
    }

    mutating func yes(_ attributes: AttributeList, _ name: String) -> Bool {
        attributes[name]?.rawValue == "YES"
    }

    /// Replaces `{$name}` references (§4.3).
    mutating func substitute(_ text: String, line index: Int) -> String {
        let hasBrace =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.baseAddress.map { memchr($0, 0x7B, bytes.count) != nil } ?? false
            }
            ?? text.utf8.contains(UInt8(ascii: "{"))
        guard hasBrace, text.contains("{$") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{$") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                result += rest[open.lowerBound...]
                return result
            }
            let name = String(rest[open.upperBound..<close])
            if let value = variables[name] {
                result += value
            } else {
                report(
                    .variableReference, line: index,
                    "the variable reference {$\(name)} is not defined by EXT-X-DEFINE; \(Rule.variableReference.quote)")
                result += rest[open.lowerBound...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }

    /// Handles tags allowed in both kinds of playlist. Returns true if the tag was one.
    mutating func handleCommon(
        _ tag: Tag, _ definition: TagDefinition?, line index: Int, version: inout UInt64?,
        independentSegments: inout Bool, start: inout StartPoint?
    ) -> Bool {
        guard let definition else {
            var value: String? = nil
            if case .text(let text) = tag.value { value = text }
            unknownTags.append(UnknownTag(name: tag.name, value: value, line: index + 1))
            return true
        }
        switch tag.name.known {
        case .extm3u?:
            if index != 0 { report(.playlistHeader, line: index, "#EXTM3U must be the first line only") }
            return true
        case .version?:
            _ = checked(tag, definition, line: index)
            if case .integer(let value) = tag.value { version = value }
            return true
        case .independentSegments?:
            _ = checked(tag, definition, line: index)
            independentSegments = true
            return true
        case .start?:
            if let attributes = checked(tag, definition, line: index),
                let offset = attributes["TIME-OFFSET"]?.signedDecimal
            {
                start = StartPoint(timeOffset: offset, precise: yes(attributes, "PRECISE"))
            }
            return true
        case .define?:
            if let attributes = checked(tag, definition, line: index) { define(attributes, line: index) }
            return true
        default:
            return false
        }
    }

    private mutating func define(_ attributes: AttributeList, line index: Int) {
        let kinds = ["NAME", "IMPORT", "QUERYPARAM"].filter { attributes.contains($0) }
        guard kinds.count == 1, let name = attributes[kinds[0]]?.quotedString else {
            report(.attributeMissing, line: index, "#EXT-X-DEFINE needs exactly one of NAME, IMPORT or QUERYPARAM")
            return
        }
        if definitions.contains(where: { $0.name == name }) {
            report(
                .variableReference, line: index,
                "the variable \(name) is defined more than once; the first definition is used")
            return
        }
        var value: String?
        let source: VariableDefinition.Source
        switch kinds[0] {
        case "NAME":
            source = .value
            value = attributes["VALUE"]?.quotedString
            if value == nil { report(.attributeMissing, line: index, "#EXT-X-DEFINE with NAME needs a VALUE") }
        case "IMPORT":
            source = .import
            value = options.importedVariables[name]
            if value == nil {
                report(
                    .variableReference, line: index, "IMPORT=\"\(name)\" names no variable of the Multivariant Playlist"
                )
            }
        default:
            source = .queryParameter
            value =
                options.playlistURL.flatMap { URLComponents(string: $0) }?.queryItems?.first { $0.name == name }?.value
            if value == nil {
                report(
                    .variableReference, line: index,
                    "QUERYPARAM=\"\(name)\" is not a query parameter of the playlist URI")
            }
        }
        if let value { variables[name] = value }
        definitions.append(VariableDefinition(name: name, value: value, source: source, line: index + 1))
    }

    // MARK: Multivariant

    private mutating func readMultivariant(_ content: LineContent, line index: Int) {
        // Moved out while the line is read: reading it calls methods of the interpreter.
        var playlist = multivariant
        multivariant = Self.emptyMultivariant
        defer { multivariant = playlist }
        switch content {
        case .blank, .comment: return
        case .uri(let uri):
            if let stream = pendingStream {
                if let attributes = stream.attributes {
                    playlist.variants.append(
                        variant(attributes, uri: substitute(uri, line: index), line: stream.line))
                }
                pendingStream = nil
            }
            return
        case .tag(let tag):
            let definition = TagDefinition.lookup(tag.name)
            if handleCommon(
                tag, definition, line: index, version: &playlist.version,
                independentSegments: &playlist.independentSegments, start: &playlist.start)
            {
                return
            }
            guard let definition else { return }
            if let stream = pendingStream {
                report(.streamURI, line: stream.line - 1, "#EXT-X-STREAM-INF must be followed by a URI line")
                pendingStream = nil
            }
            let attributes = checked(tag, definition, line: index)
            switch tag.name.known {
            case .streamInf?:
                pendingStream = (attributes, index + 1)
            case .iFrameStreamInf?:
                if let attributes, let uri = string(attributes, "URI", line: index) {
                    playlist.iFrameVariants.append(variant(attributes, uri: uri, line: index + 1))
                }
            case .media?:
                if let attributes { playlist.renditions.append(rendition(attributes, line: index)) }
            case .sessionData?:
                if let attributes, let dataID = string(attributes, "DATA-ID", line: index) {
                    let value = string(attributes, "VALUE", line: index)
                    let uri = string(attributes, "URI", line: index)
                    if (value == nil) == (uri == nil) {
                        report(
                            .attributeMissing, line: index,
                            "#EXT-X-SESSION-DATA MUST contain either VALUE or URI, but not both")
                    }
                    playlist.sessionData.append(
                        SessionData(
                            dataID: dataID, value: value, uri: uri, format: attributes["FORMAT"]?.enumeratedString,
                            language: string(attributes, "LANGUAGE", line: index), line: index + 1))
                }
            case .sessionKey?:
                if let attributes { playlist.sessionKeys.append(key(attributes, line: index)) }
            case .contentSteering?:
                if let attributes, let server = string(attributes, "SERVER-URI", line: index) {
                    playlist.contentSteering = ContentSteering(
                        serverURI: server, pathwayID: string(attributes, "PATHWAY-ID", line: index))
                }
            default:
                break  // Media Playlist tags were reported as misplaced.
            }
        }
    }

    private mutating func finishMultivariant() -> MultivariantPlaylist {
        var playlist = multivariant
        if let stream = pendingStream {
            report(.streamURI, line: stream.line - 1, "#EXT-X-STREAM-INF must be followed by a URI line")
        }
        playlist.definitions = definitions
        playlist.unknownTags = unknownTags
        return playlist
    }

    private mutating func variant(_ attributes: AttributeList, uri: String, line: Int) -> VariantStream {
        let index = line - 1
        return VariantStream(
            uri: uri,
            bandwidth: attributes["BANDWIDTH"]?.decimalInteger,
            averageBandwidth: attributes["AVERAGE-BANDWIDTH"]?.decimalInteger,
            score: attributes["SCORE"]?.decimalNumber,
            codecs: string(attributes, "CODECS", line: index)?.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            },
            supplementalCodecs: string(attributes, "SUPPLEMENTAL-CODECS", line: index),
            resolution: attributes["RESOLUTION"]?.resolution,
            frameRate: attributes["FRAME-RATE"]?.decimalNumber,
            hdcpLevel: attributes["HDCP-LEVEL"]?.enumeratedString,
            allowedCPC: string(attributes, "ALLOWED-CPC", line: index),
            videoRange: attributes["VIDEO-RANGE"]?.enumeratedString,
            requiredVideoLayout: string(attributes, "REQ-VIDEO-LAYOUT", line: index),
            stableVariantID: string(attributes, "STABLE-VARIANT-ID", line: index),
            audio: string(attributes, "AUDIO", line: index),
            video: string(attributes, "VIDEO", line: index),
            subtitles: string(attributes, "SUBTITLES", line: index),
            closedCaptions: string(attributes, "CLOSED-CAPTIONS", line: index)
                ?? attributes["CLOSED-CAPTIONS"]?.enumeratedString,
            pathwayID: string(attributes, "PATHWAY-ID", line: index),
            attributes: attributes,
            line: line)
    }

    private mutating func rendition(_ attributes: AttributeList, line index: Int) -> Rendition {
        let type = attributes["TYPE"]?.enumeratedString ?? ""
        let uri = string(attributes, "URI", line: index)
        if type == "CLOSED-CAPTIONS" {
            if uri != nil {
                report(
                    .attributeType, line: index, attribute: "URI",
                    "#EXT-X-MEDIA with TYPE=CLOSED-CAPTIONS MUST NOT have a URI")
            }
            if !attributes.contains("INSTREAM-ID") {
                report(.attributeMissing, line: index, "#EXT-X-MEDIA with TYPE=CLOSED-CAPTIONS REQUIRES INSTREAM-ID")
            }
        }
        return Rendition(
            type: type, uri: uri,
            groupID: string(attributes, "GROUP-ID", line: index) ?? "",
            language: string(attributes, "LANGUAGE", line: index),
            associatedLanguage: string(attributes, "ASSOC-LANGUAGE", line: index),
            name: string(attributes, "NAME", line: index) ?? "",
            stableRenditionID: string(attributes, "STABLE-RENDITION-ID", line: index),
            isDefault: yes(attributes, "DEFAULT"), autoselect: yes(attributes, "AUTOSELECT"),
            forced: yes(attributes, "FORCED"),
            instreamID: string(attributes, "INSTREAM-ID", line: index),
            bitDepth: attributes["BIT-DEPTH"]?.decimalInteger,
            sampleRate: attributes["SAMPLE-RATE"]?.decimalInteger,
            characteristics: string(attributes, "CHARACTERISTICS", line: index)?.split(separator: ",").map(String.init)
                ?? [],
            channels: string(attributes, "CHANNELS", line: index)?.split(separator: "/").map(String.init) ?? [],
            attributes: attributes, line: index + 1)
    }

    mutating func key(_ attributes: AttributeList, line index: Int) -> EncryptionKey {
        let method = attributes["METHOD"]?.enumeratedString ?? "NONE"
        let uri = string(attributes, "URI", line: index)
        if method != "NONE", uri == nil {
            report(.attributeMissing, line: index, "URI is REQUIRED unless the METHOD is NONE (§4.4.4.4)")
        }
        return EncryptionKey(
            method: method, uri: uri, iv: attributes["IV"]?.rawValue,
            keyFormat: string(attributes, "KEYFORMAT", line: index),
            keyFormatVersions: string(attributes, "KEYFORMATVERSIONS", line: index), attributes: attributes)
    }

    // MARK: Media

    private mutating func readMedia(_ content: LineContent, line index: Int, uriRange: Range<Int>?) {
        switch content {
        case .blank, .comment: return
        case .uri(let uri):
            // The hot path, with the timing tags: the builder is changed in place.
            let substituted = substitute(uri, line: index)
            let range = substituted == uri ? uriRange : nil
            if let problem = mediaBuilder.addURI(range: range, line: index, uri: { substituted }) { report(problem) }
        case .tag(let tag):
            if let known = tag.name.known, MediaPlaylistBuilder.isTiming(known) {
                if let problem = mediaBuilder.addTiming(tag, line: index) { report(problem) }
                return
            }
            // Other tags need the interpreter: the builder is moved out while they are read.
            var builder = MediaPlaylistBuilder(source: [], segments: 0)
            swap(&builder, &mediaBuilder)
            defer { swap(&builder, &mediaBuilder) }
            let definition = TagDefinition.lookup(tag.name)
            if handleCommon(
                tag, definition, line: index, version: &builder.playlist.version,
                independentSegments: &builder.playlist.independentSegments, start: &builder.playlist.start)
            {
                return
            }
            guard let definition else { return }
            builder.addTag(tag, definition, line: index, interpreter: &self)
        }
    }

    private mutating func report(_ problem: MediaPlaylistBuilder.Problem) {
        report(problem.rule, line: problem.line, problem.message)
    }
}
