import HLSInterstitials
import HLSPlaylist
import Testing

/// The schedule's groups, the effective duration, and the rules the redesign fixed (issue 15): each
/// test failed against the schedule before it.
@Suite("Schedule groups and the rules they decide (R1, R3, R5, R21, R26)")
struct ScheduleGroupTests {
    typealias Rules = ScheduleRuleTests

    static func resolve(
        _ playlist: MediaPlaylist, start: MediaTime? = nil, played: [String: MediaTime] = [:]
    ) -> InterstitialSchedule {
        InterstitialSchedule.resolve(
            ScheduleInput(
                primary: playlist, events: ScheduleInput.events(of: playlist), playedDurations: played,
                playbackStart: start))
    }

    /// The groups as `members@start→resumeTime`.
    static func groups(_ schedule: InterstitialSchedule) -> [String] {
        schedule.groups.map { group in
            group.members.map { schedule.events[$0].id }.joined(separator: "+")
                + "@\(group.start)→\(group.resumeTime)\(group.isScheduled ? "" : " unscheduled")"
        }
    }

    @Test("R5: a at 12 (DURATION=5) and b at 17 are two groups: b starts where a resumes, not inside")
    func adjacentEventsAreTwoGroups() {
        let schedule = Self.resolve(Rules.playlist([("a", "12", ",DURATION=5"), ("b", "17", ",DURATION=5")]))
        #expect(Self.groups(schedule) == ["a@12→17", "b@17→22"])
        #expect(schedule.group(ofEvent: 1)?.members == [1])
        #expect(schedule.groups.map(\.playoutDuration) == [MediaTime(seconds: 5), MediaTime(seconds: 5)])
    }

    @Test(
        "R5: a PRE coincides with a plain event at the start: PRE DURATION=5 and an event at 0 with offset 0 resume at 5"
    )
    func preCoincidesWithPlainEvent() {
        let schedule = Self.resolve(
            Rules.playlist([("pre", "30", ",CUE=\"PRE\",DURATION=5"), ("zero", "0", ",DURATION=4,X-RESUME-OFFSET=0")]))
        #expect(Self.groups(schedule) == ["pre+zero@0→5"])
        #expect(Rules.times(schedule) == ["pre 0→5", "zero 0→5"])
        #expect(Rules.spans(schedule) == ["0-5", "5-5", "5-60"])
    }

    @Test("R5, R9: a POST coincides with a plain event at the end of primary; the group resumes nothing")
    func postCoincidesWithPlainEvent() {
        let schedule = Self.resolve(
            Rules.playlist([("post", "0", ",CUE=\"POST\",DURATION=5"), ("end", "60", ",DURATION=4")]))
        #expect(Self.groups(schedule) == ["post+end@60→60"])
        #expect(schedule.items.map(\.kind) == [.primary, .interstitial, .interstitial])
    }

    @Test("R5, R6: a PRE with X-SNAP=IN resumes at the snapped point, and so does the primary item after it")
    func preSnapIn() {
        let schedule = Self.resolve(Rules.playlist([("pre", "0", ",CUE=\"PRE\",DURATION=5,X-SNAP=\"IN\"")]))
        #expect(Rules.times(schedule) == ["pre 0→6"])
        #expect(Rules.spans(schedule) == ["0-6", "6-60"])
        #expect(schedule.playoutDuration == MediaTime(seconds: 59))
    }

    @Test("R5: X-SNAP=IN of a member that is not last does not carry into the next one (A and B at 8, B resumes at 14)")
    func snapInsideGroup() {
        // Segments of 6 s: A alone would resume at 11, snapped to 12; B adds its 3 s to 11, not 12.
        let schedule = Self.resolve(
            Rules.playlist([("A", "8", ",DURATION=3,X-SNAP=\"IN\""), ("B", "8", ",DURATION=3")]))
        #expect(Rules.times(schedule) == ["A 8→11", "B 8→14"])
        #expect(Self.groups(schedule) == ["A+B@8→14"])
        // The last member's IN snaps where primary resumes.
        let last = Self.resolve(Rules.playlist([("A", "8", ",DURATION=3"), ("B", "8", ",DURATION=3,X-SNAP=\"IN\"")]))
        #expect(Rules.times(last) == ["A 8→11", "B 8→12"])
        #expect(Rules.spans(last) == ["0-8", "8-11", "11-12", "12-60"])
    }

    @Test("R5: X-SNAP=OUT of the first member moves the group's start")
    func snapOutMovesGroup() {
        let schedule = Self.resolve(
            Rules.playlist([("A", "7", ",DURATION=3,X-SNAP=\"OUT\""), ("B", "7", ",DURATION=3")]))
        #expect(Self.groups(schedule) == ["A+B@6→12"])
    }

    @Test("R5, R22: same-start events after the end of a VOD add up their offsets, unscheduled")
    func groupsAfterTheEnd() {
        let schedule = Self.resolve(Rules.playlist([("x", "70", ",DURATION=5"), ("y", "70", ",DURATION=5")]))
        #expect(Rules.times(schedule) == ["x 70→75", "y 70→80"])
        #expect(Self.groups(schedule) == ["x+y@70→80 unscheduled"])
        #expect(schedule.items.map(\.kind) == [.primary])
    }

    @Test("R21: an interstitial's primary span runs from its start to its resumeTime, backwards for a negative offset")
    func backwardsSpan() {
        let schedule = Self.resolve(
            Rules.playlist([("recap", "30", ",DURATION=5,X-RESUME-OFFSET=-10"), ("next", "30", ",DURATION=2")]))
        // recap resumes at 20, next adds its 2 s: 22.
        #expect(Rules.spans(schedule) == ["0-30", "30-20", "20-22", "22-60"])
        let span = schedule.items[1].primary
        #expect(span.isReversed && span.range == MediaTime(seconds: 20)..<MediaTime(seconds: 30))
        #expect(span.length == MediaTime(seconds: -10))
    }

    @Test("R1: a START-DATE inside a PROGRAM-DATE-TIME gap maps to the start of the later segment")
    func programDateTimeGap() {
        // s0–s4 are dated 00:00:00–00:00:30; s5 jumps to 01:00:00 at playlist time 30.
        let playlist = Rules.playlist([("gap", "600", ",DURATION=5")], discontinuityAt: 5)
        let schedule = Self.resolve(playlist)
        #expect(Rules.times(schedule) == ["gap 30→35"])
        let date = DateTime(iso8601: "2026-01-01T00:10:00.000Z")!
        #expect(playlist.time(at: date) == MediaTime(seconds: 30))
    }

    @Test("R26: an event dated before the first segment plays from the start point only when it covers it")
    func eventsBeforeThePrimary() {
        let schedule = Self.resolve(
            Rules.playlist([("covers", "-3", ",DURATION=10"), ("gone", "-20", ",DURATION=10")]))
        let covers = schedule.events[0]
        #expect(covers.isScheduled && covers.startOffset == MediaTime(seconds: 3))
        #expect(covers.playoutDuration == MediaTime(seconds: 7))
        #expect(covers.resumeTime == MediaTime(seconds: 7))
        #expect(!schedule.events[1].isScheduled)
        #expect(Rules.spans(schedule) == ["-3-7", "7-60"])
        #expect(schedule.items.map(\.playout.upperBound) == [MediaTime(seconds: 7), MediaTime(seconds: 60)])
    }

    @Test("R26: a start position past an event plays it from that offset when inside it, nothing otherwise")
    func startPositionPastEvents() {
        let playlist = Rules.playlist([
            ("passed", "10", ",DURATION=5"), ("inside", "20", ",DURATION=15,X-TIMELINE-OCCUPIES=\"RANGE\""),
            ("pre", "0", ",CUE=\"PRE\",DURATION=4"),
        ])
        let schedule = Self.resolve(playlist, start: MediaTime(seconds: 30))
        let byID = Dictionary(uniqueKeysWithValues: schedule.events.map { ($0.id, $0) })
        #expect(byID["passed"]?.isScheduled == true && byID["passed"]?.playoutDuration == .zero)
        #expect(byID["passed"]?.startOffset == .zero)
        #expect(byID["inside"]?.startOffset == MediaTime(seconds: 10))
        #expect(byID["inside"]?.playoutDuration == MediaTime(seconds: 5))
        #expect(byID["inside"]?.resumeTime == MediaTime(seconds: 35))
        // The PRE is exempt (R9): it plays in full, at the start point.
        #expect(byID["pre"]?.start == MediaTime(seconds: 30) && byID["pre"]?.playoutDuration == MediaTime(seconds: 4))
        // The RANGE event still draws its whole effective duration on the integrated timeline.
        let inside = schedule.items.first { schedule.eventID(of: $0) == "inside" }
        #expect(inside.map { $0.integrated.upperBound - $0.integrated.lowerBound } == MediaTime(seconds: 15))
    }

    @Test("R3: effective duration is min(X-PLAYOUT-LIMIT, D), D from assets, DURATION, END-DATE, PLANNED-DURATION")
    func effectiveDuration() throws {
        func event(_ extra: String) -> InterstitialEvent {
            let playlist = Rules.playlist([("e", "10", extra)])
            return ScheduleInput.events(of: playlist)[0]
        }
        #expect(event(",DURATION=8").effectiveDuration() == MediaTime(seconds: 8))
        #expect(event(",DURATION=8,X-PLAYOUT-LIMIT=5").effectiveDuration() == MediaTime(seconds: 5))
        #expect(event(",DURATION=8,X-PLAYOUT-LIMIT=12").effectiveDuration() == MediaTime(seconds: 8))
        #expect(
            event(",PLANNED-DURATION=7,END-DATE=\"2026-01-01T00:00:19.000Z\"").effectiveDuration()
                == MediaTime(seconds: 9))
        #expect(event(",PLANNED-DURATION=7").effectiveDuration() == MediaTime(seconds: 7))
        #expect(event(",X-PLAYOUT-LIMIT=6").effectiveDuration() == MediaTime(seconds: 6))
        #expect(event("").effectiveDuration() == nil)
        #expect(event(",DURATION=8").effectiveDuration(played: MediaTime(seconds: 3)) == MediaTime(seconds: 3))
        var listed = event(",DURATION=8,X-PLAYOUT-LIMIT=20")
        listed.assetList = try AssetList.decode(
            Array(#"{"ASSETS":[{"URI":"a.m3u8","DURATION":6},{"URI":"b.m3u8","DURATION":9}]}"#.utf8))
        #expect(listed.effectiveDuration() == MediaTime(seconds: 15))
    }
}
