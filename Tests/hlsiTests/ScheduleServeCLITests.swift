import Foundation
import Testing

/// Issue 35, item 4: a target of a real `hlsi serve` that publishes its breaks as a Date Range
/// Schedule, read back by `hlsi schedule --json` (the pure resolution a player runs), gives the same
/// events as the plain form.
@Suite("hlsi serve: Date Range Schedules")
struct ScheduleServeCLITests {
    /// Starts `hlsi serve` on a configuration of the demo VOD with three breaks, written as `form`.
    static func startServer(form: String, in directory: URL) throws -> (Process, String, URL) {
        let demo = CLITests.packageRoot.appendingPathComponent("Sources/InterstitialServer/Resources/demo").path
        let config: [String: Any] = [
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
        let file = directory.appendingPathComponent("\(form).json")
        try JSONSerialization.data(withJSONObject: config).write(to: file)
        let log = directory.appendingPathComponent("\(form).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = ["serve", "--config", file.path]
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"serving on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                return (process, String(text[range].dropFirst("serving on ".count)), log)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        process.terminate()
        throw CocoaError(.fileReadUnknown)
    }

    @Test("the published schedule resolves to the plain form's events, each naming its schedule")
    func sameEventsAsPlain() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-sched-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var outputs: [String: [String: Any]] = [:]
        for form in ["tags", "schedule"] {
            let (server, base, _) = try Self.startServer(form: form, in: directory)
            defer { if server.isRunning { server.terminate() } }
            let run = try CLITests.run(["schedule", "--json", base + "/demo/vod/video/main.m3u8"])
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
}
