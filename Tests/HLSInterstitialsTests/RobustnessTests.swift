import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

/// Issue 14: the schedule and timeline never trap, an interstitial cannot inject lines or attributes,
/// user-given times are bounded, and asset-list queries are checked.
@Suite("Robustness of interstitials: no traps, no injection, bounded times, checked asset-list queries")
struct InterstitialRobustnessTests {
    static func resolve(_ text: String) -> InterstitialSchedule {
        let playlist = Sample.mediaPlaylist(text)
        return InterstitialSchedule.resolve(
            ScheduleInput(primary: playlist, events: ScheduleInput.events(of: playlist)))
    }

    /// Every item's ranges are well formed and the drawings can be made.
    static func checkDrawable(_ schedule: InterstitialSchedule) {
        for item in schedule.items {
            #expect(item.playout.lowerBound <= item.playout.upperBound)
            #expect(item.integrated.lowerBound <= item.integrated.upperBound)
        }
        let snapshot = IntegratedTimelineSnapshot(schedule: schedule)
        _ = snapshot.map(MediaTime(seconds: 30))
        #expect(!TimelinePicture.svg(schedule).isEmpty)
        #expect(!TimelinePicture.ansi(schedule, width: 72, colors: false).isEmpty)
        #expect(!TimelinePicture.ansi(schedule, width: -1, colors: false).isEmpty)
    }

    static func interstitial(_ id: String, at seconds: Int, _ extra: String) -> String {
        "ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:\(seconds).000Z\",X-ASSET-URI=\"https://ads.example.com/\(id).m3u8?_HLS_interstitial_id=\(id)\""
            + extra
    }

    @Test("two long breaks at 10 and 20 s (DURATION=8999999999) resolve without a range trap")
    func twoLongBreaks() {
        let text = Sample.media([
            Self.interstitial("long1", at: 10, ",DURATION=8999999999"),
            Self.interstitial("long2", at: 20, ",DURATION=8999999999"),
        ])
        let schedule = Self.resolve(text)
        #expect(schedule.events.count == 2)
        #expect(schedule.events[1].resumeTime == .max)
        Self.checkDrawable(schedule)
    }

    @Test(
        "a playlist that validates clean with DURATION=9223372036 (and friends) resolves and draws",
        arguments: [
            ",DURATION=9223372036", ",DURATION=9223372036.854775807,X-TIMELINE-OCCUPIES=\"RANGE\"",
            ",X-RESUME-OFFSET=-9223372036", ",X-RESUME-OFFSET=9223372036,X-PLAYOUT-LIMIT=9223372036",
            ",END-DATE=\"2026-01-01T00:00:00.000Z\"", ",DURATION=9223372036,CUE=\"PRE\"",
        ])
    func extremeValues(_ extra: String) {
        let text = Sample.media([
            Self.interstitial("a", at: 10, extra), Self.interstitial("b", at: 12, extra),
            Self.interstitial("c", at: 10, ",DURATION=5"),
        ])
        Self.checkDrawable(Self.resolve(text))
    }

    @Test("the validator accepts DURATION=9223372036, and nothing traps while validating")
    func validatesClean() {
        let text = Sample.media([Self.interstitial("a", at: 10, ",DURATION=9223372036")])
        let errors = Sample.validate(text).filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
    }

    // MARK: Injection

    static let injections = [
        "a\"\n#EXTINF:2,\nhttp://evil.invalid/seg.m4s\n#X:\"b", "a\",DURATION=999,X-Z=\"b", "a\rb",
    ]

    @Test("an event whose fields would inject lines or attributes cannot be written", arguments: injections)
    func eventRefuses(_ text: String) {
        var event = InterstitialEvent(identifier: "ok", date: DateTime(iso8601: "2026-01-01T00:00:10.000Z")!)
        event.assetURI = text
        #expect(throws: AttributeSyntaxError.self) { try event.dateRangeAttributes }
        #expect(throws: AttributeSyntaxError.self) { try event.dateRangeTag }
        event.assetURI = "https://a.example/x"
        event.identifier = text
        #expect(throws: AttributeSyntaxError.self) { try event.dateRangeTag }
        event.identifier = "ok"
        event.restrictTokens = ["SKIP\",X=\"1"]
        #expect(throws: AttributeSyntaxError.self) { try event.dateRangeTag }
        event.restrictTokens = nil
        #expect(throws: Never.self) { try event.dateRangeTag }
    }

    @Test("--attr and JSON attributes refuse injections with a located error", arguments: injections)
    func requestRefuses(_ text: String) throws {
        #expect(throws: InsertionError.self) { try InsertionRequest.attribute("X-EVIL=" + text) }
        do {
            _ = try InsertionRequest.attribute("X-EVIL=" + text)
        } catch {
            #expect(error.path == "--attr")
            #expect(error.message.contains("attribute-quoted-string"))
        }
        let json = JSONValue.object(["id": .string("b"), "attributes": .object(["X-EVIL": .string(text)])])
        do {
            _ = try InsertionRequest.decode(json, path: "interstitials[0]")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.path == "interstitials[0].attributes.X-EVIL")
            #expect(error.message.contains("attribute-quoted-string"))
        }
    }

    @Test(
        "bad client attribute names are refused with the JSON path",
        arguments: ["x-lower", "X-A B", "X-A\n#EXTINF:1,", "X-", "Y-A"])
    func badNames(_ name: String) throws {
        #expect(throws: InsertionError.self) { try InsertionRequest.attribute(name + "=1") }
        var request = InserterTests.request("n", at: 5)
        request.attributes = AttributeList([Attribute(name: name, value: .integer(1))])
        do {
            _ = try request.event(mapping: { InterstitialInserter.defaultEpoch + $0 }, path: "b")
            Issue.record("accepted \(name)")
        } catch {
            #expect(error.path.hasPrefix("b.attributes."))
            #expect(error.message.contains("attribute-name"))
        }
    }

    @Test("a request whose ID or URI would inject is refused at that field", arguments: injections)
    func requestFields(_ text: String) {
        var request = InserterTests.request("ok", at: 5)
        request.id = text
        #expect(throws: InsertionError.self) { try request.event(mapping: { _ in InterstitialInserter.defaultEpoch }) }
        request = InserterTests.request("ok", at: 5)
        request.assetURI = "https://a.example/" + text
        do {
            _ = try request.event(mapping: { _ in InterstitialInserter.defaultEpoch })
            Issue.record("accepted")
        } catch {
            #expect(error.path == "assetUri")
        }
    }

    @Test("a parsed injected value is reported by validation (it comes through parse diagnostics)")
    func validatorReports() {
        let text = Sample.media([Self.interstitial("a", at: 10, ",X-EVIL=\"a\"b\"")])
        #expect(Sample.validate(text).contains { $0.rule == "attribute-quoted-string" && $0.severity == .error })
    }

    // MARK: Bounds of user-given times

    @Test(
        "schedule entries refuse times that are not finite, negative, or out of the user bound",
        arguments: [
            (#"{"id":"a","at":10,"duration":8999999999}"#, "duration"),
            (#"{"id":"a","at":8999999999}"#, "at"),
            (#"{"id":"a","at":10,"duration":-1}"#, "duration"),
            (#"{"id":"a","at":10,"resumeOffset":-1e300}"#, "resumeOffset"),
            (#"{"id":"a","at":10,"playoutLimit":1e300}"#, "playoutLimit"),
            (#"{"id":"a","date":"2262-04-01T00:00:00.000Z"}"#, "date"),
            (#"{"id":"a","at":10,"skipControlOffset":315360001}"#, "skipControlOffset"),
        ])
    func timeBounds(_ input: (String, String)) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(input.0.utf8))
        do {
            _ = try InsertionRequest.decode(value)
            Issue.record("accepted \(input.0)")
        } catch {
            #expect(error.path == input.1)
        }
    }

    @Test("a request whose time maps past the representable dates is refused, not wrapped")
    func unrepresentableDate() {
        var request = InserterTests.request("a", at: 5)
        request.at = MediaTime(seconds: 400_000_000)
        #expect(throws: InsertionError.self) {
            try request.event(mapping: { InterstitialInserter.defaultEpoch + $0 })
        }
    }

    // MARK: Asset-list queries

    @Test("AssetListQuery reads the three parameters")
    func queryReads() throws {
        let query = try AssetListQuery(parameters: [
            "_HLS_interstitial_id": "ad1", "_HLS_start_offset": "12.345", "_HLS_primary_id": "1F2E-abc",
        ])
        #expect(query.interstitialID == "ad1")
        #expect(query.startOffset == MediaTime(decimal: "12.345"))
        #expect(query.primaryID == "1F2E-abc")
        let bare = try AssetListQuery(parameters: ["_HLS_interstitial_id": "ad1", "_HLS_primary_id": ""])
        #expect(bare.startOffset == nil && bare.primaryID == nil)
    }

    @Test(
        "AssetListQuery refuses bad parameters, naming them",
        arguments: [
            ([:], "_HLS_interstitial_id"),
            (["_HLS_interstitial_id": ""], "_HLS_interstitial_id"),
            (["_HLS_interstitial_id": String(repeating: "a", count: 257)], "_HLS_interstitial_id"),
            (["_HLS_interstitial_id": "a\"b"], "_HLS_interstitial_id"),
            (["_HLS_interstitial_id": "a", "_HLS_start_offset": "-1"], "_HLS_start_offset"),
            (["_HLS_interstitial_id": "a", "_HLS_start_offset": "1e3"], "_HLS_start_offset"),
            (["_HLS_interstitial_id": "a", "_HLS_start_offset": "nan"], "_HLS_start_offset"),
            (["_HLS_interstitial_id": "a", "_HLS_start_offset": "8999999999"], "_HLS_start_offset"),
            (
                ["_HLS_interstitial_id": "a", "_HLS_start_offset": String(repeating: "9", count: 100)],
                "_HLS_start_offset"
            ),
            (["_HLS_interstitial_id": "a", "_HLS_primary_id": String(repeating: "p", count: 129)], "_HLS_primary_id"),
            (["_HLS_interstitial_id": "a", "_HLS_primary_id": "é"], "_HLS_primary_id"),
            (["_HLS_interstitial_id": "a", "_HLS_primary_id": "a\nb"], "_HLS_primary_id"),
        ] as [([String: String], String)])
    func queryRefuses(_ input: ([String: String], String)) {
        do {
            _ = try AssetListQuery(parameters: input.0)
            Issue.record("accepted \(input.0)")
        } catch {
            #expect(error.parameter == input.1)
            #expect(error.code == .assetListRequest)
        }
    }

    @Test("the primary ID bound is configurable")
    func queryPrimaryBound() throws {
        let long = String(repeating: "p", count: 200)
        #expect(throws: AssetListQueryError.self) {
            try AssetListQuery(parameters: ["_HLS_interstitial_id": "a", "_HLS_primary_id": long])
        }
        let query = try AssetListQuery(
            parameters: ["_HLS_interstitial_id": "a", "_HLS_primary_id": long], maximumPrimaryIDLength: 256)
        #expect(query.primaryID == long)
    }

    @Test("an interstitial whose lists have empty or spaced entries writes back unchanged (fuzzer)")
    func listsWithInvalidEntriesRoundTrip() throws {
        let tag =
            #"#EXT-X-DATERANGE:ID="m",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:10Z","#
            + #"X-SNAP="OUT,,IN X",X-RESTRICT="SKIP,",CUE="PRE, POST""#
        let result = PlaylistParser.parse(Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n\(tag)\n#EXTINF:6,\na.ts\n".utf8))
        guard case .media(let playlist) = result.playlist else {
            Issue.record("not a media playlist")
            return
        }
        let range = try #require(playlist.dateRanges.first)
        let event = try #require(InterstitialEvent(dateRange: range))
        // Found by the fuzzer: an unchanged list with an empty entry failed to write back.
        #expect(try event.dateRangeAttributes == range.attributes)
    }
}
