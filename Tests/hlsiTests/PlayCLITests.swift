import Foundation
import Testing

/// `hlsi play` against a real `hlsi serve --demo` process.
@Suite("hlsi play")
struct PlayCLITests {
    /// The trace lines as objects.
    static func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("plays the demo VOD: every interstitial in order, primary resuming where timeline.json says")
    func demoVOD() throws {
        let (server, base, log) = try ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let run = try CLITests.run(["play", base + "/demo/vod/master.m3u8", "--json", "--primary-id", "cli-session"])
        #expect(run.status == 0, "\(run.standardError)")
        let events = try Self.objects(run.standardOutput)
        let started = events.filter { $0["event"] as? String == "interstitialStarted" }.compactMap {
            $0["id"] as? String
        }
        #expect(started == ["preroll", "midroll-1", "midroll-2", "postroll"])
        let resumed = events.filter { $0["event"] as? String == "primaryResumed" }.compactMap {
            $0["primaryTime"] as? Double
        }
        #expect(resumed == [0, 12, 26])
        #expect(events.last?["event"] as? String == "ended")
        let listURL = events.first { $0["event"] as? String == "assetListRequested" }?["url"] as? String
        #expect(listURL?.contains("_HLS_primary_id=cli-session") == true)
        // Text mode prints the same events as a log.
        let text = try CLITests.run(["play", base + "/demo/vod/master.m3u8", "--no-segments"])
        #expect(text.status == 0)
        #expect(text.standardOutput.components(separatedBy: "interstitialStarted").count == 5)
        #expect(text.standardOutput.contains("interstitialStarted   primary 12.000  id=midroll-1"))
    }

    @Test("scripts seek under restrictions: midroll-1 has X-RESTRICT=SKIP,JUMP")
    func script() throws {
        let (server, base, log) = try ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        // At 5 the pre-roll (a 6 s ad for this session) still plays: the seek ends it and crosses
        // midroll-1 (JUMP), which plays first; inside it (SKIP) a forward seek and rate 2 are refused.
        let run = try CLITests.run([
            "play", base + "/demo/vod/master.m3u8", "--json", "--no-segments", "--primary-id", "cli-script", "--script",
            "at 5 seek 20; at 7 seek 30; at 8 rate 2",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let events = try Self.objects(run.standardOutput)
        let names = events.map { "\($0["event"]!)@\($0["t"]!)" }
        #expect(names.contains("interstitialStarted@5.0"))
        #expect(names.contains("seekRefused@7.0"))
        #expect(names.contains("rateRefused@8.0"))
        #expect(names.contains("seekCompleted@9.0"))

        // Live on a real clock for a few seconds; a manual clock cannot follow live.
        let live = try CLITests.run(["play", base + "/demo/live/master.m3u8", "--json", "--duration", "2"])
        #expect(live.status == 0, "\(live.standardError)")
        #expect(live.standardOutput.contains("\"event\":\"eventsChanged\""))
        let manual = try CLITests.run(["play", base + "/demo/live/master.m3u8", "--clock", "manual"])
        #expect(manual.status == 2)
        #expect(manual.standardError.contains("use --clock real"))
    }

    @Test("bad input: a script error points at the word, a missing stream exits 1")
    func badInput() throws {
        let script = try CLITests.run(["play", "/nonexistent.m3u8", "--script", "at 5 seek 40; at x skip"])
        #expect(script.status == 2)
        #expect(
            script.standardError.contains(
                "script:1:18: error: [script-syntax] expected non-negative seconds, found 'x'"))
        #expect(script.standardError.contains("                 ^"))
        let missing = try CLITests.run(["play", "/nonexistent.m3u8"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("no such file"))
        #expect(try CLITests.run(["play", "/x.m3u8", "--duration", "-1"]).status == 2)
    }
}

extension PlayCLITests {
    @Test("out-of-range numbers are usage errors, not crashes")
    func ranges() throws {
        for arguments in [
            ["--start", "1e300"], ["--duration", "inf"], ["--lookahead", "-2"], ["--script", "at 1 rate 1e999"],
        ] {
            let run = try CLITests.run(["play", "/x.m3u8"] + arguments)
            #expect(run.status == 2, "\(arguments)")
        }
    }
}
