import HLSPlaylist

/// Checks the date ranges and interstitials of one playlist against the spec (§4.4.5.1, App. D).
///
/// Parsing already reports the syntax rules (`Rule.playlistRules`); this adds the rules in
/// `Rule.interstitialRules` that one playlist can break on its own. Rules that span playlists,
/// asset lists or reloads are in ``RenditionValidator``, ``AssetValidator`` and ``ReloadValidator``;
/// the SCTE-35 signals are checked by ``SignalValidator``.
public enum InterstitialValidator {
    /// The parser's diagnostics and this validator's, ordered by line.
    public static func validate(_ result: ParseResult) -> [Diagnostic] {
        var diagnostics = result.diagnostics
        if case .media(let playlist) = result.playlist {
            diagnostics += validate(playlist, in: result.document)
        }
        return diagnostics.sortedByLocation().limited()
    }

    /// The date-range and interstitial diagnostics of a media playlist.
    public static func validate(_ playlist: MediaPlaylist, in document: PlaylistDocument) -> [Diagnostic] {
        var checker = Checker(document: document)
        if let first = playlist.dateRanges.first, !playlist.segments.contains(where: { $0.programDateTime != nil }) {
            checker.report(
                .dateRangeProgramDateTime, line: first.lines[0] - 1,
                "the playlist has EXT-X-DATERANGE tags but no EXT-X-PROGRAM-DATE-TIME; \(Rule.dateRangeProgramDateTime.quote)"
            )
        }
        for range in playlist.dateRanges {
            checker.check(range)
            checker.checkPreRoll(range, isVOD: !playlist.isLive)
        }
        return checker.diagnostics + SignalValidator.validate(playlist, in: document)
    }

    /// The date-range and interstitial diagnostics of date ranges that are not tags of `document`
    /// (a Date Range Schedule's entries, reported at their schedule tag's lines), each message
    /// prefixed by `prefix(range)`.
    package static func validate(
        dateRanges: [DateRange], in document: PlaylistDocument, prefix: (DateRange) -> String
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for range in dateRanges {
            var checker = Checker(document: document)
            checker.check(range)
            diagnostics += checker.diagnostics.map { diagnostic in
                var diagnostic = diagnostic
                diagnostic.message = prefix(range) + diagnostic.message
                return diagnostic
            }
        }
        return diagnostics
    }
}

extension [Diagnostic] {
    /// Ordered by file, line and column; the order of diagnostics at one place is kept.
    package func sortedByLocation() -> [Diagnostic] {
        enumerated().sorted { a, b in
            let l = a.element.location
            let r = b.element.location
            if l.file != r.file { return l.file < r.file }
            if l.line != r.line { return l.line < r.line }
            if l.column != r.column { return l.column < r.column }
            return a.offset < b.offset
        }.map(\.element)
    }
}

/// Collects diagnostics for one document.
private struct Checker {
    let document: PlaylistDocument
    /// At most ``Diagnostic/maximumPerLine`` per line (a date range counts at its first line).
    var collector: DiagnosticCollector

    init(document: PlaylistDocument) {
        self.document = document
        self.collector = DiagnosticCollector(file: document.file)
    }

    var diagnostics: [Diagnostic] { collector.finished() }

    mutating func report(
        _ rule: Rule, line index: Int, attribute: String? = nil, _ message: @autoclosure () -> String
    ) {
        collector.report(rule, in: document, line: index, attribute: attribute, message)
    }

    /// Reports at the first tag of `range` that has `attribute`.
    mutating func report(_ rule: Rule, _ range: DateRange, attribute: String, _ message: @autoclosure () -> String) {
        let document = document
        collector.add(line: range.lines.first ?? 0, severity: rule.severity) {
            rule.diagnostic(at: document.location(of: attribute, in: range), message())
        }
    }

    func attributes(ofLine index: Int) -> AttributeList? {
        guard document.lines.indices.contains(index) else { return nil }
        return document.lines[index].content.tag?.value.attributes
    }

    // MARK: §4.4.5.1

    mutating func checkDateRange(_ range: DateRange) {
        let id = range.id
        let attributes = range.attributes
        if self.attributes(ofLine: range.lines[0] - 1)?.contains("START-DATE") == false {
            let later =
                attributes.contains("START-DATE") ? " (a later tag with this ID has one, which is too late)" : ""
            report(
                .dateRangeStartDate, line: range.lines[0] - 1,
                "date range \"\(id)\" has no START-DATE\(later); \(Rule.dateRangeStartDate.quote)")
        }
        for name in ["START-DATE", "END-DATE"] {
            guard let text = attributes[name]?.quotedString, let date = DateTime(iso8601: text) else { continue }
            if date.utcOffsetSeconds == nil || date.fractionDigits < 3 {
                report(
                    .dateFormat, range, attribute: name,
                    "\(name) \"\(text)\" lacks a time zone or millisecond precision; \(Rule.dateFormat.quote)")
            }
        }
        if let start = range.startDate, let end = range.endDate {
            if end < start {
                report(
                    .dateRangeEndDate, range, attribute: "END-DATE",
                    "END-DATE \(end) of date range \"\(id)\" is before its START-DATE \(start); \(Rule.dateRangeEndDate.quote)"
                )
            } else if let duration = range.duration {
                let difference = (end - start) - duration
                if difference.nanoseconds.magnitude >= 1_000_000 {
                    report(
                        .dateRangeDuration, range, attribute: "DURATION",
                        "DURATION=\(duration) but END-DATE − START-DATE is \(end - start) s in date range \"\(id)\"; \(Rule.dateRangeDuration.quote)"
                    )
                }
            }
        }
        if let cue = range.cue {
            if cue.contains("PRE"), cue.contains("POST") {
                report(
                    .dateRangeCue, range, attribute: "CUE",
                    "CUE=\"\(cue.joined(separator: ","))\" of date range \"\(id)\"; \(Rule.dateRangeCue.quote)")
            }
            checkRepeats(range, "CUE", cue)
        }
        if attributes.contains("END-ON-NEXT") {
            var problems: [String] = []
            if range.className == nil { problems.append("has no CLASS") }
            if attributes.contains("DURATION") { problems.append("has DURATION") }
            if attributes.contains("END-DATE") { problems.append("has END-DATE") }
            if !problems.isEmpty {
                report(
                    .dateRangeEndOnNext, range, attribute: "END-ON-NEXT",
                    "date range \"\(id)\" with END-ON-NEXT=YES \(problems.joined(separator: " and ")); \(Rule.dateRangeEndOnNext.quote)"
                )
            }
        }
    }

    mutating func checkRepeats(_ range: DateRange, _ name: String, _ tokens: [String]) {
        var seen: Set<String> = []
        for token in tokens where !seen.insert(token).inserted {
            report(
                .enumeratedListRepeat, range, attribute: name,
                "\(name) lists \(token) more than once; \(Rule.enumeratedListRepeat.quote)")
            return
        }
    }

    /// Every rule of one date range, by its CLASS.
    mutating func check(_ range: DateRange) {
        checkDateRange(range)
        if range.className == InterstitialEvent.className { checkInterstitial(range) }
        if range.className == PreloadDateRange.className { checkPreload(range) }
        if range.className == DateRangeSchedule.className { checkSchedule(range) }
    }

    // MARK: Date Range Schedules (profile R27)

    /// Each requirement a schedule date range breaks (the rule resolution applies too).
    mutating func checkSchedule(_ range: DateRange) {
        for (violation, attribute) in DateRangeSchedule.violations(of: range) {
            switch violation {
            case .missingURI:
                let present = range.attributes.contains(attribute)
                report(
                    .scheduleURI, line: range.lines[0] - 1,
                    "schedule date range \"\(range.id)\" \(present ? "has X-URI but not as a quoted-string" : "lacks X-URI"); it cannot be loaded (R27)"
                )
            case .invalidURI:
                report(
                    .scheduleURIInvalid, range, attribute: attribute,
                    "X-URI of schedule date range \"\(range.id)\" is not a URI reference (empty, or with spaces or control characters)"
                )
            case .missingStartDate:
                report(
                    .scheduleStartDate, line: range.lines[0] - 1,
                    "schedule date range \"\(range.id)\" has no valid START-DATE, from which its entries' X-SCHEDULE-OFFSET counts (R27)"
                )
            }
        }
    }

    // MARK: App. F

    /// Each App. F requirement a Preload date range breaks (the rule the player applies too).
    mutating func checkPreload(_ range: DateRange) {
        for (violation, attribute) in PreloadDateRange.violations(of: range) {
            switch violation {
            case .missingAttribute:
                let name = attribute ?? ""
                let present = range.attributes.contains(name)
                report(
                    .preloadAttribute, line: range.lines[0] - 1,
                    "preload date range \"\(range.id)\" \(present ? "has \(name) but not as a quoted-string" : "lacks \(name)"); \(Rule.preloadAttribute.quote)"
                )
            case .noExtent:
                report(
                    .preloadDuration, line: range.lines[0] - 1,
                    "preload date range \"\(range.id)\" has neither DURATION nor END-DATE; \(Rule.preloadDuration.quote)"
                )
            case .cueOrEndOnNext:
                report(
                    .preloadCue, range, attribute: attribute ?? "CUE",
                    "preload date range \"\(range.id)\" has \(attribute ?? "CUE"); \(Rule.preloadCue.quote)")
            }
        }
    }

    // MARK: App. D

    mutating func checkInterstitial(_ range: DateRange) {
        typealias Name = InterstitialEvent.AttributeName
        let id = range.id
        let attributes = range.attributes
        // The rule the schedule and the player apply too (they never schedule such an event).
        let violations = InterstitialEvent(dateRange: range)?.schemaViolations ?? []
        if violations.contains(.noAsset) {
            report(
                .interstitialAsset, line: range.lines[0] - 1,
                "interstitial \"\(id)\" has neither X-ASSET-URI nor X-ASSET-LIST; \(Rule.interstitialAsset.quote)"
            )
        } else if violations.contains(.bothAssets) {
            report(
                .interstitialAsset, range, attribute: Name.assetList,
                "interstitial \"\(id)\" has both X-ASSET-URI and X-ASSET-LIST; \(Rule.interstitialAsset.quote)"
            )
        }
        for attribute in attributes {
            checkType(range, attribute)
        }
        if let uri = attributes[Name.assetURI]?.quotedString, !URIReference.isAbsolute(uri) {
            report(
                .interstitialAssetURI, range, attribute: Name.assetURI,
                "X-ASSET-URI \"\(uri)\" of interstitial \"\(id)\" is not absolute; \(Rule.interstitialAssetURI.quote)")
        }
        for name in [Name.assetURI, Name.assetList] {
            guard let uri = attributes[name]?.quotedString else { continue }
            checkQuery(range, name, uri)
        }
        let known: [(String, Set<String>)] = [
            (Name.cue, ["PRE", "POST", "ONCE"]), (Name.snap, ["OUT", "IN"]), (Name.restrict, ["SKIP", "JUMP"]),
        ]
        for (name, allowed) in known {
            guard let tokens = attributes[name]?.enumeratedStringList else { continue }
            if name != Name.cue { checkRepeats(range, name, tokens) }
            for token in tokens where !allowed.contains(token) {
                report(
                    .interstitialEnumeration, range, attribute: name,
                    "\(name) of interstitial \"\(id)\" has the unrecognized value \"\(token)\" (known: \(allowed.sorted().joined(separator: ", "))), which clients ignore"
                )
            }
        }
        let quoted: [(String, [String])] = [
            (Name.contentMayVary, ["YES", "NO"]), (Name.timelineOccupies, ["POINT", "RANGE"]),
            (Name.timelineStyle, ["HIGHLIGHT", "PRIMARY"]),
        ]
        for (name, allowed) in quoted {
            guard let text = attributes[name]?.quotedString, !allowed.contains(text) else { continue }
            report(
                .interstitialEnumeration, range, attribute: name,
                "\(name)=\"\(text)\" of interstitial \"\(id)\" is not \(allowed.map { "\"\($0)\"" }.joined(separator: " or ")); clients treat it as missing (default \"\(allowed[0])\")"
            )
        }
        if !attributes.contains(Name.skipControlOffset) {
            for name in [Name.skipControlDuration, Name.skipControlLabelID] where attributes.contains(name) {
                report(
                    .interstitialSkipControl, range, attribute: name,
                    "interstitial \"\(id)\" has \(name) but no X-SKIP-CONTROL-OFFSET, so no skip button is offered (unless its asset list gives SKIP-CONTROL)"
                )
            }
        }
    }

    /// A VOD pre-roll that skips the start of the content (``InterstitialEvent/preRollSkippedPrimary(isVOD:)``).
    mutating func checkPreRoll(_ range: DateRange, isVOD: Bool) {
        guard range.className == InterstitialEvent.className, let event = InterstitialEvent(dateRange: range),
            let skipped = event.preRollSkippedPrimary(isVOD: isVOD)
        else { return }
        report(
            .interstitialPreRollSkip, range, attribute: InterstitialEvent.AttributeName.cue,
            InterstitialEvent.preRollSkipMessage(id: range.id, skipped: skipped))
    }

    mutating func checkType(_ range: DateRange, _ attribute: Attribute) {
        typealias Name = InterstitialEvent.AttributeName
        let value = attribute.value
        let expected: String
        switch attribute.name {
        case Name.assetURI, Name.assetList, Name.contentMayVary, Name.timelineOccupies, Name.timelineStyle:
            if let text = value.quotedString, !text.isEmpty { return }
            expected = "a non-empty quoted-string"
        case Name.resumeOffset:
            if value.signedDecimal != nil { return }
            expected = "a signed-decimal-floating-point (seconds)"
        case Name.playoutLimit:
            if value.decimalFloatingPoint != nil { return }
            expected = "a decimal-floating-point (seconds, not negative)"
        case Name.snap, Name.restrict:
            if value.quotedString != nil { return }
            expected = "a quoted enumerated-string-list"
        case Name.skipControlOffset, Name.skipControlDuration:
            if value.decimalInteger != nil { return }
            expected = "a decimal-integer (whole seconds)"
        case Name.skipControlLabelID:
            if let text = value.quotedString, SkipControl.isValidLabelID(text) { return }
            expected = "a quoted-string of the characters [a-zA-Z-_] only"
        default:
            return
        }
        report(
            .interstitialAttributeType, range, attribute: attribute.name,
            "\(Diagnostic.clipped(attribute.name))=\(Diagnostic.clipped(value.rawValue)) of interstitial \"\(range.id)\" must be \(expected)"
        )
    }

    mutating func checkQuery(_ range: DateRange, _ name: String, _ uri: String) {
        let parameters = QueryParameters(uri)
        let ids = parameters.values(for: "_HLS_interstitial_id")
        if ids.isEmpty {
            report(
                .interstitialQueryID, range, attribute: name,
                "\(name) of interstitial \"\(range.id)\" has no _HLS_interstitial_id query parameter; \(Rule.interstitialQueryID.quote)"
            )
        } else if ids != [range.id] {
            report(
                .interstitialQueryID, range, attribute: name,
                "\(name) of interstitial \"\(range.id)\" has _HLS_interstitial_id=\(ids.joined(separator: ",")), not its ID \"\(range.id)\""
            )
        }
        for key in parameters.names where key.hasPrefix("_HLS_") && key != "_HLS_interstitial_id" {
            report(
                .interstitialQueryReserved, range, attribute: name,
                "\(name) of interstitial \"\(range.id)\" carries \(key), a parameter reserved for clients or the spec; \(Rule.interstitialQueryReserved.quote)"
            )
        }
    }
}
