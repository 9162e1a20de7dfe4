import HLSInterstitials
import HLSPlaylist
import Testing

/// The schedule's part of issue 33 (agreeing with the peers' test suites and with draft-22): each test
/// failed before its fix.
@Suite("Schedule: agreement with the peers and draft-22")
struct PeerAgreementTests {
    typealias Groups = ScheduleGroupTests
    typealias Rules = ScheduleRuleTests

    /// A VOD primary of ten 6 s segments from 2026-01-01T00:00:00Z with these date ranges (attributes
    /// after the common ID, CLASS and START-DATE at `at` seconds).
    static func playlist(_ ranges: [(id: String, at: Int, attributes: String)], endList: Bool = true) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for range in ranges {
            let date = "2026-01-01T00:00:\(range.at < 10 ? "0" : "")\(range.at).000Z"
            text +=
                "#EXT-X-DATERANGE:ID=\"\(range.id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date)\"\(range.attributes)\n"
        }
        for index in 0..<10 { text += "#EXTINF:6.000,\ns\(index).ts\n" }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return Sample.mediaPlaylist(text)
    }

    @Test("events the schema forbids are listed with the reason and never scheduled")
    func forbiddenEventsAreNotScheduled() {
        let uri = ",X-ASSET-URI=\"https://a.example/x.m3u8\""
        let schedule = Groups.resolve(
            Self.playlist([
                ("none", 12, ",DURATION=5"),
                ("both", 18, uri + ",X-ASSET-LIST=\"https://a.example/l.json\",DURATION=5"),
                ("prepost", 24, uri + ",CUE=\"PRE,POST\",DURATION=5"),
                ("ok", 30, uri + ",DURATION=5"),
            ]))
        #expect(schedule.events.map(\.isScheduled) == [false, false, false, true])
        #expect(schedule.events.map { $0.problem != nil } == [true, true, true, false])
        #expect(schedule.events[0].problem?.contains("neither X-ASSET-URI nor X-ASSET-LIST") == true)
        #expect(schedule.events[2].problem?.contains("PRE and POST") == true)
        #expect(Groups.groups(schedule) == ["ok@30→35"])
        #expect(schedule.items.compactMap(schedule.eventID(of:)) == ["ok"])
    }

    @Test("the validator and the schedule share the rule")
    func validatorSharesTheRule() {
        let text = Sample.media([
            "ID=\"none\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\""
        ])
        let event = InterstitialEvent(dateRange: Sample.mediaPlaylist(text).dateRanges[0])
        #expect(event?.schemaViolations == [.noAsset])
        #expect(Sample.validate(text).contains { $0.rule == "interstitial-asset" })
        // An event made in code may carry no URI: it plays nothing, as Apple's does.
        #expect(InterstitialEvent(identifier: "client", time: .zero).schemaViolations.isEmpty)
    }

    @Test("R5: coinciding events play in tag order, a PRE included (App. D.2)")
    func preInTagOrder() {
        let uri = ",X-ASSET-URI=\"https://a.example/x.m3u8\",DURATION=5,X-RESUME-OFFSET=0"
        let schedule = Groups.resolve(
            Self.playlist([("a", 0, uri), ("b", 0, uri), ("c", 0, uri + ",CUE=\"PRE\"")]))
        #expect(Groups.groups(schedule) == ["a+b+c@0→0"])
        #expect(schedule.groups[0].cue == .join)
        #expect(schedule.items.compactMap(schedule.eventID(of:)) == ["a", "b", "c"])
    }

    @Test("R26: a PRE does not join a group that covers the playback start; that group plays from there")
    func preAndCoveringGroup() {
        let schedule = Groups.resolve(
            Self.playlist([
                ("pre", 0, ",X-ASSET-URI=\"https://a.example/p.m3u8\",CUE=\"PRE,ONCE\",DURATION=15"),
                ("mid", 24, ",X-ASSET-LIST=\"https://a.example/l.json\",DURATION=10,X-TIMELINE-OCCUPIES=\"RANGE\""),
            ]), start: MediaTime(seconds: 30))
        #expect(Groups.groups(schedule) == ["mid@24→34", "pre@30→45"])
        #expect(schedule.events[1].startOffset == MediaTime(seconds: 6))
        // Playout: the PRE, the rest of the mid-roll, then primary from the mid-roll's resumption point.
        #expect(schedule.items.compactMap(schedule.eventID(of:)) == ["pre", "mid"])
        #expect(schedule.items.last?.primary.start == MediaTime(seconds: 34))
    }

    @Test("segments after EXT-X-SKIP are numbered from MEDIA-SEQUENCE + SKIPPED-SEGMENTS (§4.4.5.2)")
    func skipNumbering() {
        let text =
            "#EXTM3U\n#EXT-X-VERSION:9\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:100\n"
            + "#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=36\n#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n"
            + "#EXTINF:6.000,\ns103.ts\n#EXTINF:6.000,\ns104.ts\n"
        #expect(Sample.mediaPlaylist(text).segments.map(\.mediaSequence) == [103, 104])
    }

    @Test("SKIP-CONTROL is read by one rule from the tag and from an asset list (App. D.3 types)")
    func skipControlOneRule() throws {
        let text = Sample.media([
            Sample.interstitial
                + ",X-SKIP-CONTROL-OFFSET=5.5,X-SKIP-CONTROL-DURATION=10,X-SKIP-CONTROL-LABEL-ID=\"skip now\""
        ])
        let event = try #require(InterstitialEvent(dateRange: Sample.mediaPlaylist(text).dateRanges[0]))
        let json = #"{"ASSETS":[],"SKIP-CONTROL":{"OFFSET":5.5,"DURATION":10,"LABEL-ID":"skip now"}}"#
        let list = try AssetList.decode(Array(json.utf8))
        #expect(event.skipControl == SkipControl(duration: MediaTime(seconds: 10)))
        #expect(list.skipControl == event.skipControl)
        let ignored = AssetList.ignoredSkipControlFields(try JSONValue.parse(Array(json.utf8), code: .json))
        #expect(ignored.map(\.path) == ["SKIP-CONTROL.OFFSET", "SKIP-CONTROL.LABEL-ID"])
        // Whole seconds written as 5.0 in JSON are a decimal-integer's value.
        let whole = try AssetList.decode(Array(#"{"ASSETS":[],"SKIP-CONTROL":{"OFFSET":5.0}}"#.utf8))
        #expect(whole.skipControl?.offset == MediaTime(seconds: 5))
    }

    @Test("no primary item starts before the playlist, even after an event that resumes before it")
    func noPrimaryBeforeThePlaylist() {
        // Dated 5 s before the first segment, covering the start; it resumes 1 ms before the playlist.
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
            + "#EXT-X-DATERANGE:ID=\"early\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2025-12-31T23:59:55.000Z\","
            + "X-ASSET-URI=\"https://a.example/e.m3u8\",DURATION=10,X-RESUME-OFFSET=4.999\n"
            + "#EXTINF:6.000,\ns0.ts\n#EXTINF:6.000,\ns1.ts\n"
        let schedule = Groups.resolve(Sample.mediaPlaylist(text))
        #expect(schedule.isLive)
        #expect(schedule.items.map(\.kind) == [.interstitial, .primary])
        #expect(schedule.items.last?.primary.start == .zero)
    }

    @Test("R5, R6: an event whose X-SNAP OUT start equals another's start joins its group, in tag order")
    func snappedStartJoinsGroup() {
        let uri = ",X-ASSET-URI=\"https://a.example/x.m3u8\",DURATION=5"
        let after = Groups.resolve(
            Self.playlist([("a", 12, uri + ",X-RESUME-OFFSET=0"), ("b", 13, uri + ",X-SNAP=\"OUT\"")]))
        #expect(Groups.groups(after) == ["a+b@12→17"])
        let before = Groups.resolve(
            Self.playlist([("b", 13, uri + ",X-SNAP=\"OUT\""), ("a", 12, uri + ",X-RESUME-OFFSET=0")]))
        #expect(Groups.groups(before) == ["b+a@12→17"])
    }

    @Test("R5, R6: an event whose X-SNAP OUT start falls inside a group's skipped range joins it")
    func snappedStartInsideSkippedRange() {
        let uri = ",X-ASSET-URI=\"https://a.example/x.m3u8\""
        let schedule = Groups.resolve(
            Self.playlist([("a", 12, uri + ",DURATION=8"), ("b", 20, uri + ",DURATION=2,X-SNAP=\"OUT\"")]))
        #expect(Groups.groups(schedule) == ["a+b@12→22"])
        #expect(Rules.times(schedule) == ["a 12→20", "b 18→22"])
    }

    @Test("R7: on live, a failed event that playback started inside resumes at the start point")
    func failedJoinResumesAtStartPoint() {
        func times(endList: Bool) -> [String] {
            let playlist = Self.playlist(
                [("e", 24, ",X-ASSET-LIST=\"https://a.example/l.json\",DURATION=10")], endList: endList)
            return Rules.times(
                InterstitialSchedule.resolve(
                    ScheduleInput(
                        primary: playlist, events: ScheduleInput.events(of: playlist), failedEvents: ["e"],
                        playbackStart: MediaTime(seconds: 30))))
        }
        #expect(times(endList: false) == ["e 24→30"])
        // VOD keeps the offset 0 of R7.
        #expect(times(endList: true) == ["e 24→24"])
    }

    /// A Preload date range as App. F writes it, with `change` applied to its attributes.
    static func preload(_ change: (String) -> String = { $0 }) -> String {
        change(
            "ID=\"hint\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2026-01-01T00:00:02.000Z\",DURATION=6,"
                + "X-URI=\"https://ads.example.com/ad/main.m3u8?_HLS_interstitial_id=ad\",X-TARGET-ID=\"ad\","
                + "X-TARGET-CLASS=\"com.apple.hls.interstitial\"")
    }

    @Test("a Preload tag as App. F writes it is read and valid")
    func preloadValid() throws {
        let text = Sample.media([Self.preload(), Sample.interstitial])
        #expect(Sample.validate(text).isEmpty, "\(Sample.validate(text).map(\.description))")
        let range = Sample.mediaPlaylist(text).dateRanges[0]
        let hint = try #require(PreloadDateRange(dateRange: range))
        #expect(hint.targetID == "ad" && hint.targetClass == InterstitialEvent.className)
        #expect(hint.end == DateTime(iso8601: "2026-01-01T00:00:08.000Z"))
    }

    @Test(
        "each App. F requirement of a Preload tag has its rule, and the player ignores a tag that breaks one",
        arguments: [
            ("preload-attribute", ",X-TARGET-ID=\"ad\"", ""),
            ("preload-attribute", "X-URI=", "X-ASSET-LIST="),
            ("preload-duration", "DURATION=6,", ""),
            ("preload-cue", "DURATION=6,", "DURATION=6,CUE=\"ONCE\","),
            ("preload-cue", "DURATION=6,", "DURATION=6,END-ON-NEXT=YES,"),
        ])
    func preloadRules(rule: String, replacing: String, with replacement: String) {
        let text = Sample.media([
            Self.preload { $0.replacingOccurrences(of: replacing, with: replacement) }, Sample.interstitial,
        ])
        #expect(Sample.validate(text).contains { $0.rule.rawValue == rule })
        #expect(PreloadDateRange(dateRange: Sample.mediaPlaylist(text).dateRanges[0]) == nil)
    }
}
