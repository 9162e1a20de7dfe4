import Foundation
import Testing

/// `hlsi serve` as a new user meets it (issue 47): `--dry-run`, the targets' URLs at start, a port
/// that is taken, errors that point.
@Suite("hlsi serve: dry run, start, errors that point")
struct ServeStartCLITests {
    /// A folder with a VOD directory (the demo's media) and `server.json` with `text`.
    static func withConfiguration(_ text: String, _ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let media = CLITests.packageRoot.appendingPathComponent("Sources/InterstitialServer/Resources/demo/primary")
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("movie"), withDestinationURL: media)
        let file = directory.appendingPathComponent("server.json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        try await body(file)
    }

    @Test("--dry-run checks the file, prints every target's URL and exits 0")
    func dryRun() async throws {
        let text = """
            {"port": 8123, "database": "state.sqlite",
             "vod": [{"id": "movie", "directory": "movie"}],
             "live": [{"id": "channel", "loop": "movie", "path": "/tv/channel"}]}
            """
        try await Self.withConfiguration(text) { file in
            let run = try await CLITests.run(["serve", "--config", file.path, "--dry-run"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("vod/movie  http://127.0.0.1:8123/vod/movie/master.m3u8"))
            #expect(run.standardOutput.contains("live/channel  http://127.0.0.1:8123/tv/channel/master.m3u8"))
            // Options apply: the URLs are the ones the server would use.
            let withPublicURL = try await CLITests.run([
                "serve", "--config", file.path, "--dry-run", "--public-url", "https://video.example.com",
            ])
            #expect(withPublicURL.standardOutput.contains("vod/movie  https://video.example.com/vod/movie/master.m3u8"))
        }
    }

    @Test(
        "--dry-run exits 1 with an error that points: a missing directory, an unknown key, a trailing comma",
        arguments: [
            (#"{"vod": [{"id": "movie", "directory": "no-such"}]}"#, "vod[0].directory: the directory"),
            (
                #"{"vod": [{"id": "movie", "upstrem": "https://o.example/m/master.m3u8"}]}"#,
                "vod[0].upstrem: unknown key: did you mean \"upstream\"?"
            ),
            ("{\"port\": 8080 \"host\": \"x\"}", "line 1, column 15: expected , or }"),
            ("{\"port\": 8080,\n \"vod\": [],\n}", "line 2, column 11: a trailing comma"),
        ])
    func dryRunErrors(text: String, expected: String) async throws {
        try await Self.withConfiguration(text) { file in
            let run = try await CLITests.run(["serve", "--config", file.path, "--dry-run"])
            #expect(run.status == 1)
            #expect(run.standardError.contains(expected), "\(run.standardError)")
            #expect(run.standardOutput.isEmpty)
        }
    }

    @Test("--dry-run warns about a seed pre-roll that skips the start of the asset, as hlsi validate does")
    func seedPreRollWarning() async throws {
        let text = """
            {"vod": [{"id": "movie", "directory": "movie"}],
             "seed": {"breaks": [{"id": "pre", "target": "vod/movie", "cue": ["PRE", "ONCE"], "duration": 6,
                                  "assetUri": "https://ads.example/pre.m3u8"},
                                 {"id": "ok", "target": "vod/movie", "cue": ["PRE"], "duration": 6, "resumeOffset": 0,
                                  "assetUri": "https://ads.example/pre.m3u8"}]}}
            """
        try await Self.withConfiguration(text) { file in
            let run = try await CLITests.run(["serve", "--config", file.path, "--dry-run"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(
                run.standardError.contains(
                    "seed.breaks[0].resumeOffset: warning: [interstitial-preroll-skip] pre-roll \"pre\" has no X-RESUME-OFFSET"
                ), "\(run.standardError)")
            #expect(!run.standardError.contains("seed.breaks[1]"), "\(run.standardError)")
        }
    }

    @Test("A served configuration prints its targets' URLs once it listens")
    func urlsAtStart() async throws {
        let text = #"{"port": 0, "database": "state.sqlite", "vod": [{"id": "movie", "directory": "movie"}]}"#
        try await Self.withConfiguration(text) { file in
            let (server, base, log) = try await ServeCLITests.startServer(["serve", "--config", file.path])
            defer {
                if server.isRunning { server.terminate() }
                try? FileManager.default.removeItem(at: log)
            }
            let url = base.hasSuffix("/") ? String(base.dropLast()) : base
            // The line may follow "serving on": wait for it (10 minutes at most: a hung server, not a
            // slow one), then read the log.
            var printed = ""
            for _ in 0..<6000 {
                printed = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if printed.contains("vod/movie: ") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(printed.contains("vod/movie: \(url)/vod/movie/master.m3u8"), "\(printed)")
        }
    }

    @Test("A taken port is an error that names it and --port, printed before any token or URL")
    func portTaken() async throws {
        // Another server holds the port: the situation of the issue.
        let (first, base, log) = try await ServeCLITests.startServer()
        defer {
            if first.isRunning { first.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let port = Int(base.split(separator: ":").last?.filter(\.isNumber) ?? "") ?? 0
        #expect(port > 0)
        let run = try await CLITests.run(["serve", "--demo", "--port", "\(port)"])
        #expect(run.status == 2)
        let output = run.standardOutput + run.standardError
        #expect(output.contains("port \(port) on 127.0.0.1 is already in use"), "\(output)")
        #expect(output.contains("--port"))
        #expect(!output.contains("admin API token"), "\(output)")
        #expect(!output.contains("demo: open"), "\(output)")
        #expect(!output.contains("bind(descriptor"), "\(output)")
    }

    @Test("A VAST ad server with client tracking says that a plain player sends no impression (issue 47, item 6)")
    func clientTrackingNote() async throws {
        let text = """
            {"vod": [{"id": "movie", "directory": "movie",
                      "adServer": {"vast": "https://ads.example/vast?d=[BREAKDURATION]"}},
                     {"id": "relayed", "directory": "movie",
                      "adServer": {"vast": "https://ads.example/vast", "tracking": "relay"}}]}
            """
        try await Self.withConfiguration(text) { file in
            let run = try await CLITests.run(["serve", "--config", file.path, "--dry-run"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(
                run.standardError.contains(
                    "vod[0].adServer.tracking: note: \"client\" (the default): the player fires the ads'"),
                "\(run.standardError)")
            #expect(run.standardError.contains("(hls.js, a browser's own HLS) sends none"), "\(run.standardError)")
            #expect(!run.standardError.contains("vod[1].adServer"), "\(run.standardError)")
        }
    }
}
