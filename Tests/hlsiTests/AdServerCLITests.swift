import Foundation
import Testing

/// `hlsi serve --demo` filling its breaks from a VAST ad server (the Python one of the end-to-end
/// suite, `E2E/ad_server.py`), and `hlsi play` firing the ads' tracking beacons at it.
@Suite("hlsi serve with a VAST ad server, played by hlsi play")
struct AdServerCLITests {
    /// Runs `E2E/ad_server.py` (media from `mediaBase`) while `body` runs with its origin and the
    /// file it logs every request to.
    static func withAdServer(mediaBase: String, _ body: (String, URL) async throws -> Void) async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-ads-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        try await CLITests.withPython(["E2E/ad_server.py", mediaBase, log.path]) { line in
            let port = try #require(
                line.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) },
                "the ad server did not start: \(line)")
            try await body("http://127.0.0.1:\(port)", log)
        }
    }

    @Test("every ad played hears impression, start, the quartiles and complete, once each, from hlsi play")
    func beaconsReachTheAdServer() async throws {
        let (server, base, serverLog) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: serverLog)
        }
        try await Self.withAdServer(mediaBase: base) { adServer, log in
            let common = ["--server", base, "--token", "cli-token"]
            let schedule = """
                {"target":"vod/demo","adServer":{"vast":"\(adServer)/vast?brk=[BREAKID]&dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]"}}
                """
            let created = try await CLITests.run(["admin", "create", "schedule", "--json", schedule] + common)
            #expect(created.status == 0, "\(created.standardError)")
            let run = try await CLITests.run(["play", base + "/demo/vod/master.m3u8", "--json", "--no-segments"])
            #expect(run.status == 0, "\(run.standardError)")
            let events = try PlayCLITests.objects(run.standardOutput)
            let requests = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
            // One VAST request per break the server fills (midroll-1 and the post-roll have fixed
            // ads), with its macros.
            let vast = requests.filter { $0.hasPrefix("/vast?") }
            #expect(vast.compactMap { Self.parameter("brk", in: $0) }.sorted() == ["midroll-2", "preroll"])
            #expect(vast.allSatisfy { Self.parameter("dur", in: $0) != nil && Self.parameter("sid", in: $0) != nil })
            // The pod is ad2 (4 s), ad3 (6 s), ad1 (6 s): the 6 s preroll has room for ad2, midroll-2
            // (10 s) for ad2 and ad3.
            let played = ["preroll/ad2", "midroll-2/ad2", "midroll-2/ad3"]
            let types = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
            let beacons = requests.filter { $0.hasPrefix("/t/") }.map { String($0.dropFirst(3)) }
            let expected = played.flatMap { pair in types.map { "\(pair)/\($0)" } }
            #expect(beacons.sorted() == expected.sorted(), "\(beacons)")
            // The trace says so too, each with the ad server's answer.
            let sent = events.filter { $0["event"] as? String == "beaconSent" }
            #expect(sent.count == expected.count)
            #expect(sent.allSatisfy { $0["error"] == nil }, "\(sent)")
        }
    }

    static func parameter(_ name: String, in uri: String) -> String? {
        URLComponents(string: uri)?.queryItems?.first { $0.name == name }?.value
    }
}
