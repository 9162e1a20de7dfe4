import Foundation
import Testing

/// `hlsi play --start` after a PRE (issue 33, item 1): the mid-roll that covers the start point plays
/// from there once the PRE is over.
@Suite("hlsi play --start after a PRE")
struct PlayStartCLITests {
    @Test("R9, R26: a 15 s PRE, then the RANGE mid-roll over [24, 34) asked with _HLS_start_offset=6")
    func preThenCoveringMidRoll() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("play-start-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let asset = folder.appendingPathComponent("pre.m3u8")
        try
            "#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5.0,\na0.ts\n#EXTINF:5.0,\na1.ts\n#EXTINF:5.0,\na2.ts\n#EXT-X-ENDLIST\n"
            .write(to: asset, atomically: true, encoding: .utf8)
        var lines = [
            "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
            "#EXT-X-DATERANGE:ID=\"pre\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:00.000Z\","
                + "CUE=\"PRE,ONCE\",DURATION=15,X-ASSET-URI=\"\(asset.absoluteString)\"",
            "#EXT-X-DATERANGE:ID=\"mid\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:24.000Z\","
                + "DURATION=10,X-TIMELINE-OCCUPIES=\"RANGE\",X-ASSET-LIST=\"mid.json\"",
        ]
        for index in 0..<6 { lines += ["#EXTINF:10.0,", "s\(index).ts"] }
        let primary = folder.appendingPathComponent("main.m3u8")
        try (lines + ["#EXT-X-ENDLIST", ""]).joined(separator: "\n").write(
            to: primary, atomically: true, encoding: .utf8)
        let run = try await CLITests.run(["play", primary.path, "--start", "30", "--json", "--no-segments"])
        #expect(run.status == 0, "\(run.standardError)")
        let events = try PlayCLITests.objects(run.standardOutput)
        let started = events.filter { $0["event"] as? String == "interstitialStarted" }.compactMap {
            $0["id"] as? String
        }
        #expect(started == ["pre", "mid"])
        let list = events.first { $0["event"] as? String == "assetListRequested" }?["url"] as? String
        #expect(list?.hasSuffix("mid.json?_HLS_start_offset=6.000") == true)
    }
}
