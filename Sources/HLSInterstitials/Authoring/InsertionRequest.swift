import HLSPlaylist

/// One interstitial to add to a playlist, as `hlsi insert` options or one entry of a schedule file give it.
///
/// Times are seconds on the playlist's timeline (`at`) or dates (`date`); every attribute of the
/// schema has a field. ``event(mapping:path:)`` checks it strictly, so that what `insert` writes always
/// validates.
public struct InsertionRequest: Hashable, Sendable {
    /// ID.
    public var id: String
    /// Where to schedule it, in seconds on the playlist's timeline; mapped to START-DATE.
    public var at: MediaTime?
    /// START-DATE, when given as a date.
    public var date: DateTime?
    /// X-ASSET-URI (absolute).
    public var assetURI: String?
    /// X-ASSET-LIST (absolute or relative to the playlist).
    public var assetListURI: String?
    /// DURATION.
    public var duration: MediaTime?
    /// PLANNED-DURATION.
    public var plannedDuration: MediaTime?
    /// X-RESUME-OFFSET.
    public var resumeOffset: MediaTime?
    /// X-PLAYOUT-LIMIT.
    public var playoutLimit: MediaTime?
    /// X-RESTRICT identifiers (SKIP, JUMP).
    public var restrict: [String]?
    /// X-SNAP identifiers (OUT, IN).
    public var snap: [String]?
    /// CUE identifiers (PRE, POST, ONCE).
    public var cue: [String]?
    /// X-TIMELINE-OCCUPIES (POINT, RANGE).
    public var occupies: String?
    /// X-TIMELINE-STYLE (HIGHLIGHT, PRIMARY).
    public var style: String?
    /// X-CONTENT-MAY-VARY (YES, NO).
    public var contentMayVary: String?
    /// X-SKIP-CONTROL-OFFSET, -DURATION and -LABEL-ID.
    public var skipControl: SkipControl
    /// Other `X-` attributes, in order.
    public var attributes: AttributeList

    /// Creates a request with an ID and nothing else.
    public init(id: String) {
        self.id = id
        self.skipControl = SkipControl()
        self.attributes = []
    }

    /// Reads a user-given `X-NAME=VALUE`: a signed decimal, a `0x` hexadecimal sequence or a quoted
    /// string stays as written; any other text becomes a quoted-string.
    ///
    /// - Throws: ``InsertionError`` at `--attr` when the name is not an `X-` AttributeName or the value
    ///   cannot be written (a `"`, CR, LF or control character in a quoted-string), naming the rule, the
    ///   character and its offset.
    public static func attribute(_ text: String) throws(InsertionError) -> Attribute {
        guard let equals = text.firstIndex(of: "=") else {
            throw InsertionError(code: .insertRequest, path: "--attr", "expected X-NAME=VALUE, found \"\(text)\"")
        }
        let name = String(text[..<equals])
        let raw = String(text[text.index(after: equals)...])
        return try checkedAttribute(name: name, text: raw, path: "--attr")
    }

    /// A user-given client attribute: a signed decimal or a `0x` hexadecimal sequence stays a number, a
    /// quoted-string keeps its quotes, other text becomes a quoted-string; the name and value checked.
    static func checkedAttribute(name: String, text: String, path: String) throws(InsertionError) -> Attribute {
        do {
            try Attribute.checkClientName(name)
            let probe = AttributeValue(unchecked: text)
            if probe.signedDecimal != nil || probe.hexadecimalSequence != nil || probe.kind == .quotedString {
                return Attribute(name: name, value: try AttributeValue(rawValue: text))
            }
            return Attribute(name: name, value: try .quoted(text))
        } catch {
            throw InsertionError(code: .insertRequest, path: path, "\(Diagnostic.clipped(name)): \(error)")
        }
    }

    /// The event to write, after checking every field; `mapping` gives START-DATE for a time on the
    /// playlist's timeline.
    ///
    /// - Throws: ``InsertionError`` naming the field, for anything that would make the date range invalid.
    public func event(mapping: (MediaTime) -> DateTime?, path: String = "") throws(InsertionError) -> InterstitialEvent
    {
        func fail(_ field: String, _ message: String) -> InsertionError {
            InsertionError(
                code: .insertRequest, path: path.isEmpty ? field : field.isEmpty ? path : "\(path).\(field)", message)
        }
        func checkQuoted(_ field: String, _ text: String) throws(InsertionError) {
            do {
                try AttributeGrammar.checkQuotedContent(text)
            } catch {
                throw fail(field, error.description)
            }
        }
        guard !id.isEmpty else { throw fail("id", "the ID must be a non-empty quoted-string") }
        try checkQuoted("id", id)
        var event = InterstitialEvent(identifier: id)
        switch (at, date) {
        case (nil, nil): throw fail("at", "give a time (at) or a date (date) for interstitial \"\(id)\"")
        case (.some, .some): throw fail("date", "give either a time (at) or a date (date), not both")
        case (let time?, nil):
            do { _ = try time.checkedUserInput() } catch { throw fail("at", error.description) }
            guard let mapped = mapping(time), mapped.isWithinUserInputBounds else {
                throw fail("at", "the playlist has no segment to place \(time) s on, or the date is out of range")
            }
            event.date = mapped
        case (nil, let date?):
            guard date.isWithinUserInputBounds else { throw fail("date", "\(date) is out of the supported range") }
            event.date = date
        }
        switch (assetURI, assetListURI) {
        case (nil, nil):
            throw fail("assetUri", "give an asset URI or an asset list; \(Rule.interstitialAsset.quote)")
        case (.some, .some):
            throw fail("assetList", "give an asset URI or an asset list, not both; \(Rule.interstitialAsset.quote)")
        case (let uri?, nil):
            guard URIReference.isAbsolute(uri) else {
                throw fail("assetUri", "\"\(uri)\" is not absolute; \(Rule.interstitialAssetURI.quote)")
            }
            event.assetURI = Self.addingInterstitialID(id, to: uri)
        case (nil, let uri?):
            event.assetListURI = Self.addingInterstitialID(id, to: uri)
        }
        for (field, uri) in [("assetUri", assetURI), ("assetList", assetListURI)] {
            guard let uri else { continue }
            try checkQuoted(field, uri)
            if uri.contains(where: { $0 == " " }) {
                throw fail(field, "\"\(Diagnostic.clipped(uri))\" contains a space; encode it")
            }
        }
        for (field, value) in [
            ("duration", duration), ("plannedDuration", plannedDuration), ("playoutLimit", playoutLimit),
            ("resumeOffset", resumeOffset), ("skipControlOffset", skipControl.offset),
            ("skipControlDuration", skipControl.duration),
        ] {
            guard let value else { continue }
            if value < .zero, field != "resumeOffset" { throw fail(field, "must not be negative, found \(value)") }
            do { _ = try value.checkedUserInput() } catch { throw fail(field, error.description) }
        }
        event.duration = duration
        event.plannedDuration = plannedDuration
        event.playoutLimit = playoutLimit
        event.resumptionOffset = resumeOffset.map(ResumptionOffset.time)
        event.restrictTokens = try Self.tokens(restrict, allowed: ["SKIP", "JUMP"], field: fail("restrict", ""))
        event.snapTokens = try Self.tokens(snap, allowed: ["OUT", "IN"], field: fail("snap", ""))
        event.cueTokens = try Self.tokens(cue, allowed: ["PRE", "POST", "ONCE"], field: fail("cue", ""))
        if let tokens = event.cueTokens, tokens.contains("PRE"), tokens.contains("POST") {
            throw fail("cue", Rule.dateRangeCue.quote)
        }
        event.timelineOccupiesValue = try Self.choice(occupies, ["POINT", "RANGE"], fail("occupies", ""))
        event.timelineStyleValue = try Self.choice(style, ["HIGHLIGHT", "PRIMARY"], fail("style", ""))
        event.contentMayVaryValue = try Self.choice(contentMayVary, ["YES", "NO"], fail("contentMayVary", ""))
        for (field, value) in [
            ("skipControlOffset", skipControl.offset), ("skipControlDuration", skipControl.duration),
        ] {
            if let value, value < .zero || value.nanoseconds % 1_000_000_000 != 0 {
                throw fail(field, "must be a whole number of seconds (a decimal-integer), found \(value)")
            }
        }
        if let label = skipControl.labelID, !SkipControl.isValidLabelID(label) {
            throw fail("skipControlLabelId", "must use the characters [a-zA-Z-_] only, found \"\(label)\"")
        }
        event.skipControl = skipControl
        var givenNames: Set<String> = []
        for attribute in attributes {
            let field = fail("attributes.\(Diagnostic.clipped(attribute.name))", "").path
            do {
                try Attribute.checkClientName(attribute.name)
                try AttributeGrammar.checkRawValue(attribute.value.rawValue)
            } catch {
                throw InsertionError(code: .insertRequest, path: field, error.description)
            }
            if InterstitialEvent.AttributeName.schema.contains(attribute.name) {
                throw InsertionError(
                    code: .insertRequest, path: field, "\(attribute.name) is a schema attribute; use its own option")
            }
            if !givenNames.insert(attribute.name).inserted {
                throw InsertionError(code: .insertRequest, path: field, "\(attribute.name) is given twice")
            }
            switch attribute.value.kind {
            case .quotedString where attribute.value.quotedString != nil: break
            case .hexadecimalSequence where attribute.value.hexadecimalSequence != nil: break
            case .signedDecimalFloatingPoint: break
            default:
                throw InsertionError(
                    code: .insertRequest, path: field,
                    "the value must be a quoted-string, a hexadecimal-sequence or a signed-decimal-floating-point (§4.4.5.1)"
                )
            }
            event.userDefinedAttributes.append(attribute)
        }
        do {
            _ = try event.dateRangeAttributes  // the last word: what is returned can be written
        } catch {
            throw fail("", error.description)
        }
        return event
    }

    /// `uri` with `_HLS_interstitial_id=<id>` added unless it has one (App. D.4).
    public static func addingInterstitialID(_ id: String, to uri: String) -> String {
        if QueryParameters(uri).names.contains("_HLS_interstitial_id") { return uri }
        return QueryParameters.appending("_HLS_interstitial_id", id, to: uri)
    }

    private static func tokens(
        _ tokens: [String]?, allowed: [String], field: InsertionError
    ) throws(InsertionError)
        -> [String]?
    {
        guard let tokens else { return nil }
        var seen: Set<String> = []
        for token in tokens {
            guard allowed.contains(token) else {
                throw InsertionError(
                    code: field.code, path: field.path,
                    "\"\(token)\" is not one of \(allowed.joined(separator: ", "))")
            }
            guard seen.insert(token).inserted else {
                throw InsertionError(code: field.code, path: field.path, "\(token) is given twice")
            }
        }
        return tokens
    }

    private static func choice(
        _ value: String?, _ allowed: [String], _ field: InsertionError
    ) throws(InsertionError)
        -> String?
    {
        guard let value else { return nil }
        guard allowed.contains(value) else {
            throw InsertionError(
                code: field.code, path: field.path, "\"\(value)\" is not one of \(allowed.joined(separator: ", "))")
        }
        return value
    }
}
