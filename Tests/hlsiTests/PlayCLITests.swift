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

    /// What `started` prints on its standard output until it prints `text` (or ends); then it is
    /// killed. The wait has no bound of its own but the one that keeps a hung process from hanging
    /// the suite: the process is killed after 10 minutes.
    static func output(of started: CLITests.Started, until text: String) async -> String {
        let pid = started.process.processIdentifier
        let guardTask = Task {
            try await Task.sleep(for: .seconds(600))
            kill(pid, SIGKILL)
        }
        let handle = started.output.fileHandleForReading
        let printed = await CLITests.offPool {
            var printed = ""
            while !printed.contains(text) {
                let data = handle.availableData
                guard !data.isEmpty else { break }
                printed += String(decoding: data, as: UTF8.self)
            }
            return printed
        }
        guardTask.cancel()
        if started.process.isRunning { kill(pid, SIGKILL) }
        _ = await started.finish()
        return printed
    }

    @Test("plays the demo VOD: every interstitial in order, primary resuming where timeline.json says")
    func demoVOD() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let run = try await CLITests.run([
            "play", base + "/demo/vod/master.m3u8", "--json", "--primary-id", "cli-session",
        ])
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
        let text = try await CLITests.run(["play", base + "/demo/vod/master.m3u8", "--no-segments"])
        #expect(text.status == 0)
        #expect(text.standardOutput.components(separatedBy: "interstitialStarted").count == 5)
        #expect(text.standardOutput.contains("interstitialStarted   primary 12.000  id=midroll-1"))
    }

    @Test("scripts seek under restrictions: midroll-1 has X-RESTRICT=SKIP,JUMP")
    func script() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        // At 5 the pre-roll (a 6 s ad for this session) still plays: the seek ends it and crosses
        // midroll-1 (JUMP), which plays first; inside it (SKIP) a forward seek and rate 2 are refused.
        let run = try await CLITests.run([
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

        // Live on a real clock (a manual clock cannot follow live): the events of its first load are
        // printed, however long a loaded machine takes to load it. (A short --duration would end
        // playback on the clock, before a slow first load.)
        let live = try CLITests.start(["play", base + "/demo/live/master.m3u8", "--json", "--duration", "600"])
        let printed = await Self.output(of: live, until: "\"event\":\"eventsChanged\"")
        #expect(printed.contains("\"event\":\"eventsChanged\""), "\(printed)")
        let manual = try await CLITests.run(["play", base + "/demo/live/master.m3u8", "--clock", "manual"])
        #expect(manual.status == 2)
        #expect(manual.standardError.contains("use --clock real"))
    }

    @Test("bad input: a script error points at the word, a missing stream exits 1")
    func badInput() async throws {
        let script = try await CLITests.run(["play", "/nonexistent.m3u8", "--script", "at 5 seek 40; at x skip"])
        #expect(script.status == 2)
        #expect(
            script.standardError.contains(
                "script:1:18: error: [script-syntax] expected non-negative seconds, found 'x'"))
        #expect(script.standardError.contains("                 ^"))
        let missing = try await CLITests.run(["play", "/nonexistent.m3u8"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("no such file"))
        #expect(try await CLITests.run(["play", "/x.m3u8", "--duration", "-1"]).status == 2)
    }
}

extension PlayCLITests {
    @Test("out-of-range numbers are usage errors, not crashes")
    func ranges() async throws {
        for arguments in [
            ["--start", "1e300"], ["--duration", "inf"], ["--lookahead", "-2"], ["--script", "at 1 rate 1e999"],
        ] {
            let run = try await CLITests.run(["play", "/x.m3u8"] + arguments)
            #expect(run.status == 2, "\(arguments)")
        }
    }
}

/// Coordinated groups and hand-off between `hlsi play` processes through a real `hlsi serve --demo`.
@Suite("hlsi play --group, --receive and hlsi handoff")
struct GroupCLITests {
    static func events(_ output: String, _ name: String, id: String? = nil) throws -> [[String: Any]] {
        try PlayCLITests.objects(output).filter {
            $0["event"] as? String == name && (id == nil || $0["id"] as? String == id)
        }
    }

    /// How far apart two processes may place the same group moment: a boundary's groupTime is
    /// computed from the group's timebase (the group's anchor plus the primary time), not observed,
    /// so a process that runs late still prints the same time, and they differ only by the printed
    /// millisecond rounding. Out of sync would be at least the 0.7 s by which the second starts
    /// after the first, or a preroll's difference.
    static let syncTolerance = 0.005

    @Test("two processes play the demo VOD in sync through its interstitials")
    func twoProcesses() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let group = "ws" + base.dropFirst("http".count) + "/group/cli-\(UUID().uuidString.prefix(8))"
        func member(_ name: String) -> [String] {
            [
                "play", base + "/demo/vod/master.m3u8", "--group", group, "--json", "--no-segments", "--duration", "24",
                "--primary-id", name, "--group-size", "2",
            ]
        }
        let first = try CLITests.start(member("first"))
        try await Task.sleep(for: .milliseconds(700))
        let second = try await CLITests.start(member("second")).finish()
        let one = await first.finish()
        #expect(one.status == 0, "\(one.standardError)")
        #expect(second.status == 0, "\(second.standardError)")
        // Each played its own pre-roll (its content may vary), then the group resumed together;
        // midroll-1 (X-CONTENT-MAY-VARY="NO") started and ended at the same group time for both.
        for (name, id) in [("interstitialStarted", "midroll-1"), ("interstitialEnded", "midroll-1")] {
            let a = try #require(try Self.events(one.standardOutput, name, id: id).first?["groupTime"] as? Double)
            let b = try #require(try Self.events(second.standardOutput, name, id: id).first?["groupTime"] as? Double)
            #expect(abs(a - b) < Self.syncTolerance, "\(name) \(id): \(a) vs \(b)")
        }
        // Both were released after their prerolls to the one place the group holds. (When each
        // heard of it is its own: that groupTime is when the message arrived, a matter of scheduling.)
        let releases = try [one, second].map {
            try #require(try Self.events($0.standardOutput, "coordinated").last?["location"] as? String)
        }
        #expect(releases[0] == releases[1], "\(releases)")
        // Whether either waited for the other at the end of its pre-roll depends on when the second
        // process joined: on a loaded machine it may join after the first's pre-roll, and be placed
        // past its own. The hold is checked on a manual clock (CoordinationTests: "through an event
        // whose content may vary each plays its own, and the group resumes together").
    }

    @Test("a hand-off through the server carries the overridden restrictions, which the receiver enforces")
    func handOff() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let endpoint = base + "/handoff/tv-\(UUID().uuidString.prefix(8))"
        // The sender removes midroll-1's JUMP (keeping SKIP) and hands off. The receiver seeks to 11:
        // midroll-1 starts at 12 and a forward seek in it is refused (SKIP still holds).
        let receiver = try CLITests.start([
            "play", "--receive", endpoint, "--json", "--no-segments", "--clock", "manual", "--script",
            "at 1 seek 11; at 2.5 seek 30", "--duration", "6",
        ])
        // No wait for the receiver to be listening: the server's mailbox keeps the session for a
        // receiver that asks later, and hands it straight to one already waiting.
        let sessionFile = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: sessionFile) }
        let sender = try await CLITests.run([
            "play", base + "/demo/vod/master.m3u8", "--json", "--no-segments", "--audio", "fr", "--script",
            "at 8 restrict midroll-1 SKIP; at 9 handoff \(endpoint)", "--session-out", sessionFile.path,
        ])
        #expect(sender.status == 0, "\(sender.standardError)")
        #expect(try Self.events(sender.standardOutput, "handedOff").count == 1)
        let received = await receiver.finish()
        #expect(received.status == 0, "\(received.standardError)")
        let output = received.standardOutput
        // The pre-roll is ONCE and played on the sender: not again.
        #expect(try Self.events(output, "interstitialStarted", id: "preroll").isEmpty)
        #expect(try Self.events(output, "interstitialStarted", id: "midroll-1").first?["t"] as? Double == 2)
        #expect(try Self.events(output, "seekRefused").first?["t"] as? Double == 2.5)
        let session = String(decoding: try Data(contentsOf: sessionFile), as: UTF8.self)
        #expect(session.contains("X-RESTRICT=\\\"SKIP\\\""))
        #expect(session.contains("\"language\":\"fr\""))
    }

    @Test("hlsi handoff sends a session document; bad documents are refused with their JSON path")
    func handoffCommand() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let endpoint = base + "/handoff/cli"
        try Data(#"{"url":"\#(base)/demo/vod/master.m3u8","location":{"primary":20},"rate":1}"#.utf8).write(to: file)
        let sent = try await CLITests.run(["handoff", file.path, "--to", endpoint])
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(sent.standardOutput.contains("at primary 20.000"))
        let played = try await CLITests.run([
            "play", "--receive", endpoint, "--json", "--no-segments", "--duration", "1", "--clock", "manual",
        ])
        #expect(played.status == 0, "\(played.standardError)")
        #expect(try Self.events(played.standardOutput, "coordinated").first?["location"] as? String == "primary 20.000")
        try Data(#"{"url":"x","location":{"primary":"soon"}}"#.utf8).write(to: file)
        let bad = try await CLITests.run(["handoff", file.path, "--to", endpoint])
        #expect(bad.status == 2)
        #expect(
            bad.standardError.contains(
                "[session-schema] location.primary: expected a number of seconds, found a string"))
        let usage = try await CLITests.run(["play", "--receive", endpoint, base + "/demo/vod/master.m3u8"])
        #expect(usage.status == 2)
    }
}
