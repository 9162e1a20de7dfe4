import Foundation
import Testing

/// `hlsi validate --media` on the playlists of Tests/Fixtures/media-validation, which lie about the
/// fixture media of Tests/Fixtures/media (an EXTINF too long, a BANDWIDTH too low, INDEPENDENT-SEGMENTS
/// over a TS cut mid-GOP, fMP4 audio starting late).
@Suite("hlsi validate --media")
struct ValidateMediaCLITests {
    static func normalized(_ run: CLITests.Run) -> String {
        run.standardOutput + (run.standardError.isEmpty ? "" : "--- stderr\n" + run.standardError)
    }

    @Test("text: each media rule's diagnostic at its line, the table of what was measured, the counts")
    func text() async throws {
        let run = try await CLITests.run(["validate", "--media", "Tests/Fixtures/media-validation/master.m3u8"])
        #expect(run.status == 1, "\(run.standardError)")
        for rule in [
            "media-extinf", "media-key-frame", "media-av-offset", "media-bandwidth", "media-average-bandwidth",
        ] {
            #expect(run.standardOutput.contains("[\(rule)]"), "\(rule) missing")
        }
        #expect(run.standardOutput.contains("Tests/Fixtures/media-validation/lying.m3u8:7:1: warning: [media-extinf]"))
        #expect(run.standardOutput.contains("max |EXTINF-measured|"))
        #expect(run.standardError.contains("5 media segments"))
        try CLITests.golden("validate-media.txt", Self.normalized(run))
    }

    @Test("JSON: the diagnostics and every measurement, with --sample")
    func json() async throws {
        let run = try await CLITests.run([
            "validate", "--media", "--sample", "2", "--format", "json", "Tests/Fixtures/media-validation/lying.m3u8",
        ])
        #expect(run.status == 1)
        try CLITests.golden("validate-media.json", Self.normalized(run))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let media = try #require(object["media"] as? [String: Any])
        let playlists = try #require(media["playlists"] as? [[String: Any]])
        let segments = try #require(playlists.first?["segments"] as? [[String: Any]])
        #expect(segments.compactMap { $0["index"] as? Int } == [0, 2])
        #expect(media["sample"] as? Int == 2)
    }

    @Test("usage: --sample needs --media, --media cannot watch")
    func usage() async throws {
        let sample = try await CLITests.run(["validate", "--sample", "2", "Tests/Fixtures/media-validation/lying.m3u8"])
        #expect(sample.status == 2)
        #expect(sample.standardError.contains("--sample applies only with --media"))
        let watch = try await CLITests.run([
            "validate", "--media", "--watch", "2", "Tests/Fixtures/media-validation/lying.m3u8",
        ])
        #expect(watch.status == 2)
    }
}
