import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hlsi validate` and `hlsi play` on the stitched form (issue 45) of a real `hlsi serve --demo`:
/// the validator finds it clean, VOD and live (reloads included), and the headless player plays the
/// ads as primary content across the discontinuities, with no interstitial, stall or error.
@Suite("hlsi validate and hlsi play on the stitched form")
struct StitchedCLITests {
    /// The events of a `--json` trace named `name`.
    static func events(_ trace: [[String: Any]], _ name: String) -> [[String: Any]] {
        trace.filter { $0["event"] as? String == name }
    }

    /// The text of `url`.
    static func text(_ url: String) async throws -> String {
        let request = try #require(URL(string: url))
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, _, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: data ?? Data())
                }
            }.resume()
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("stitched VOD: validate --media is clean; play plays the ads as primary, to the stitched end")
    func vod() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let master = base + "/demo/vod/master.m3u8?ads=stitched&session=cli-stitched"
        let validate = try await CLITests.run(["validate", "--media", master])
        #expect(validate.status == 0, "\(validate.standardOutput)\n\(validate.standardError)")
        #expect(validate.standardError.contains("0 errors, 0 warnings"), "\(validate.standardError)")
        #expect(validate.standardError.contains("3 media playlists"), "\(validate.standardError)")

        // What the session's video playlist lists: the ads through /stitched/, between discontinuities.
        let video = try await Self.text(base + "/demo/vod/video/main.m3u8?ads=stitched&session=cli-stitched")
        let durations = video.split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("#EXTINF:") else { return nil }
            return Double(line.dropFirst(8).prefix { $0 != "," })
        }
        let segments = video.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        let adSegments = segments.filter { $0.contains("/stitched/") }
        #expect(!adSegments.isEmpty && adSegments.count < segments.count)
        let total = durations.reduce(0, +)

        let play = try await CLITests.run(["play", master, "--json", "--media"])
        #expect(play.status == 0, "\(play.standardError)")
        let trace = try PlayCLITests.objects(play.standardOutput)
        // No interstitial: the ads are primary content.
        #expect(Self.events(trace, "interstitialStarted").isEmpty)
        #expect(Self.events(trace, "eventsChanged").allSatisfy { $0["count"] as? Int == 0 })
        for name in ["stalled", "warning", "error"] {
            #expect(Self.events(trace, name).isEmpty, "\(name): \(Self.events(trace, name))")
        }
        // It plays to the end of the stitched timeline (primary and ads), not of the primary alone.
        let ended = try #require(Self.events(trace, "ended").first?["primaryTime"] as? Double)
        #expect(abs(ended - total) < 0.01, "ended at \(ended), the stitched playlist lasts \(total)")
        // Every segment, the ads' (redirected by the server) included, read with no error.
        let summary = try #require(Self.events(trace, "mediaSummary").first)
        #expect(summary["errors"] as? Int == 0, "\(summary)")
        #expect((summary["segments"] as? Int ?? 0) >= segments.count, "\(summary)")
    }

    @Test("stitched live through a break: validate --watch is clean over reloads; play reads the ads with no error")
    func live() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        // A break that started a moment ago (on the server's real clock: live) and lasts ten
        // minutes: every window below has ads in it, however slow the machine runs the steps.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let start = formatter.string(from: Date().addingTimeInterval(-3))
        let body = #"{"id":"cli-live","target":"live/demo","date":"\#(start)","duration":600}"#
        let created = try await CLITests.run([
            "admin", "create", "break", "--json", body, "--server", base, "--token", "cli-token",
        ])
        #expect(created.status == 0, "\(created.standardError)")

        let query = "?ads=stitched&session=cli-live"
        for name in ["video", "audio-en"] {
            let url = base + "/demo/live/\(name)/main.m3u8" + query
            #expect(try await Self.text(url).contains("/stitched/"), "\(name): the window has the viewer's ads")
            let watch = try await CLITests.run(["validate", "--watch", "3", "--interval", "1", url])
            #expect(watch.status == 0, "\(name): \(watch.standardOutput)\n\(watch.standardError)")
            #expect(watch.standardError.contains("0 errors, 0 warnings"), "\(name): \(watch.standardError)")
        }

        let play = try await CLITests.run([
            "play", base + "/demo/live/master.m3u8" + query, "--json", "--media", "--duration", "4",
        ])
        #expect(play.status == 0, "\(play.standardError)")
        let trace = try PlayCLITests.objects(play.standardOutput)
        #expect(Self.events(trace, "interstitialStarted").isEmpty)
        for name in ["warning", "error"] {
            #expect(Self.events(trace, name).isEmpty, "\(name): \(Self.events(trace, name))")
        }
        let summary = try #require(Self.events(trace, "mediaSummary").first)
        #expect(summary["errors"] as? Int == 0, "\(summary)")
        #expect((summary["segments"] as? Int ?? 0) > 0, "\(summary)")
    }

    @Test("stitched VOD with a wvtt subtitle rendition in fMP4: validate --media is clean")
    func fMP4Subtitles() async throws {
        // The demo's primary with the fMP4 subtitle rendition of Tests/Fixtures/subtitles-fmp4, its
        // ads, a pre-roll and a mid-roll.
        let files = FileManager.default
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let demo = tests.deletingLastPathComponent().appendingPathComponent("Sources/InterstitialServer/Resources/demo")
        let work = files.temporaryDirectory.appendingPathComponent("hlsi-fmp4-subtitles-\(UUID().uuidString)")
        defer { try? files.removeItem(at: work) }
        let primary = work.appendingPathComponent("primary")
        try files.createDirectory(at: work, withIntermediateDirectories: true)
        try files.copyItem(at: demo.appendingPathComponent("primary"), to: primary)
        try files.removeItem(at: primary.appendingPathComponent("master.m3u8"))
        try files.copyItem(
            at: tests.appendingPathComponent("Fixtures/subtitles/master.m3u8"),
            to: primary.appendingPathComponent("master.m3u8"))
        try files.copyItem(
            at: tests.appendingPathComponent("Fixtures/subtitles-fmp4/subs-en"),
            to: primary.appendingPathComponent("subs-en"))
        let config = work.appendingPathComponent("config.json")
        let json = """
            {"adminToken": "cli-token-for-the-fmp4-subtitles-check-0123",
             "database": "\(work.appendingPathComponent("state.sqlite").path)", "creativeCache": null,
             "vod": [{"id": "subs", "directory": "primary"}], "ads": "\(demo.appendingPathComponent("ads").path)",
             "seed": {"inventory": [{"id": "ad1", "uri": "/ads/ad1/master.m3u8", "duration": 6},
                                    {"id": "ad2", "uri": "/ads/ad2/master.m3u8", "duration": 4}],
                      "breaks": [{"id": "pre", "target": "vod/subs", "cue": ["PRE"], "duration": 6,
                                  "resumeOffset": 0, "ad": "ad1"},
                                 {"id": "mid", "target": "vod/subs", "at": 12, "duration": 4,
                                  "resumeOffset": 0, "ad": "ad2"}]}}
            """
        try Data(json.utf8).write(to: config)
        let (server, base, log) = try await ServeCLITests.startServer([
            "serve", "--config", config.path, "--port", "0",
        ])
        defer {
            if server.isRunning { server.terminate() }
            try? files.removeItem(at: log)
        }
        let query = "?ads=stitched&session=cli-fmp4-subtitles"
        let subtitles = try await Self.text(base + "/vod/subs/subs-en/main.m3u8" + query)
        #expect(subtitles.contains("/stitched/empty.m4s?format=wvtt"), "\(subtitles)")
        let validate = try await CLITests.run(["validate", "--media", base + "/vod/subs/master.m3u8" + query])
        #expect(validate.status == 0, "\(validate.standardOutput)\n\(validate.standardError)")
        #expect(validate.standardError.contains("0 errors, 0 warnings"), "\(validate.standardError)")
        #expect(validate.standardError.contains("4 media playlists"), "\(validate.standardError)")
    }
}
