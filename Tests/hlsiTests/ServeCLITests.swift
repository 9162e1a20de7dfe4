import Foundation
import Testing

/// `hlsi serve --demo` as a process, driven by `hlsi admin`.
@Suite("hlsi serve and hlsi admin")
struct ServeCLITests {
    /// `hlsi serve` stopped, or hung, before it listened: why, and what it printed.
    struct ServerDidNotStart: Error, CustomStringConvertible {
        var reason: String
        var log: String
        var description: String { "hlsi serve \(reason); it printed:\n\(log.suffix(2000))" }
    }

    /// Starts `hlsi serve` (by default the demo on a free port) and returns the process, its base URL
    /// and its log file.
    static func startServer(
        _ arguments: [String] = ["serve", "--demo", "--port", "0", "--admin-token", "cli-token"]
    ) async throws -> (Process, String, URL) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = arguments
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // Until it listens or exits: a debug server started with many others on a loaded machine may
        // take long to listen, which is no failure. The limit only keeps a hung server from hanging
        // the suite.
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"serving on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                return (process, String(text[range].dropFirst("serving on ".count)), log)
            }
            guard process.isRunning else {
                throw ServerDidNotStart(reason: "exited with status \(process.terminationStatus)", log: text)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw ServerDidNotStart(
            reason: "did not listen within 600 s", log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    @Test("The database comes from --database, else HLSI_DATABASE, else the configuration; a bad one is refused first")
    func databaseSources() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-db-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("server.json")
        try #"{"database": "postgres://app@db.example/hlsi?colour=red"}"#.write(
            to: config, atomically: true, encoding: .utf8)
        let serve = ["serve", "--config", config.path, "--port", "0"]
        // The configuration's URL has a parameter no store knows: refused before anything is served.
        let fromConfig = try await CLITests.run(serve)
        #expect(fromConfig.status == 2)
        #expect(fromConfig.standardError.contains("app@db.example"), "\(fromConfig.standardError)")
        #expect(fromConfig.standardError.contains("unknown parameter colour"), "\(fromConfig.standardError)")
        // HLSI_DATABASE stands in for it, and --database for both.
        let fromEnvironment = try await CLITests.run(
            serve, environment: ["HLSI_DATABASE": "postgres://env@db.example/hlsi?colour=red"])
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.standardError.contains("env@db.example"), "\(fromEnvironment.standardError)")
        let fromFlag = try await CLITests.run(
            serve + ["--database", "postgres://flag@db.example/hlsi?colour=red"],
            environment: ["HLSI_DATABASE": "postgres://env@db.example/hlsi?colour=red"])
        #expect(fromFlag.status == 2)
        #expect(fromFlag.standardError.contains("flag@db.example"), "\(fromFlag.standardError)")
    }

    @Test("hlsi admin lists, creates and reads; refusals exit 1 with the server's error; usage errors exit 2")
    func adminCommands() async throws {
        let (server, base, log) = try await Self.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let common = ["--server", base, "--token", "cli-token"]
        let list = try await CLITests.run(["admin", "list", "breaks"] + common)
        #expect(list.status == 0)
        #expect(list.standardOutput.contains("\"id\":\"midroll-1\""))
        let body = #"{"id":"cli","target":"vod/demo","at":5,"duration":4}"#
        #expect(try await CLITests.run(["admin", "create", "break", "--json", body] + common).status == 0)
        let again = try await CLITests.run(["admin", "create", "break", "--json", body] + common)
        #expect(again.status == 1)
        #expect(again.standardError.contains("HTTP 409"))
        let bad = try await CLITests.run(
            ["admin", "create", "break", "--json", #"{"id":"x","target":"vod/demo","at":-1}"#] + common)
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("\"path\":\"at\""))
        #expect(try await CLITests.run(["admin", "get", "break", "cli"] + common).standardOutput.contains("\"at\":5"))
        let unauthorized = try await CLITests.run(["admin", "list", "breaks", "--server", base, "--token", "wrong"])
        #expect(unauthorized.status == 1)
        #expect(unauthorized.standardError.contains("HTTP 401"))
        #expect(try await CLITests.run(["admin", "frobnicate"] + common).status == 2)
        #expect(try await CLITests.run(["admin", "create", "break"] + common).status == 2)
        let now = try await CLITests.run(
            ["admin", "break-now", "demo", "--duration", "20", "--id", "cli-now"] + common)
        #expect(now.status == 0, "\(now.standardError)")
        #expect(now.standardOutput.contains("\"plannedDuration\":20"))
        let down = try await CLITests.run(["admin", "list", "breaks", "--server", "http://127.0.0.1:1", "--token", "x"])
        #expect(down.status == 2)

        // SIGTERM: a graceful shutdown, exit 0.
        server.terminate()
        await CLITests.offPool { server.waitUntilExit() }
        #expect(server.terminationStatus == 0)
    }

    @Test("hlsi serve refuses bad configurations with the JSON path, exit 2")
    func badConfiguration() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hlsi-config-\(UUID().uuidString).json")
        try #"{"vod":[{"id":"a","directory":"d","path":"x"}]}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await CLITests.run(["serve", "--config", file.path])
        #expect(run.status == 2)
        #expect(run.standardError.contains("vod[0].path"))
        #expect(try await CLITests.run(["serve"]).status == 2)
        #expect(try await CLITests.run(["serve", "--demo", "--port", "70000"]).status == 2)
    }
}
