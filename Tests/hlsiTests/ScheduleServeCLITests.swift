import Foundation
import Testing

/// Issue 35, item 4: a target of a real `hlsi serve` that publishes its breaks as a Date Range
/// Schedule, read back by `hlsi schedule --json` (the pure resolution a player runs), gives the same
/// events as the plain form.
@Suite("hlsi serve: Date Range Schedules")
struct ScheduleServeCLITests {
    /// Starts `hlsi serve` on a configuration of the demo VOD with three breaks, written as `form`.
    static func startServer(
        form: String, in directory: URL, sharedPublicURL: Bool = true
    ) async throws -> (Process, String, URL) {
        let demo = CLITests.packageRoot.appendingPathComponent("Sources/InterstitialServer/Resources/demo").path
        var config: [String: Any] = [
            "port": 0, "database": directory.appendingPathComponent("\(form).sqlite").path,
            // One public base for both servers, as replicas behind one name have.
            "publicURL": "http://127.0.0.1",
            "vod": [["id": "demo", "path": "/demo/vod", "directory": demo + "/primary", "interstitials": form]],
            "ads": demo + "/ads",
            "seed": [
                "inventory": [["id": "ad1", "uri": "/ads/ad1/master.m3u8", "duration": 6]],
                "breaks": [
                    ["id": "pre", "target": "vod/demo", "at": 0, "cue": ["PRE"], "duration": 6],
                    ["id": "mid", "target": "vod/demo", "at": 12, "duration": 6, "restrict": ["SKIP", "JUMP"]],
                    ["id": "listed", "target": "vod/demo", "at": 26, "duration": 10],
                ],
            ],
        ]
        if !sharedPublicURL { config["publicURL"] = nil }
        let file = directory.appendingPathComponent("\(form).json")
        try JSONSerialization.data(withJSONObject: config).write(to: file)
        return try await ServeCLITests.startServer(["serve", "--config", file.path])
    }

    @Test("the published schedule resolves to the plain form's events, each naming its schedule")
    func sameEventsAsPlain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-sched-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var outputs: [String: [String: Any]] = [:]
        for form in ["tags", "schedule"] {
            let (server, base, _) = try await Self.startServer(form: form, in: directory)
            defer { if server.isRunning { server.terminate() } }
            let run = try await CLITests.run(["schedule", "--json", base + "/demo/vod/video/main.m3u8"])
            #expect(run.status == 0, "\(run.standardError)")
            outputs[form] = try #require(
                JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        }
        let plain = try #require(outputs["tags"]?["events"] as? [[String: Any]])
        let scheduled = try #require(outputs["schedule"]?["events"] as? [[String: Any]])
        #expect(plain.compactMap { $0["id"] as? String } == ["pre", "mid", "listed"])
        #expect(scheduled.compactMap { $0["id"] as? String } == ["pre", "mid", "listed"])
        #expect(plain.allSatisfy { $0["scheduleIdentifier"] == nil })
        let identifiers = Set(scheduled.compactMap { $0["scheduleIdentifier"] as? String })
        #expect(identifiers.count == 1 && identifiers.first?.hasPrefix("hlsi-schedule-") == true)
        // Everything else of each event (start, resumption, asset list URL, restrictions) is the same.
        func rest(_ events: [[String: Any]]) throws -> [Data] {
            try events.map { event in
                var event = event
                event["scheduleIdentifier"] = nil
                return try JSONSerialization.data(withJSONObject: event, options: .sortedKeys)
            }
        }
        #expect(try rest(plain) == rest(scheduled))
        let warnings = outputs["schedule"]?["warnings"] as? [Any]
        #expect(warnings?.isEmpty ?? true, "\(String(describing: warnings))")
    }

    @Test("hlsi play plays the published schedule: the same breaks, at the same times, as the plain form")
    func playedAsPlain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-sched-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var played: [String: [[String: Any]]] = [:]
        for form in ["tags", "schedule"] {
            // Each server's own URLs: the player loads the ads from it.
            let (server, base, log) = try await Self.startServer(form: form, in: directory, sharedPublicURL: false)
            defer {
                if server.isRunning { server.terminate() }
                try? FileManager.default.removeItem(at: log)
            }
            let run = try await CLITests.run([
                "play", base + "/demo/vod/master.m3u8", "--json", "--no-segments", "--clock", "manual",
            ])
            #expect(run.status == 0, "\(form): \(run.standardError)")
            played[form] = try PlayCLITests.objects(run.standardOutput)
        }
        func breaks(_ lines: [[String: Any]]) -> [String] {
            lines.filter { ["interstitialStarted", "interstitialEnded"].contains($0["event"] as? String) }.map {
                "\($0["event"] ?? "") \($0["id"] ?? "") t=\($0["t"] ?? "") primary=\($0["primaryTime"] ?? "")"
            }
        }
        let plain = try #require(played["tags"])
        let scheduled = try #require(played["schedule"])
        #expect(breaks(plain).count == 6, "\(breaks(plain))")
        #expect(breaks(scheduled) == breaks(plain))
        // The schedule's document was requested and read; each of its breaks names it.
        let completed = scheduled.filter { $0["event"] as? String == "scheduleRequestCompleted" }
        #expect(completed.count == 1 && completed.first?["entries"] as? Int == 3, "\(completed)")
        let started = scheduled.filter { $0["event"] as? String == "interstitialStarted" }
        #expect(started.allSatisfy { ($0["schedule"] as? String)?.hasPrefix("hlsi-schedule-") == true }, "\(started)")
        #expect(plain.allSatisfy { $0["event"] as? String != "scheduleRequested" })
    }
}
