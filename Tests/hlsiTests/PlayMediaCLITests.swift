import Foundation
import Testing

/// `hlsi play --media` against a real `hlsi serve --demo` process.
@Suite("hlsi play --media")
struct PlayMediaCLITests {
    @Test("the demo VOD: a media transition per track at each change of source, and a summary without errors")
    func demoVOD() async throws {
        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let run = try await CLITests.run(["play", base + "/demo/vod/master.m3u8", "--json", "--media"])
        #expect(run.status == 0, "\(run.standardError)")
        let events = try PlayCLITests.objects(run.standardOutput)
        #expect(events.contains { $0["event"] as? String == "interstitialStarted" })
        let transitions = events.filter { $0["event"] as? String == "mediaTransition" }
        // The demo's audio is a separate rendition, loaded with the video: one line per change of
        // source for each track. Each event loads its assets itself, so an ad that plays again in a
        // later break is measured there too: every break after the preroll starts with a
        // primary→interstitial line.
        let video = transitions.filter { $0["track"] as? String == "video" }
        let audio = transitions.filter { $0["track"] as? String == "audio" }
        let started = events.filter { $0["event"] as? String == "interstitialStarted" }.compactMap {
            $0["id"] as? String
        }
        let entered = video.filter { $0["transition"] as? String == "primary→interstitial" }.compactMap {
            ($0["to"] as? String)?.split(separator: "#").first.map(String.init)
        }
        #expect(started.count >= 3)
        #expect(Array(started.dropFirst()) == entered)
        let pairs = { (lines: [[String: Any]]) in lines.map { "\($0["from"] ?? "")→\($0["to"] ?? "")" } }
        #expect(pairs(audio) == pairs(video))
        // The demo's AAC frames (1024 samples at 48 kHz, 21.3 ms) do not end on the 2 s segment
        // boundaries: at most a frame of overlap or gap, never more.
        for line in audio {
            #expect(abs(line["gapMs"] as? Double ?? 100) < 21.4, "\(line)")
        }
        for line in video {
            #expect(line["gapMs"] is Double, "\(line)")
            #expect(["gap", "overlap", "aligned"].contains(line["result"] as? String ?? ""), "\(line)")
        }
        let kinds = Set(video.compactMap { $0["transition"] as? String })
        #expect(kinds.contains("primary→interstitial"))
        #expect(kinds.contains("interstitial→primary"))
        // The demo's midroll-2 is a pod of two ads.
        #expect(kinds.contains("asset→asset"))
        let summary = try #require(events.last { $0["event"] as? String == "mediaSummary" })
        #expect(summary["errors"] as? Int == 0)
        #expect((summary["segments"] as? Int ?? 0) > 0)
        #expect(summary["transitions"] as? Int == video.count)

        let text = try await CLITests.run(["play", base + "/demo/vod/master.m3u8", "--media"])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("mediaTransition"))
        #expect(text.standardOutput.contains("mediaSummary"))
    }

    @Test("--media needs the segments: with --no-segments it is a usage error")
    func usage() async throws {
        let run = try await CLITests.run(["play", "http://127.0.0.1:9/x.m3u8", "--media", "--no-segments"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("--media"))
    }
}
