import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackEngine
import Testing

/// Date Range Schedules on the `Player` over HTTP (issue 35, profile R27): the loader fetches the
/// document, the monitor posts `scheduleRequestCompleted`, and the entries play with their schedule.
@Suite("Date Range Schedules on the player")
struct DateRangeSchedulePlayerTests {
    /// A schedule tag at the epoch naming `/schedule.json`.
    static let tag =
        "#EXT-X-DATERANGE:ID=\"breaks\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"\(Content.date(0))\",X-URI=\"/schedule.json\""

    static let document = """
        {"DATERANGES": [
          {"ID": "by-offset", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 12, "DURATION": 5,
           "X-ASSET-URI": "{ORIGIN}/a.m3u8", "X-RESUME-OFFSET": 0},
          {"ID": "by-date", "CLASS": "com.apple.hls.interstitial", "START-DATE": "\(Content.date(30))",
           "X-ASSET-LIST": "/list.json", "X-RESUME-OFFSET": 0}
        ]}
        """

    /// Plays the primary with the schedule tag (the document when given) and returns the trace,
    /// the schedule-request notifications as `id: N entries` or `id: code`, and the monitor's events.
    static func play(document: String?) async throws -> ([PlaybackEvent], [String], [InterstitialEvent]) {
        var files = vod([Self.tag], ads.merging(["/list.json": Content.assetList([("{ORIGIN}/b.m3u8", 4)])]) { $1 })
        if let document { files["/schedule.json"] = document }
        return try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            let monitor = InterstitialEventMonitor(primaryPlayer: player)
            let completed = monitor.scheduleRequestCompleted
            player.play()
            await player.run(until: .seconds(20))
            let events = monitor.events
            await player.run(until: nil)
            await player.shutdown()
            var received: [String] = []
            for await (id, response, error) in completed {
                received.append(
                    response.map { "\(id): \($0.entries.count) entries" } ?? "\(id): \(error?.code.rawValue ?? "-")")
            }
            return (player.trace, received, events)
        }
    }

    @Test("the document is loaded over HTTP and its entries play, each with scheduleIdentifier")
    func entriesPlay() async throws {
        let (trace, completed, events) = try await Self.play(document: Self.document)
        #expect(completed == ["breaks: 2 entries"])
        #expect(events.map(\.identifier) == ["by-offset", "by-date"])
        #expect(events.allSatisfy { $0.scheduleIdentifier == "breaks" })
        #expect(
            trace.lines([.interstitialStarted], fields: ["id", "schedule"]) == [
                "12.000 interstitialStarted @12.000 id=by-offset schedule=breaks",
                "35.000 interstitialStarted @30.000 id=by-date schedule=breaks",
            ])
        #expect(trace.first(.scheduleRequested)?["url"]?.description.contains("_HLS_primary_id=p") == true)
    }

    @Test("a document the origin does not have adds no events; the notification carries schedule-load")
    func failedDocument() async throws {
        let (trace, completed, events) = try await Self.play(document: nil)
        #expect(completed == ["breaks: schedule-load"])
        #expect(events.isEmpty)
        #expect(trace.lines([.interstitialStarted]).isEmpty)
        #expect(trace.last?.kind == .ended)
    }
}
