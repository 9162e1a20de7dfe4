import Foundation
import Testing

/// `hlsi play` and Date Range Schedules (issue 35, profile R27): the trace shows the schedule's
/// request and its outcome, and each interstitial it adds names its schedule.
@Suite("hlsi play and Date Range Schedules")
struct PlayScheduleCLITests {
    /// A VOD playlist of six 10 s segments with a schedule tag naming `schedule.json`.
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:10
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="breaks",CLASS="com.apple.hls.daterange-schedule",START-DATE="2026-01-01T00:00:00.000Z",X-URI="schedule.json"
        #EXT-X-DATERANGE:ID="plain",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:50.000Z",X-ASSET-URI="ad.m3u8",X-RESUME-OFFSET=0
        \((0..<6).map { "#EXTINF:10.0,\ns\($0).ts" }.joined(separator: "\n"))
        #EXT-X-ENDLIST

        """

    static let document = """
        {"DATERANGES": [
          {"ID": "by-offset", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 10, "X-ASSET-URI": "ad.m3u8",
           "X-RESUME-OFFSET": 0},
          {"ID": "by-date", "CLASS": "com.apple.hls.interstitial", "START-DATE": "2026-01-01T00:00:30.000Z",
           "X-ASSET-URI": "ad.m3u8", "X-RESUME-OFFSET": 0}
        ]}
        """

    static let ad = "#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5.0,\nad0.ts\n#EXT-X-ENDLIST\n"

    /// Writes the playlist, the ad and (when given) the schedule document to a new directory and
    /// plays the playlist with `--json --no-segments`; returns the trace's objects.
    static func play(document: String?) async throws -> [[String: Any]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-play-schedule-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try playlist.write(to: directory.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        try ad.write(to: directory.appendingPathComponent("ad.m3u8"), atomically: true, encoding: .utf8)
        if let document {
            try document.write(to: directory.appendingPathComponent("schedule.json"), atomically: true, encoding: .utf8)
        }
        let run = try await CLITests.run([
            "play", directory.appendingPathComponent("main.m3u8").path, "--json", "--no-segments",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        return try PlayCLITests.objects(run.standardOutput)
    }

    static func lines(_ events: [[String: Any]], _ kind: String, _ fields: [String]) -> [String] {
        events.filter { $0["event"] as? String == kind }.map { event in
            fields.map { "\(event[$0] ?? "-")" }.joined(separator: " ")
        }
    }

    @Test("the schedule's request and its entries are traced; each interstitial names its schedule")
    func traced() async throws {
        let events = try await Self.play(document: Self.document)
        #expect(Self.lines(events, "scheduleRequested", ["schedule"]) == ["breaks"])
        #expect(Self.lines(events, "scheduleRequestCompleted", ["schedule", "entries", "code"]) == ["breaks 2 -"])
        #expect(
            Self.lines(events, "interstitialStarted", ["id", "schedule", "primaryTime"]) == [
                "by-offset breaks 10.0", "by-date breaks 30.0", "plain - 50.0",
            ])
        #expect(events.last?["event"] as? String == "ended")
    }

    @Test("a schedule whose document is missing is traced with its error and adds no interstitials")
    func failed() async throws {
        let events = try await Self.play(document: nil)
        #expect(Self.lines(events, "scheduleRequestCompleted", ["schedule", "code"]) == ["breaks schedule-load"])
        #expect(Self.lines(events, "interstitialStarted", ["id"]) == ["plain"])
        #expect(events.last?["event"] as? String == "ended")
    }
}
