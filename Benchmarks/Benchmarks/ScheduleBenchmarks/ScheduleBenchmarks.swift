import Benchmark
import HLSInterstitials
import HLSPlaylist

/// Resolving 10,000 interstitials against a 24-hour VOD playlist (14,400 segments of 6 s), with
/// parsing the same playlist as the baseline measured in the same run.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident], timeUnits: .milliseconds,
        maxDuration: .seconds(10), maxIterations: 30)

    let text = ScheduleFixture.playlist(hours: 24, events: 10_000)
    let bytes = Array(text.utf8)
    let playlist = PlaylistParser.parse(bytes).playlist.media!
    let events = ScheduleInput.events(of: playlist)
    precondition(events.count == 10_000)

    Benchmark("baseline: parse the 24 h playlist with 10,000 date ranges (\(bytes.count / 1024) KiB)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(PlaylistParser.parse(bytes)) }
    }
    Benchmark("resolve 10,000 events on 24 h") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(InterstitialSchedule.resolve(ScheduleInput(primary: playlist, events: events)))
        }
    }
    Benchmark("events from date ranges + resolve + integrated snapshot") { benchmark in
        for _ in benchmark.scaledIterations {
            let schedule = InterstitialSchedule.resolve(
                ScheduleInput(primary: playlist, events: ScheduleInput.events(of: playlist)))
            blackHole(IntegratedTimelineSnapshot(schedule: schedule, primary: playlist))
        }
    }
}

enum ScheduleFixture {
    /// A VOD playlist of `hours` of 6 s segments with `events` interstitials spread evenly: mixed
    /// resumption offsets, snapping, RANGE occupancy and restrictions.
    static func playlist(hours: Int, events: Int) -> String {
        let segments = hours * 600
        let start = DateTime(iso8601: "2026-01-01T00:00:00.000Z")!
        let spacing = Double(hours * 3600) / Double(events)
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:\(start.iso8601)\n"
        for index in 0..<events {
            let date = start + MediaTime(seconds: Double(index) * spacing + 1)
            var attributes = "ID=\"ad\(index)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date.iso8601)\",DURATION=5"
            attributes += ",X-ASSET-URI=\"https://ads.example.com/\(index).m3u8?_HLS_interstitial_id=ad\(index)\""
            switch index % 4 {
            case 0: attributes += ",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""
            case 1: attributes += ",X-SNAP=\"OUT,IN\""
            case 2: attributes += ",X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\""
            default: attributes += ",X-PLAYOUT-LIMIT=3"
            }
            text += "#EXT-X-DATERANGE:\(attributes)\n"
        }
        for index in 0..<segments { text += "#EXTINF:6.000,\ns\(index).m4s\n" }
        return text + "#EXT-X-ENDLIST\n"
    }
}
