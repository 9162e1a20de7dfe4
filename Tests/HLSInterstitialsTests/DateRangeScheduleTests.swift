import HLSInterstitials
import HLSPlaylist
import PropertyBased
import Testing

/// Date Range Schedules (issue 35, profile R27): the tag, the document, resolution and the store.
@Suite("Date Range Schedules")
struct DateRangeScheduleTests {
    typealias Documents = [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>]

    static let playlistURL = "https://example.com/live/main.m3u8"
    static let scheduleTag =
        "ID=\"sched\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"2026-01-01T00:00:00.000Z\",X-URI=\"schedule.json\""
    static let identity = DateRangeSchedule.Identity(
        identifier: "sched", uri: "https://example.com/live/schedule.json")

    /// The issue's measured case: one entry by X-SCHEDULE-OFFSET, one by START-DATE.
    static let measured = """
        {"DATERANGES": [
          {"ID": "ad1", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 10, "DURATION": 5,
           "X-ASSET-URI": "https://ads.example.com/a.m3u8", "X-VENDOR": 7},
          {"ID": "ad2", "CLASS": "com.apple.hls.interstitial", "START-DATE": "2026-01-01T00:00:20.000Z",
           "DURATION": 5, "X-ASSET-LIST": "https://ads.example.com/list.json", "CUE": ["ONCE"]}
        ]}
        """

    static func document(_ text: String) throws -> DateRangeScheduleDocument {
        try DateRangeScheduleDocument.decode(Array(text.utf8))
    }

    static func resolve(
        _ lines: [String], _ documents: Documents, policy: DateRangeSchedulePolicy = .profile
    ) -> (DateRangeScheduleResolution, MediaPlaylist) {
        let playlist = Sample.mediaPlaylist(Sample.media(lines))
        return (
            DateRangeScheduleResolution.resolve(
                playlist: playlist, playlistURL: playlistURL, documents: documents, policy: policy), playlist
        )
    }

    @Test("the measured case: entries by X-SCHEDULE-OFFSET and by START-DATE are both scheduled")
    func measuredCase() throws {
        let document = try Self.document(Self.measured)
        #expect(document.problems.isEmpty)
        let (resolution, playlist) = Self.resolve([Self.scheduleTag], [Self.identity: .success(document)])
        let events = resolution.events
        #expect(events.map(\.identifier) == ["ad1", "ad2"])
        #expect(events.map(\.scheduleIdentifier) == ["sched", "sched"])
        #expect(events.map { $0.date?.iso8601 } == ["2026-01-01T00:00:10.000Z", "2026-01-01T00:00:20.000Z"])
        #expect(events[0].userDefinedAttributes["X-VENDOR"]?.rawValue == "7")
        #expect(events[1].cueTokens == ["ONCE"])
        #expect(resolution.problems.isEmpty && resolution.pending.isEmpty)
        let schedule = InterstitialSchedule.resolve(ScheduleInput(primary: playlist, events: events))
        #expect(schedule.events.map(\.start) == [MediaTime(seconds: 10), MediaTime(seconds: 20)])
        #expect(schedule.events.allSatisfy { $0.problem == nil })
        // The resolved playlist holds the entries after the schedule tag, placed on its timeline (R1).
        let ranges = resolution.applied(to: playlist).dateRanges
        #expect(ranges.map(\.id) == ["sched", "ad1", "ad2"])
        #expect(ranges[1].startTime == MediaTime(seconds: 10))
        #expect(ranges[1].lines == ranges[0].lines)
    }

    @Test("the tag: X-URI resolved against the playlist; missing X-URI or START-DATE is no schedule")
    func tag() throws {
        let playlist = Sample.mediaPlaylist(
            Sample.media([
                Self.scheduleTag,
                "ID=\"no-uri\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"2026-01-01T00:00:00.000Z\"",
                "ID=\"no-date\",CLASS=\"com.apple.hls.daterange-schedule\",X-URI=\"s.json\"",
                "ID=\"bad-uri\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"2026-01-01T00:00:00.000Z\",X-URI=\"\"",
            ]))
        let schedules = DateRangeSchedule.schedules(of: playlist, playlistURL: Self.playlistURL)
        #expect(schedules.map(\.identity) == [Self.identity])
        let violations = playlist.dateRanges.dropFirst().map { DateRangeSchedule.violations(of: $0).map(\.violation) }
        #expect(violations == [[.missingURI], [.missingStartDate], [.invalidURI]])
    }

    @Test(
        "a document that cannot be read at all is refused whole, with its code and path",
        arguments: [
            ("{", DateRangeScheduleErrorCode.json, ""),
            ("[]", .schema, ""),
            ("{}", .schema, "DATERANGES"),
            ("{\"DATERANGES\": {}}", .schema, "DATERANGES"),
            ("{\"DATERANGES\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}", .tooDeep, ""),
            ("{\"DATERANGES\": [\"[[[[[[[[[[[[[[[[[[[[[[[[\"]}", .schema, "__kept__"),
        ])
    func malformedDocument(text: String, code: DateRangeScheduleErrorCode, path: String) {
        do {
            let document = try DateRangeScheduleDocument.decode(Array(text.utf8))
            // Brackets inside a string do not nest: the document is read, its one entry is bad.
            #expect(path == "__kept__")
            #expect(document.problems.map(\.code) == [.entryType])
        } catch {
            #expect(error.code == code)
            #expect(error.path == path)
        }
    }

    @Test("size and entry count are bounded")
    func limits() {
        let limits = DateRangeScheduleDocument.Limits(maximumBytes: 64, maximumEntries: 2)
        let big = "{\"DATERANGES\": [], \"PAD\": \"" + String(repeating: "x", count: 64) + "\"}"
        #expect(throws: DateRangeScheduleError(code: .tooLarge, "the document is 93 bytes, larger than 64 bytes")) {
            try DateRangeScheduleDocument.decode(Array(big.utf8), limits: limits)
        }
        let three = "{\"DATERANGES\": [1, 2, 3]}"
        do {
            _ = try DateRangeScheduleDocument.decode(Array(three.utf8), limits: limits)
            Issue.record("three entries accepted")
        } catch {
            #expect(error.code == .tooManyEntries && error.path == "DATERANGES")
        }
    }

    @Test(
        "a bad entry is left out with its code and path; the good one is kept (R27)",
        arguments: [
            ("1", DateRangeScheduleErrorCode.entryType, "DATERANGES[0]"),
            ("{\"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1}", .entryID, "DATERANGES[0].ID"),
            ("{\"ID\": 5, \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1}", .entryType, "DATERANGES[0].ID"),
            ("{\"ID\": \"\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1}", .entryID, "DATERANGES[0].ID"),
            ("{\"ID\": \"a\", \"X-SCHEDULE-OFFSET\": 1}", .entryClass, "DATERANGES[0].CLASS"),
            ("{\"ID\": \"a\", \"CLASS\": \"c\"}", .entryStart, "DATERANGES[0].START-DATE"),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"START-DATE\": \"yesterday\"}", .entryStart,
                "DATERANGES[0].START-DATE"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"START-DATE\": \"2026-01-01T00:00:00Z\", \"X-SCHEDULE-OFFSET\": 1}",
                .entryStart, "DATERANGES[0].X-SCHEDULE-OFFSET"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": -1}", .entryOffset,
                "DATERANGES[0].X-SCHEDULE-OFFSET"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1e300}", .entryOffset,
                "DATERANGES[0].X-SCHEDULE-OFFSET"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": \"10\"}", .entryType,
                "DATERANGES[0].X-SCHEDULE-OFFSET"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"DURATION\": \"5\"}", .entryType,
                "DATERANGES[0].DURATION"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"DURATION\": -5}", .entryValue,
                "DATERANGES[0].DURATION"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"X-FLAG\": true}", .entryType,
                "DATERANGES[0].X-FLAG"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"X-BIG\": 1e300}", .entryValue,
                "DATERANGES[0].X-BIG"
            ),
            ("{\"ID\": \"a\\\"b\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1}", .entryValue, "DATERANGES[0].ID"),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"x-low\": \"v\"}", .entryValue,
                "DATERANGES[0].x-low"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"END-DATE\": \"soon\"}", .entryValue,
                "DATERANGES[0].END-DATE"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"END-ON-NEXT\": \"*YES\"}", .entryValue,
                "DATERANGES[0].END-ON-NEXT"
            ),
            (
                "{\"ID\": \"a\", \"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 1, \"SCTE35-OUT\": \"FC30\"}", .entryValue,
                "DATERANGES[0].SCTE35-OUT"
            ),
        ])
    func badEntry(entry: String, code: DateRangeScheduleErrorCode, path: String) throws {
        let good = "{\"ID\": \"good\", \"CLASS\": \"com.apple.hls.interstitial\", \"X-SCHEDULE-OFFSET\": 12.5}"
        let document = try Self.document("{\"DATERANGES\": [\(entry), \(good)]}")
        #expect(document.problems.map(\.code) == [code])
        #expect(document.problems.map(\.path) == [path])
        #expect(document.entries.map(\.identifier) == ["good"])
        #expect(document.entries.first?.scheduleOffset == MediaTime(seconds: 12.5))
        // Whole-document policy: the same entry refuses the document.
        let whole = DateRangeSchedulePolicy(entryFailure: .wholeDocument, unknownClass: .keep, maximumDepth: 1)
        #expect(throws: DateRangeScheduleError.self) {
            try DateRangeScheduleDocument.decode(Array("{\"DATERANGES\": [\(entry), \(good)]}".utf8), policy: whole)
        }
    }

    @Test("a duplicate ID inside a document: the first entry is kept")
    func duplicate() throws {
        let document = try Self.document(
            """
            {"DATERANGES": [{"ID": "a", "CLASS": "c", "X-SCHEDULE-OFFSET": 1, "X-N": "first"},
                            {"ID": "a", "CLASS": "c", "X-SCHEDULE-OFFSET": 2, "X-N": "second"}]}
            """)
        #expect(document.entries.map { $0.attributes["X-N"]?.quotedString } == ["first"])
        #expect(document.problems.map(\.code) == [.entryDuplicate])
        #expect(document.problems.map(\.path) == ["DATERANGES[1].ID"])
    }

    @Test("an unknown CLASS is kept as a plain date range (no event); the refuse policy drops it")
    func unknownClass() throws {
        let text = "{\"DATERANGES\": [{\"ID\": \"u\", \"CLASS\": \"com.example.other\", \"X-SCHEDULE-OFFSET\": 3}]}"
        let (resolution, _) = Self.resolve([Self.scheduleTag], [Self.identity: .success(try Self.document(text))])
        #expect(resolution.dateRanges.map(\.dateRange.id) == ["sched", "u"])
        #expect(resolution.dateRanges.last?.dateRange.className == "com.example.other")
        #expect(resolution.events.isEmpty)
        let refuse = DateRangeSchedulePolicy(entryFailure: .dropEntry, unknownClass: .refuse, maximumDepth: 1)
        let refused = try DateRangeScheduleDocument.decode(Array(text.utf8), policy: refuse)
        #expect(refused.entries.isEmpty && refused.problems.map(\.code) == [.entryClass])
    }

    @Test("an entry whose ID is a playlist date range or another schedule's entry is left out")
    func collisions() throws {
        let second =
            "ID=\"sched2\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"2026-01-01T00:00:00.000Z\",X-URI=\"two.json\""
        let first = try Self.document(
            """
            {"DATERANGES": [{"ID": "ad", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 1},
                            {"ID": "x", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 2}]}
            """)
        let other = try Self.document(
            "{\"DATERANGES\": [{\"ID\": \"x\", \"CLASS\": \"com.apple.hls.interstitial\", \"X-SCHEDULE-OFFSET\": 9}]}")
        let identity2 = DateRangeSchedule.Identity(identifier: "sched2", uri: "https://example.com/live/two.json")
        let (resolution, _) = Self.resolve(
            [Sample.interstitial, Self.scheduleTag, second],
            [Self.identity: .success(first), identity2: .success(other)])
        #expect(resolution.events.map(\.identifier) == ["ad", "x"])
        #expect(resolution.events.map(\.scheduleIdentifier) == [nil, "sched"])
        #expect(resolution.problems.map(\.error.code) == [.entryCollision, .entryCollision])
        #expect(resolution.problems.map(\.scheduleIdentifier) == ["sched", "sched2"])
        #expect(resolution.problems.map(\.error.path) == ["DATERANGES[0].ID", "DATERANGES[0].ID"])
    }

    @Test("a nested schedule is left out at depth 1 and followed within a larger bound")
    func nesting() throws {
        let outer = try Self.document(
            """
            {"DATERANGES": [{"ID": "inner", "CLASS": "com.apple.hls.daterange-schedule", "X-SCHEDULE-OFFSET": 30,
                             "X-URI": "inner.json"},
                            {"ID": "ad", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 1}]}
            """)
        let inner = try Self.document(
            "{\"DATERANGES\": [{\"ID\": \"deep\", \"CLASS\": \"com.apple.hls.interstitial\", \"X-SCHEDULE-OFFSET\": 2}]}"
        )
        let innerIdentity = DateRangeSchedule.Identity(identifier: "inner", uri: "https://example.com/live/inner.json")
        let documents: Documents = [Self.identity: .success(outer), innerIdentity: .success(inner)]
        let (flat, _) = Self.resolve([Self.scheduleTag], documents)
        #expect(flat.events.map(\.identifier) == ["ad"])
        #expect(flat.problems.map(\.error.code) == [.nested])
        #expect(flat.problems.map(\.error.path) == ["DATERANGES[0]"])
        let deeper = DateRangeSchedulePolicy(entryFailure: .dropEntry, unknownClass: .keep, maximumDepth: 2)
        let (nested, _) = Self.resolve([Self.scheduleTag], documents, policy: deeper)
        #expect(nested.events.map(\.identifier) == ["deep", "ad"])
        #expect(nested.events.map(\.scheduleIdentifier) == ["inner", "sched"])
        // The inner offset counts from the inner tag's START-DATE (00:00:30).
        #expect(nested.events.first?.date?.iso8601 == "2026-01-01T00:00:32.000Z")
        #expect(nested.schedules.map(\.identity) == [Self.identity, innerIdentity])
    }

    @Test("a failed document adds nothing; one not loaded yet is pending")
    func failedAndPending() {
        let failure = DateRangeScheduleError(code: .load, "HTTP 404")
        let (failed, _) = Self.resolve([Self.scheduleTag], [Self.identity: .failure(failure)])
        #expect(failed.events.isEmpty && failed.pending.isEmpty)
        #expect(failed.problems == [.init(scheduleIdentifier: "sched", error: failure)])
        let (pending, _) = Self.resolve([Self.scheduleTag], [:])
        #expect(pending.pending.map(\.identity) == [Self.identity])
        #expect(pending.events.isEmpty && pending.problems.isEmpty)
    }

    @Test("a live schedule is resolved once per identity: a changed document is not taken on reload")
    func changedOnReload() throws {
        var store = DateRangeScheduleStore()
        #expect(store.needsLoading(Self.identity))
        let before = try Self.document(Self.measured)
        let after = try Self.document(
            "{\"DATERANGES\": [{\"ID\": \"new\", \"CLASS\": \"com.apple.hls.interstitial\", \"X-SCHEDULE-OFFSET\": 4}]}"
        )
        let recorded = store.record(.success(before), for: Self.identity)
        #expect(recorded && !store.needsLoading(Self.identity))
        let recordedAgain = store.record(.success(after), for: Self.identity)
        #expect(!recordedAgain)
        let playlist = Sample.mediaPlaylist(Sample.media([Self.scheduleTag], endList: false))
        let first = store.resolve(playlist: playlist, playlistURL: Self.playlistURL)
        let reloaded = store.resolve(playlist: playlist, playlistURL: Self.playlistURL)
        #expect(first == reloaded && first.events.map(\.identifier) == ["ad1", "ad2"])
        // A new X-URI is a new identity: loaded again.
        let moved = DateRangeSchedule.Identity(identifier: "sched", uri: "https://example.com/live/v2.json")
        #expect(store.needsLoading(moved))
        store.retain(only: [moved])
        #expect(store.needsLoading(Self.identity))
    }

    @Test("a Preload tag that targets the schedule names the schedule's identity")
    func preload() {
        let hint =
            "ID=\"pre\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2026-01-01T00:00:00.000Z\",DURATION=6,X-URI=\"schedule.json\",X-TARGET-ID=\"sched\",X-TARGET-CLASS=\"com.apple.hls.daterange-schedule\""
        let (resolution, _) = Self.resolve([hint], [:])
        #expect(resolution.preloads.map(\.identity) == [Self.identity])
        #expect(resolution.preloads.first?.hint.end.iso8601 == "2026-01-01T00:00:06.000Z")
    }

    @Test("the validator: the tag's rules, the document's problems and each entry's rules, at the schedule tag")
    func validator() throws {
        let text = Sample.media([
            Sample.interstitial, Self.scheduleTag,
            "ID=\"no-uri\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"2026-01-01T00:00:00.000Z\"",
        ])
        let tagRules = Sample.validate(text).map(\.rule.rawValue).filter { $0.hasPrefix("schedule") }
        #expect(tagRules == ["schedule-uri"])
        let parsed = Sample.parse(text)
        guard case .media(let playlist) = parsed.playlist else { throw CancellationError() }
        let document = try Self.document(
            """
            {"DATERANGES": [{"ID": "ad", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 1},
                            {"ID": "both", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 2,
                             "X-ASSET-URI": "https://a.example/x.m3u8?_HLS_interstitial_id=both",
                             "X-ASSET-LIST": "https://a.example/l.json?_HLS_interstitial_id=both"},
                            {"ID": "neg", "CLASS": "c", "X-SCHEDULE-OFFSET": -2}]}
            """)
        let (resolution, diagnostics) = ScheduleValidator.validate(
            playlist, in: parsed.document, playlistURL: Self.playlistURL, documents: [Self.identity: .success(document)]
        )
        #expect(resolution.events.map(\.identifier) == ["ad", "both"])
        #expect(
            diagnostics.map(\.rule.rawValue) == [
                "schedule-entry-offset", "schedule-entry-collision", "interstitial-asset",
            ])
        let scheduleLine = playlist.dateRanges[1].lines[0]
        #expect(diagnostics.allSatisfy { $0.location.line == scheduleLine })
        #expect(diagnostics[0].message.contains("DATERANGES[2].X-SCHEDULE-OFFSET"))
        #expect(diagnostics[2].message.hasPrefix("schedule \"sched\" (\(Self.identity.uri)), entry \"both\": "))
        #expect(Rule.allRules.filter { $0.id.rawValue.hasPrefix("schedule") }.count == 3 + 15)
    }

    /// JSON-ish documents from random draws: entries of random shapes and values.
    static let draws = Gen.int(in: 0...40).array(of: 0...30)

    @Test("any document: decoding and resolution never crash, and every event has an ID")
    func property() async {
        let fragments = [
            "{", "}", "[", "]", ",", ":", "\"ID\"", "\"CLASS\"", "\"com.apple.hls.interstitial\"",
            "\"com.apple.hls.daterange-schedule\"", "\"X-SCHEDULE-OFFSET\"", "\"START-DATE\"",
            "\"2026-01-01T00:00:05Z\"", "\"X-URI\"", "\"s.json\"", "-1", "0", "12.5", "1e308", "true", "null",
            "\"a\"", "\"b\"", "\"DATERANGES\"", "\"DURATION\"", "\"CUE\"", "\"PRE\"", "\"\"", "\"X-V\"", "7",
            "{\"ID\":\"e\",\"CLASS\":\"com.apple.hls.interstitial\",\"X-SCHEDULE-OFFSET\":",
            "{\"DATERANGES\":[", "]}", "\"sched\"", "\"x\\\"y\"", "[[[[", "]]]]", "\"END-DATE\"", "\"ID\":\"",
            "\"X-ASSET-URI\":\"u\"", ",",
        ]
        await propertyCheck(count: 300, input: Self.draws) { draws in
            let text = draws.map { fragments[$0 % fragments.count] }.joined()
            let result = Result { () throws(DateRangeScheduleError) in
                try DateRangeScheduleDocument.decode(Array(text.utf8))
            }
            let (resolution, _) = Self.resolve([Self.scheduleTag], [Self.identity: result])
            #expect(resolution.events.allSatisfy { !$0.identifier.isEmpty })
            #expect(resolution.dateRanges.allSatisfy { !$0.dateRange.id.isEmpty })
        }
    }
}
