import HLSInterstitials
import HLSPlaylist
import Testing

@Suite("Integrated timeline snapshots")
struct IntegratedTimelineTests {
    static func snapshot(
        _ events: [(id: String, at: String, extra: String)], played: [String: MediaTime] = [:],
        at time: MediaTime = .zero,
        endList: Bool = true
    ) -> IntegratedTimelineSnapshot {
        let playlist = ScheduleRuleTests.playlist(events, endList: endList)
        let schedule = ScheduleRuleTests.resolve(playlist, played: played)
        return IntegratedTimelineSnapshot(schedule: schedule, primary: playlist, currentTime: time)
    }

    static func targets(_ snapshot: IntegratedTimelineSnapshot) -> [String] {
        snapshot.segments.map {
            "\($0.segmentType == .primary ? "P" : ($0.interstitialEvent?.identifier ?? "?")) \($0.timeMapping.target.lowerBound)-\($0.timeMapping.target.upperBound)"
        }
    }

    @Test("segments are contiguous; point events have zero-length targets; primary skipped by an offset is absent")
    func segments() {
        let snapshot = Self.snapshot([("a", "10", ",DURATION=5,X-RESUME-OFFSET=2"), ("b", "10", ",DURATION=5")])
        #expect(Self.targets(snapshot) == ["P 0-10", "a 10-10", "b 10-10", "P 10-53"])
        #expect(snapshot.duration == MediaTime(seconds: 53))
        for (left, right) in zip(snapshot.segments, snapshot.segments.dropFirst()) {
            #expect(left.timeMapping.target.upperBound == right.timeMapping.target.lowerBound)
        }
        #expect(snapshot.segments[1].isSinglePoint)
        #expect(snapshot.segments[1].timeMapping.source == MediaTime.zero..<MediaTime(seconds: 5))
        #expect(snapshot.segments[3].timeMapping.source == MediaTime(seconds: 17)..<MediaTime(seconds: 60))
        #expect(snapshot.segments[3].startDate == DateTime(iso8601: "2026-01-01T00:00:17.000Z"))
        #expect(snapshot.segments[1].startDate == DateTime(iso8601: "2026-01-01T00:00:10.000Z"))
    }

    @Test("map returns the first segment that starts at a time, and the offset into the segment")
    func map() throws {
        let snapshot = Self.snapshot([("a", "10", ",DURATION=5,X-RESUME-OFFSET=2"), ("b", "10", ",DURATION=5")])
        let atBreak = try #require(snapshot.map(MediaTime(seconds: 10)))
        #expect(atBreak.segment.interstitialEvent?.identifier == "a")
        #expect(atBreak.offset == .zero)
        let inPrimary = try #require(snapshot.map(MediaTime(seconds: 12)))
        #expect(inPrimary.segment.segmentType == .primary)
        #expect(inPrimary.offset == MediaTime(seconds: 2))
        #expect(snapshot.map(MediaTime(seconds: 53))?.offset == MediaTime(seconds: 43))
        #expect(snapshot.map(MediaTime(seconds: 54)) == nil)
        #expect(snapshot.map(MediaTime(seconds: -1)) == nil)
    }

    @Test("fill events take their planned duration until the played one is known")
    func fill() {
        let range = ",PLANNED-DURATION=20,X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\""
        let planned = Self.snapshot([("f", "6", range)])
        #expect(Self.targets(planned) == ["P 0-6", "f 6-26", "P 26-80"])
        let played = Self.snapshot([("f", "6", range)], played: ["f": MediaTime(seconds: 15)])
        #expect(Self.targets(played) == ["P 0-6", "f 6-21", "P 21-75"])
        #expect(planned.change(to: played) == .segmentsChanged)
    }

    @Test("current time, segment and date; a diff tells a changed current segment from changed segments")
    func current() {
        let early = Self.snapshot([("a", "10", ",DURATION=5,X-RESUME-OFFSET=0")], at: MediaTime(seconds: 4))
        #expect(early.currentSegment?.segmentType == .primary)
        #expect(early.currentDate == DateTime(iso8601: "2026-01-01T00:00:04.000Z"))
        let later = Self.snapshot([("a", "10", ",DURATION=5,X-RESUME-OFFSET=0")], at: MediaTime(seconds: 30))
        #expect(later.currentSegmentIndex == 2)
        #expect(early.change(to: later) == .currentSegmentChanged)
        #expect(early.change(to: early) == nil)
        var loaded = early
        loaded.segments[0].loadedTimeRanges = [MediaTime.zero..<MediaTime(seconds: 8)]
        #expect(early.change(to: loaded) == .loadedTimeRangesChanged)
    }

    @Test("live snapshots have an indefinite duration")
    func live() {
        #expect(Self.snapshot([("a", "10", ",DURATION=5")], endList: false).duration == nil)
    }
}
