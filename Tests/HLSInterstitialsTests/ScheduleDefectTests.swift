import HLSInterstitials
import HLSPlaylist
import Testing

/// Issue 46: the schedule's defects found by the differential against hls.js and by checking the
/// schedule against itself. Each test failed before its fix.
@Suite("Schedule defects of issue 46 (R7, R9, R21, R26)")
struct ScheduleDefectTests {
    typealias Rules = ScheduleRuleTests
    typealias Groups = ScheduleGroupTests

    static func seconds(_ value: Double) -> MediaTime { MediaTime(seconds: value) }

    /// The items as `id primary-span` (`primary` for primary items).
    static func items(_ schedule: InterstitialSchedule) -> [String] {
        schedule.items.map { "\(schedule.eventID(of: $0) ?? "primary") \($0.primary.start)-\($0.primary.end)" }
    }

    @Test("R9: a group that holds a POST resumes nothing: no primary plays after the post-roll")
    func postGroupResumesNothing() {
        // 12 s of primary; a at the end with a negative offset shares the POST's start.
        let schedule = Groups.resolve(
            Rules.playlist(
                [("a", "12", ",DURATION=2,X-RESUME-OFFSET=-6"), ("p", "0", ",CUE=\"POST\",DURATION=2")], segments: 2))
        #expect(Groups.groups(schedule) == ["a+p@12→12"])
        #expect(schedule.groups.first?.cue == .leave)
        #expect(Rules.times(schedule) == ["a 12→12", "p 12→12"])
        #expect(schedule.events.map(\.resumptionOffset) == [.zero, .zero])
        #expect(Self.items(schedule) == ["primary 0-12", "a 12-12", "p 12-12"])
        #expect(schedule.playoutDuration == Self.seconds(16))
    }

    @Test("R9, R21, R26: with --start, the PRE plays first and primary starts at the start point")
    func preFirstWithStartPosition() {
        let schedule = Groups.resolve(
            Rules.playlist([("pre", "0", ",CUE=\"PRE\",DURATION=5,X-RESUME-OFFSET=0")], segments: 2),
            start: Self.seconds(8))
        #expect(Self.items(schedule) == ["pre 8-8", "primary 8-12"])
        #expect(schedule.playoutDuration == Self.seconds(9))
        // The profile's R26 example: a 15 s PRE and a RANGE mid-roll over [24, 34), from 30 s.
        let example = Groups.resolve(
            Rules.playlist([
                ("pre", "0", ",CUE=\"PRE,ONCE\",DURATION=15,X-RESUME-OFFSET=0"),
                ("mid", "24", ",DURATION=10,X-TIMELINE-OCCUPIES=\"RANGE\""),
            ]),
            start: Self.seconds(30))
        #expect(Self.items(example) == ["pre 30-30", "mid 24-34", "primary 34-60"])
        #expect(example.playoutDuration == Self.seconds(15 + 4 + 26))
    }

    @Test("R7, R10: on live, only the member that covers the start point resumes there when it fails")
    func liveFailedLaterMember() {
        let playlist = Rules.playlist(
            [("a", "12", ",DURATION=10"), ("b", "12", ",DURATION=10")], endList: false)
        func resolve(failed: Set<String>) -> InterstitialSchedule {
            InterstitialSchedule.resolve(
                ScheduleInput(
                    primary: playlist, events: ScheduleInput.events(of: playlist), failedEvents: failed,
                    playbackStart: Self.seconds(17)))
        }
        // b fails: a plays its last 5 s, b adds 0; the viewer stays 5 s behind where it joined.
        let later = resolve(failed: ["b"])
        #expect(Rules.times(later) == ["a 12→22", "b 12→22"])
        #expect(later.events.map(\.playoutDuration) == [Self.seconds(5), .zero])
        #expect(Self.items(later).last == "primary 22-60")
        // a fails: it covers the start point, so it resumes there; b plays in full after it.
        let covering = resolve(failed: ["a"])
        #expect(Rules.times(covering) == ["a 12→17", "b 12→27"])
        #expect(covering.events.map(\.playoutDuration) == [.zero, Self.seconds(10)])
        #expect(covering.events.map(\.startOffset) == [.zero, .zero])
    }

    @Test("R9, R21: a POST item's primary span is [end, end] after a group that resumes past the end")
    func postSpanAfterResumePastEnd() {
        let schedule = Groups.resolve(
            Rules.playlist(
                [("x", "6", ",DURATION=2,X-RESUME-OFFSET=20"), ("p", "0", ",CUE=\"POST\",DURATION=3")], segments: 2))
        #expect(Self.items(schedule) == ["primary 0-6", "x 6-26", "p 12-12"])
        #expect(schedule.items.allSatisfy { !$0.primary.isReversed })
    }

    @Test("R21: a group's resumeTime is the computed point; primary resumes at the later of it and the first segment")
    func resumeTimeBeforeFirstSegment() {
        let schedule = Groups.resolve(
            Rules.playlist([("early", "-10", ",DURATION=12,X-RESUME-OFFSET=6")]))
        #expect(Groups.groups(schedule) == ["early@-10→-4"])
        #expect(schedule.items.first { $0.kind == .primary }?.primary.start == .zero)
    }

    // MARK: Property

    /// A random primary playlist (VOD or live, segments of 4 to 6.5 s) with random interstitials:
    /// dates before, inside and after it, PRE and POST, offsets negative to positive, X-SNAP.
    static func randomInput(_ random: inout AssetListTests.SeededGenerator) -> ScheduleInput {
        let live = Bool.random(using: &random)
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:7\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        let segments = Int.random(in: 1...8, using: &random)
        var durations: [Int] = []  // tenths of a second
        for _ in 0..<segments { durations.append(Int.random(in: 40...65, using: &random)) }
        let end = durations.reduce(0, +)
        let count = Int.random(in: 0...6, using: &random)
        let base = DateTime(iso8601: "2026-01-01T00:00:00.000Z")!
        for index in 0..<count {
            // Starts on segment boundaries and the end now and then, as generated VOD corpora have.
            let at =
                Bool.random(using: &random)
                ? Int.random(in: -100...(end + 60), using: &random)
                : durations.prefix(Int.random(in: 0...segments, using: &random)).reduce(0, +)
            let date = base + MediaTime(nanoseconds: Int64(at) * 100_000_000)
            var line =
                "#EXT-X-DATERANGE:ID=\"e\(index)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date.iso8601)\","
                + "X-ASSET-URI=\"https://a.example/e\(index).m3u8\",DURATION=\(Int.random(in: 0...15, using: &random))"
            switch Int.random(in: 0...9, using: &random) {
            case 0, 1: line += ",CUE=\"PRE\""
            case 2, 3: line += ",CUE=\"POST\""
            case 4: line += ",CUE=\"ONCE\""
            default: break
            }
            if Int.random(in: 0...2, using: &random) > 0 {
                line += ",X-RESUME-OFFSET=\(Int.random(in: -12...20, using: &random))"
            }
            switch Int.random(in: 0...5, using: &random) {
            case 0: line += ",X-SNAP=\"OUT\""
            case 1: line += ",X-SNAP=\"IN\""
            case 2: line += ",X-SNAP=\"OUT,IN\""
            default: break
            }
            if Bool.random(using: &random) { line += ",X-TIMELINE-OCCUPIES=\"RANGE\"" }
            text += line + "\n"
        }
        for (index, duration) in durations.enumerated() {
            text += "#EXTINF:\(duration / 10).\(duration % 10),\ns\(index).ts\n"
        }
        if !live { text += "#EXT-X-ENDLIST\n" }
        let playlist = Sample.mediaPlaylist(text)
        let events = ScheduleInput.events(of: playlist)
        let failed = Set(events.map(\.identifier).filter { _ in Int.random(in: 0...4, using: &random) == 0 })
        let start: MediaTime? =
            Bool.random(using: &random)
            ? nil : MediaTime(nanoseconds: Int64(Int.random(in: 0...end, using: &random)) * 100_000_000)
        return ScheduleInput(primary: playlist, events: events, failedEvents: failed, playbackStart: start)
    }

    @Test("R9, R21, R26: over generated schedules, items are contiguous, inside the playlist, and ordered")
    func generatedSchedules() {
        var random = AssetListTests.SeededGenerator(seed: 46)
        for round in 0..<3000 {
            let input = Self.randomInput(&random)
            let schedule = InterstitialSchedule.resolve(input)
            let first = input.primary.segments.first?.startTime ?? .zero
            let end = input.primary.segments.last?.endTime ?? first
            let items = schedule.items
            let context = "round \(round): \(Self.items(schedule))"
            // Contiguous in playout and integrated time, from 0.
            var playout = MediaTime.zero
            var integrated = MediaTime.zero
            for item in items {
                #expect(item.playout.lowerBound == playout, "\(context)")
                #expect(item.integrated.lowerBound == integrated, "\(context)")
                playout = item.playout.upperBound
                integrated = item.integrated.upperBound
            }
            if !schedule.isLive {
                #expect(schedule.playoutDuration == playout, "\(context)")
                #expect(schedule.integratedDuration == integrated, "\(context)")
            }
            // No primary item outside the playlist; each runs forward.
            for item in items where item.kind == .primary {
                #expect(item.primary.start >= first && item.primary.end <= end, "\(context)")
                #expect(item.primary.start < item.primary.end, "\(context)")
            }
            // An interstitial's span runs backwards only for a negative offset, or where the last
            // member of its group snaps its resumption IN (R6).
            for item in items where item.kind == .interstitial {
                guard let index = item.eventIndex, let group = schedule.group(ofEvent: index) else { continue }
                let event = schedule.events[index]
                let snapsIn = group.members.last == index && event.event.alignsResumptionWithPrimarySegmentBoundary
                #expect(!item.primary.isReversed || event.resumptionOffset < .zero || snapsIn, "\(context)")
            }
            // Nothing follows a POST group; nothing of primary precedes a PRE group.
            let scheduled = schedule.groups.filter(\.isScheduled)
            if let post = scheduled.first(where: { $0.members.contains { input.events[$0].cue == .leave } }) {
                let tail = items.suffix(post.members.count).compactMap(\.eventIndex)
                #expect(tail == post.members, "\(context)")
                for index in post.members {
                    #expect(schedule.events[index].resumeTime == end, "\(context)")
                }
                let spans = items.filter { $0.eventIndex.map(post.members.contains) == true }.map(\.primary)
                #expect(spans.allSatisfy { $0.start == end && $0.end == end }, "\(context)")
            }
            if let pre = scheduled.first(where: { $0.cue == .join }),
                let position = items.firstIndex(where: { $0.eventIndex == pre.members[0] })
            {
                #expect(!items[..<position].contains { $0.kind == .primary }, "\(context)")
                let run = items[position...].prefix(pre.members.count).compactMap(\.eventIndex)
                #expect(run == pre.members, "\(context)")
            }
            // Primary starts at the start point, or where a group resumes (one that covers the start
            // point, or a replay by a negative offset), never before the first segment.
            if let firstPrimary = items.first(where: { $0.kind == .primary }) {
                let clamped = min(max(input.playbackStart ?? first, first), end)
                let resumes = scheduled.map { max($0.resumeTime, first) }
                #expect(
                    firstPrimary.primary.start >= clamped || resumes.contains(firstPrimary.primary.start), "\(context)")
            }
        }
    }
}
