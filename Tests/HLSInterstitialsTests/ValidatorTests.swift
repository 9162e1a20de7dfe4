import HLSInterstitials
import HLSPlaylist
import Testing

/// One rule with a playlist that breaks it and a close one that follows it.
struct RuleCase: Sendable, CustomTestStringConvertible {
    var rule: RuleID
    var failing: String
    var passing: String
    /// The line and column the diagnostic must point at.
    var line: Int
    var column: Int?

    var testDescription: String { "\(rule)" }

    /// A case whose two playlists differ in their date-range lines.
    static func dateRanges(
        _ rule: RuleID, _ failing: [String], _ passing: [String], line: Int = 6, column: Int? = nil
    )
        -> RuleCase
    {
        RuleCase(rule: rule, failing: Sample.media(failing), passing: Sample.media(passing), line: line, column: column)
    }
}

@Suite("Validator rules")
struct ValidatorTests {
    static let i = Sample.interstitial
    static let other = "ID=\"x\",CLASS=\"com.example\",START-DATE=\"2026-01-01T00:00:10.000Z\""

    static let cases: [RuleCase] = [
        RuleCase(
            rule: "daterange-program-date-time", failing: Sample.media([i], programDateTime: false),
            passing: Sample.media([i]), line: 5),
        .dateRanges(
            "daterange-start-date", ["ID=\"x\",DURATION=5"],
            ["ID=\"x\",START-DATE=\"2026-01-01T00:00:01.000Z\",DURATION=5"]),
        .dateRanges(
            "daterange-start-date",
            ["ID=\"x\",CLASS=\"c\"", "ID=\"x\",START-DATE=\"2026-01-01T00:00:01.000Z\""],
            ["ID=\"x\",START-DATE=\"2026-01-01T00:00:01.000Z\"", "ID=\"x\",CLASS=\"c\""]),
        .dateRanges(
            "daterange-end-date", [other + ",END-DATE=\"2026-01-01T00:00:09.000Z\""],
            [other + ",END-DATE=\"2026-01-01T00:00:11.000Z\""], column: 83),
        .dateRanges(
            "daterange-duration", [other + ",END-DATE=\"2026-01-01T00:00:25.000Z\",DURATION=10"],
            [other + ",END-DATE=\"2026-01-01T00:00:25.000Z\",DURATION=15.000"]),
        .dateRanges("daterange-cue", [i + ",CUE=\"PRE,POST\""], [i + ",CUE=\"PRE,ONCE\""], column: 174),
        .dateRanges(
            "daterange-end-on-next", ["ID=\"x\",START-DATE=\"2026-01-01T00:00:10.000Z\",END-ON-NEXT=YES"],
            [other + ",END-ON-NEXT=YES"]),
        .dateRanges("daterange-end-on-next", [other + ",END-ON-NEXT=YES,DURATION=5"], [other + ",DURATION=5"]),
        .dateRanges("enumerated-list-repeat", [i + ",X-RESTRICT=\"SKIP,SKIP\""], [i + ",X-RESTRICT=\"SKIP,JUMP\""]),
        .dateRanges("enumerated-list-repeat", [i + ",CUE=\"ONCE,ONCE\""], [i + ",CUE=\"ONCE\""]),
        .dateRanges("date-format", [other.replacingOccurrences(of: "10.000Z", with: "10Z")], [other]),
        .dateRanges(
            "interstitial-asset",
            ["ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\""], [i]),
        .dateRanges("interstitial-asset", [i + ",X-ASSET-LIST=\"l.json?_HLS_interstitial_id=ad\""], [i]),
        .dateRanges(
            "interstitial-asset-uri",
            [i.replacingOccurrences(of: "https://ads.example.com/ad/main.m3u8", with: "ad/main.m3u8")], [i], column: 99),
        .dateRanges("interstitial-attribute-type", [i + ",X-RESUME-OFFSET=\"5\""], [i + ",X-RESUME-OFFSET=-5.5"]),
        .dateRanges("interstitial-attribute-type", [i + ",X-PLAYOUT-LIMIT=-1"], [i + ",X-PLAYOUT-LIMIT=1"]),
        .dateRanges(
            "interstitial-attribute-type", [i + ",X-SKIP-CONTROL-OFFSET=2.5"], [i + ",X-SKIP-CONTROL-OFFSET=2"]),
        .dateRanges(
            "interstitial-attribute-type", [i + ",X-SKIP-CONTROL-OFFSET=0,X-SKIP-CONTROL-LABEL-ID=\"skip 1\""],
            [i + ",X-SKIP-CONTROL-OFFSET=0,X-SKIP-CONTROL-LABEL-ID=\"skip-one_x\""]),
        .dateRanges("interstitial-attribute-type", [i + ",X-RESTRICT=SKIP"], [i + ",X-RESTRICT=\"SKIP\""]),
        .dateRanges(
            "interstitial-attribute-type", [i + ",X-TIMELINE-STYLE=PRIMARY"], [i + ",X-TIMELINE-STYLE=\"PRIMARY\""]),
        .dateRanges("interstitial-enumeration", [i + ",X-SNAP=\"OUT,SIDEWAYS\""], [i + ",X-SNAP=\"OUT,IN\""]),
        .dateRanges(
            "interstitial-enumeration", [i + ",X-TIMELINE-OCCUPIES=\"LINE\""], [i + ",X-TIMELINE-OCCUPIES=\"RANGE\""]),
        .dateRanges(
            "interstitial-enumeration", [i + ",X-CONTENT-MAY-VARY=\"MAYBE\""], [i + ",X-CONTENT-MAY-VARY=\"NO\""]),
        .dateRanges(
            "interstitial-query-id", [i.replacingOccurrences(of: "?_HLS_interstitial_id=ad", with: "")], [i], column: 99
        ),
        .dateRanges(
            "interstitial-query-id",
            [i.replacingOccurrences(of: "_HLS_interstitial_id=ad", with: "_HLS_interstitial_id=other")],
            [i]),
        .dateRanges(
            "interstitial-query-reserved", [i.replacingOccurrences(of: "=ad\"", with: "=ad&_HLS_primary_id=1\"")], [i]),
        // A VOD pre-roll with a duration and no X-RESUME-OFFSET skips the start of the content.
        .dateRanges(
            "interstitial-preroll-skip", [i + ",CUE=\"PRE\",DURATION=6"],
            [i + ",CUE=\"PRE\",DURATION=6,X-RESUME-OFFSET=0"], column: 174),
        .dateRanges(
            "interstitial-preroll-skip", [i + ",CUE=\"PRE,ONCE\",PLANNED-DURATION=6"],
            [i + ",CUE=\"POST\",DURATION=6"], column: 174),
        // On a live stream resuming at the duration keeps the distance from the live edge: no warning.
        RuleCase(
            rule: "interstitial-preroll-skip", failing: Sample.media([i + ",CUE=\"PRE\",DURATION=6"]),
            passing: Sample.media([i + ",CUE=\"PRE\",DURATION=6"], endList: false), line: 6, column: 174),
        .dateRanges(
            "interstitial-skip-control", [i + ",X-SKIP-CONTROL-DURATION=5"],
            [i + ",X-SKIP-CONTROL-OFFSET=0,X-SKIP-CONTROL-DURATION=5"]),
        // Parser rules the issue names for date ranges.
        .dateRanges(
            "daterange-conflict", [i + ",DURATION=10", i + ",DURATION=12"], [i + ",DURATION=10", i + ",DURATION=10"],
            line: 7),
        .dateRanges("attribute-duplicate", [i + ",DURATION=10,DURATION=10"], [i + ",DURATION=10"]),
        .dateRanges("attribute-type", [i + ",DURATION=-10"], [i + ",DURATION=10"]),
        .dateRanges("attribute-type", [i + ",X-COM-EXAMPLE=VALUE"], [i + ",X-COM-EXAMPLE=\"VALUE\""]),
        .dateRanges("attribute-missing", ["CLASS=\"c\",START-DATE=\"2026-01-01T00:00:01.000Z\""], [other]),
    ]

    @Test("each rule flags its failing playlist at the date range and passes its fixed twin", arguments: cases)
    func rule(_ test: RuleCase) {
        let failing = Sample.validate(test.failing).filter { $0.rule == test.rule }
        #expect(failing.count >= 1, "\(test.rule) not reported")
        if let first = failing.first {
            #expect(first.location.line == test.line)
            if let column = test.column { #expect(first.location.column == column) }
            let known = Rule.allRules.first { $0.id == test.rule }
            #expect(known?.severity == first.severity)
        }
        let passing = Sample.validate(test.passing)
        #expect(passing.isEmpty, "\(passing.map(\.description))")
    }

    @Test("every rule in the catalog has a unique ID and quotes its source")
    func catalog() {
        let ids = Rule.allRules.map(\.id)
        #expect(Set(ids).count == ids.count)
        for rule in Rule.allRules {
            #expect(rule.reference.hasPrefix("§") || rule.reference.hasPrefix("App. "), "\(rule.id)")
            #expect(!rule.summary.isEmpty)
        }
        #expect(RuleCatalog.markdown().contains("| `interstitial-asset` | error |"))
    }

    @Test("negative DURATION explains that decimal-floating-point is never negative")
    func negativeDuration() {
        let diagnostics = Sample.validate(Sample.media([Self.i + ",DURATION=-10"]))
        #expect(diagnostics.contains { $0.message.contains("never negative") })
    }

    @Test("a playlist without date ranges needs no PROGRAM-DATE-TIME")
    func noDateRanges() {
        #expect(Sample.validate(Sample.media([], programDateTime: false)).isEmpty)
    }

    @Test("absolute URIs need a scheme")
    func absoluteURIs() {
        for uri in ["https://a.example/x.m3u8", "http://a", "file:///x", "skd://key", "data:,x"] {
            #expect(URIReference.isAbsolute(uri), "\(uri)")
        }
        for uri in ["x.m3u8", "/a/x.m3u8", "//host/x", "1http://a", ":x", ""] {
            #expect(!URIReference.isAbsolute(uri), "\(uri)")
        }
    }
}
