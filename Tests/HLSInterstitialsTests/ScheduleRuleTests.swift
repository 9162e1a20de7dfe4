import HLSInterstitials
import HLSPlaylist
import Testing

/// One test per behavior-profile rule that the schedule implements; each names its rule.
@Suite("Schedule rules (behavior profile)")
struct ScheduleRuleTests {
    static func seconds(_ text: String) -> MediaTime { MediaTime(decimal: text)! }

    /// Ten 6 s segments (60 s) from 2026-01-01T00:00:00Z, with these interstitial attribute suffixes
    /// placed at `at` seconds.
    static func playlist(
        _ events: [(id: String, at: String, extra: String)], segments: Int = 10, endList: Bool = true,
        discontinuityAt: Int? = nil
    ) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for event in events {
            let date = DateTime(iso8601: "2026-01-01T00:00:00.000Z")! + seconds(event.at)
            text +=
                "#EXT-X-DATERANGE:ID=\"\(event.id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date.iso8601)\",X-ASSET-URI=\"https://a.example/\(event.id).m3u8\"\(event.extra)\n"
        }
        for index in 0..<segments {
            if index == discontinuityAt {
                text += "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T01:00:00.000Z\n"
            }
            text += "#EXTINF:6.000,\ns\(index).ts\n"
        }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return Sample.mediaPlaylist(text)
    }

    static func resolve(
        _ playlist: MediaPlaylist, others: [MediaPlaylist] = [], edit: (inout [InterstitialEvent]) -> Void = { _ in },
        failed: Set<String> = [], played: [String: MediaTime] = [:]
    ) -> InterstitialSchedule {
        var events = ScheduleInput.events(of: playlist)
        edit(&events)
        return InterstitialSchedule.resolve(
            ScheduleInput(
                primary: playlist, otherPlaylists: others, events: events, failedEvents: failed, playedDurations: played
            ))
    }

    /// `(start, resumeTime)` of each event, in seconds as text.
    static func times(_ schedule: InterstitialSchedule) -> [String] {
        schedule.events.map { "\($0.id) \($0.start)→\($0.resumeTime)" }
    }

    static func ranges(
        _ schedule: InterstitialSchedule, _ path: KeyPath<InterstitialSchedule.Item, Range<MediaTime>>
    ) -> [String] {
        schedule.items.map { "\($0[keyPath: path].lowerBound)-\($0[keyPath: path].upperBound)" }
    }

    /// The items' primary spans, start first (backwards after a negative offset, R21).
    static func spans(_ schedule: InterstitialSchedule) -> [String] {
        schedule.items.map { "\($0.primary.start)-\($0.primary.end)" }
    }

    @Test("R1: START-DATE maps through its segment; discontinuities re-anchor; early dates are negative")
    func r1() {
        let playlist = Self.playlist([("a", "15", ",DURATION=5,X-RESUME-OFFSET=0")], discontinuityAt: 5)
        #expect(Self.times(Self.resolve(playlist)) == ["a 15→15"])
        // After the discontinuity, 01:00:03 is 3 s into segment 5, which starts at 30 s.
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        text +=
            "#EXTINF:6.000,\na.ts\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T01:00:00.000Z\n#EXTINF:6.000,\nb.ts\n#EXT-X-ENDLIST\n"
        let anchored = Sample.mediaPlaylist(text)
        var event = InterstitialEvent(identifier: "x", date: DateTime(iso8601: "2026-01-01T01:00:03.000Z")!)
        event.assetURI = "https://a.example/x.m3u8"
        let schedule = InterstitialSchedule.resolve(ScheduleInput(primary: anchored, events: [event]))
        #expect(schedule.events[0].start == MediaTime(seconds: 9))
        #expect(anchored.time(at: DateTime(iso8601: "2025-12-31T23:59:58.000Z")!) == MediaTime(seconds: -2))
    }

    @Test("R2: times are exact: 10,000 segments of 6.006 s end at exactly 60,060 s")
    func r2() {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        text +=
            "#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T16:40:00.600Z\",DURATION=6.006,X-ASSET-URI=\"https://a.example/a.m3u8\"\n"
        for index in 0..<10_000 { text += "#EXTINF:6.006,\ns\(index).ts\n" }
        text += "#EXT-X-ENDLIST\n"
        let schedule = Self.resolve(Sample.mediaPlaylist(text))
        #expect(schedule.primaryDuration == MediaTime(seconds: 60_060))
        #expect(schedule.events[0].start == Self.seconds("60000.6"))
        #expect(schedule.events[0].resumeTime == Self.seconds("60006.606"))
        #expect(schedule.integratedDuration == Self.seconds("60053.994"))
    }

    @Test(
        "R3: no X-RESUME-OFFSET resumes after min(X-PLAYOUT-LIMIT, D), D from assets, DURATION, END-DATE, PLANNED-DURATION"
    )
    func r3() {
        let playlist = Self.playlist([
            ("dur", "6", ",DURATION=4"), ("end", "18", ",END-DATE=\"2026-01-01T00:00:21.000Z\""),
            ("planned", "30", ",PLANNED-DURATION=2"), ("limit", "42", ",DURATION=8,X-PLAYOUT-LIMIT=5"),
            ("list", "54", ",DURATION=9"),
        ])
        let schedule = Self.resolve(playlist) { events in
            events[4].assetList = AssetList(assets: [.init(uri: "https://a.example/1", duration: MediaTime(seconds: 1))]
            )
        }
        #expect(Self.times(schedule) == ["dur 6→10", "end 18→21", "planned 30→32", "limit 42→47", "list 54→55"])
        #expect(schedule.events.map(\.playoutDuration) == [4, 3, 2, 5, 1].map { MediaTime(seconds: $0) })
        // Once played, the time played refines it.
        let played = Self.resolve(playlist, played: ["planned": MediaTime(seconds: 7)])
        #expect(played.events[2].resumeTime == MediaTime(seconds: 37))
    }

    @Test("R4: client events resume at offset 0; an indefinite offset is the time played")
    func r4() {
        let playlist = Self.playlist([])
        var client = InterstitialEvent(identifier: "c", time: MediaTime(seconds: 12))
        client.assetURI = "https://a.example/c.m3u8"
        client.duration = MediaTime(seconds: 10)
        var live = InterstitialEvent(identifier: "l", time: MediaTime(seconds: 30))
        live.resumptionOffset = .indefinite
        live.assetURI = "https://a.example/l.m3u8"
        let schedule = InterstitialSchedule.resolve(
            ScheduleInput(primary: playlist, events: [client, live], playedDurations: ["l": MediaTime(seconds: 8)]))
        #expect(Self.times(schedule) == ["c 12→12", "l 30→38"])
    }

    @Test("R5: coinciding events play back to back and their offsets add up (72.5 + 10 + 0 = 82.5)")
    func r5() {
        let playlist = Self.playlist(
            [
                ("A", "72.5", ",DURATION=10,X-RESUME-OFFSET=10"), ("B", "76.5", ",DURATION=5,X-RESUME-OFFSET=0"),
                ("C", "90", ",DURATION=5,X-RESUME-OFFSET=0"),
            ], segments: 20)
        let schedule = Self.resolve(playlist)
        #expect(Self.times(schedule) == ["A 72.5→82.5", "B 76.5→82.5", "C 90→90"])
        #expect(Self.spans(schedule) == ["0-72.5", "72.5-82.5", "82.5-82.5", "82.5-90", "90-90", "90-120"])
        #expect(
            Self.ranges(schedule, \.playout) == ["0-72.5", "72.5-82.5", "82.5-87.5", "87.5-95", "95-100", "100-130"])
    }

    @Test(
        "R6: snap OUT to the nearest boundary (ties earlier, several playlists the earliest), IN (ties later, the latest)"
    )
    func r6() {
        let video = Self.playlist([("a", "9", ",DURATION=10,X-SNAP=\"OUT,IN\"")])
        // Ties: 9 is 3 s from 6 and from 12; OUT takes 6. Resumption 6 + 10 = 16 → 18.
        #expect(Self.times(Self.resolve(video)) == ["a 6→18"])
        // An audio playlist of 4 s segments: OUT candidates 6 (video) and 8 (audio): the earliest, 6;
        // IN candidates 18 (video) and 16 (audio): the latest, 18.
        var audio = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for index in 0..<15 { audio += "#EXTINF:4.000,\na\(index).aac\n" }
        audio += "#EXT-X-ENDLIST\n"
        let other = Self.playlist([("b", "7.5", ",DURATION=10,X-SNAP=\"OUT,IN\"")])
        #expect(Self.times(Self.resolve(other, others: [Sample.mediaPlaylist(audio)])) == ["b 6→18"])
        // No snapping outside the playlist's range.
        let outside = Self.playlist([("c", "70", ",DURATION=1,X-SNAP=\"OUT\",X-RESUME-OFFSET=0")])
        #expect(Self.times(Self.resolve(outside)) == ["c 70→70"])
    }

    @Test("R7: an empty list plays nothing and resumes at X-RESUME-OFFSET or 0; a failed load resumes at 0")
    func r7() {
        let playlist = Self.playlist([
            ("empty", "6", ",DURATION=10"), ("offset", "18", ",DURATION=10,X-RESUME-OFFSET=3"),
            ("failed", "30", ",DURATION=10,X-RESUME-OFFSET=3"),
        ])
        let schedule = Self.resolve(
            playlist,
            edit: { events in
                events[0].assetList = AssetList(assets: [])
                events[1].assetList = AssetList(assets: [])
            }, failed: ["failed"])
        #expect(Self.times(schedule) == ["empty 6→6", "offset 18→21", "failed 30→30"])
        #expect(schedule.events.allSatisfy { $0.playoutDuration == .zero })
        #expect(schedule.items.filter { $0.kind == .interstitial }.count == 3)  // R21: still items
    }

    @Test("R8: a negative offset replays primary once, and the event does not play again")
    func r8() {
        let schedule = Self.resolve(Self.playlist([("recap", "30", ",DURATION=5,X-RESUME-OFFSET=-10")]))
        #expect(Self.times(schedule) == ["recap 30→20"])
        #expect(schedule.items.filter { $0.kind == .interstitial }.count == 1)
        #expect(Self.spans(schedule) == ["0-30", "30-20", "20-60"])
        #expect(Self.ranges(schedule, \.integrated) == ["0-30", "30-30", "30-70"])
        #expect(schedule.integratedDuration == MediaTime(seconds: 70))
    }

    @Test("R9: PRE plays before primary wherever its date is, POST after the end; ONCE is kept on the event")
    func r9() {
        let playlist = Self.playlist([
            ("post", "10", ",DURATION=4,CUE=\"POST\",X-RESUME-OFFSET=0"),
            ("pre", "20", ",DURATION=3,CUE=\"PRE,ONCE\",X-RESUME-OFFSET=0"),
        ])
        let schedule = Self.resolve(playlist)
        #expect(Self.times(schedule) == ["post 60→60", "pre 0→0"])
        #expect(schedule.items.map { schedule.eventID(of: $0) ?? "primary" } == ["pre", "primary", "post"])
        #expect(schedule.events[1].event.willPlayOnce)
        #expect(schedule.playoutDuration == MediaTime(seconds: 67))
    }

    @Test("R10: live with no X-RESUME-OFFSET resumes at start + the time actually played")
    func r10() {
        let playlist = Self.playlist([("live", "12", ",PLANNED-DURATION=30")], endList: false)
        #expect(Self.times(Self.resolve(playlist)) == ["live 12→42"])
        #expect(Self.times(Self.resolve(playlist, played: ["live": MediaTime(seconds: 21)])) == ["live 12→33"])
    }

    @Test("R11: joining inside an interstitial plays it from that offset: _HLS_start_offset, assets skipped")
    func r11() {
        let list = AssetList(assets: [
            .init(uri: "https://a.example/1.m3u8", duration: MediaTime(seconds: 10)),
            .init(uri: "https://a.example/2.m3u8", duration: MediaTime(seconds: 10)),
        ])
        let start = list.startPosition(at: Self.seconds("12.3456"))
        #expect(start?.index == 1)
        #expect(start?.offset == Self.seconds("2.3456"))
        #expect(list.startPosition(at: MediaTime(seconds: 25)) == nil)
        #expect(AssetList.startOffsetQuery(Self.seconds("12.3456")) == "_HLS_start_offset=12.346")
        #expect(
            AssetList.addingStartOffset(Self.seconds("12.3456"), to: "https://a.example/l.json?_HLS_interstitial_id=x")
                == "https://a.example/l.json?_HLS_interstitial_id=x&_HLS_start_offset=12.346")
    }

    @Test("R12: a later tag with the same ID adds X-PLAYOUT-LIMIT, and it takes effect")
    func r12() {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        text +=
            "#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:06.000Z\",PLANNED-DURATION=30,X-ASSET-URI=\"https://a.example/a.m3u8\"\n"
        text += "#EXTINF:6.000,\ns0.ts\n"
        text += "#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\",X-PLAYOUT-LIMIT=12\n"
        for index in 1..<10 { text += "#EXTINF:6.000,\ns\(index).ts\n" }
        let schedule = Self.resolve(Sample.mediaPlaylist(text))
        #expect(Self.times(schedule) == ["a 6→18"])
        #expect(schedule.events[0].playoutDuration == MediaTime(seconds: 12))
    }

    @Test("R21: items in playout order with three ranges; zero-length primary items are left out")
    func r21() {
        let schedule = Self.resolve(Self.playlist([("a", "0", ",DURATION=5,X-RESUME-OFFSET=0")]))
        #expect(schedule.items.map(\.kind) == [.interstitial, .primary])
        #expect(Self.ranges(schedule, \.playout) == ["0-5", "5-65"])
        #expect(schedule.item(atPlayout: MediaTime(seconds: 5)) == 1)
        #expect(schedule.item(atPlayout: MediaTime(seconds: 4)) == 0)
        #expect(schedule.item(atIntegrated: .zero) == 0)
        #expect(schedule.primaryItem(at: MediaTime(seconds: 30)) == 1)
        #expect(schedule.item(atPlayout: MediaTime(seconds: 65)) == nil)
    }

    @Test("R22: events after the end of a VOD primary are listed but get no item")
    func r22() {
        let schedule = Self.resolve(Self.playlist([("late", "75", ",DURATION=5")]))
        #expect(schedule.events.map(\.id) == ["late"])
        #expect(!schedule.events[0].isScheduled)
        #expect(schedule.items.map(\.kind) == [.primary])
    }

    @Test("events that cannot be placed (no PROGRAM-DATE-TIME) are not scheduled, and say why")
    func unplaced() {
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\",DURATION=5,X-ASSET-URI=\"https://a.example/a.m3u8\"\n#EXTINF:6.000,\ns.ts\n#EXT-X-ENDLIST\n"
        let schedule = Self.resolve(Sample.mediaPlaylist(text))
        #expect(!schedule.events[0].isScheduled)
        #expect(schedule.events[0].problem?.contains("no EXT-X-PROGRAM-DATE-TIME") == true)
        #expect(schedule.items.map(\.kind) == [.primary])
    }

    @Test("R23: a live schedule has indefinite primary, playout and integrated durations")
    func r23() {
        let schedule = Self.resolve(Self.playlist([("a", "12", ",DURATION=5")], endList: false))
        #expect(schedule.isLive)
        #expect(
            schedule.primaryDuration == nil && schedule.playoutDuration == nil && schedule.integratedDuration == nil)
    }

    @Test("R24: POINT by default and never promoted; RANGE takes its length; PRIMARY style supplements primary")
    func r24() {
        let schedule = Self.resolve(
            Self.playlist([
                ("point", "6", ",DURATION=5,X-RESUME-OFFSET=0"),
                (
                    "range", "18",
                    ",DURATION=5,X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\",X-TIMELINE-STYLE=\"PRIMARY\""
                ),
            ]))
        let interstitials = schedule.items.filter { $0.kind == .interstitial }
        #expect(
            interstitials.map { $0.integrated.upperBound - $0.integrated.lowerBound } == [.zero, MediaTime(seconds: 5)])
        #expect(schedule.events[0].event.timelineOccupancy == .singlePoint)
        #expect(schedule.events[1].event.supplementsPrimaryContent)
        #expect(schedule.events[0].event.contentMayVary)
    }

    @Test("R25: interstitials inside an interstitial asset are not scheduled")
    func r25() {
        let asset = Self.playlist([("nested", "2", ",DURATION=1")])
        #expect(ScheduleInput.events(of: asset, isInterstitialAsset: true).isEmpty)
        #expect(ScheduleInput.events(of: asset).count == 1)
    }
}
