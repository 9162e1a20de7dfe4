import Foundation
import Testing

/// `hlsi schedule --start` (issue 33, item 10): the schedule of playback that starts part way.
@Suite("hlsi schedule --start")
struct ScheduleStartCLITests {
    /// A VOD of six 10 s segments with a 10 s event at 20 s.
    static let playlist = """
        #EXTM3U
        #EXT-X-TARGETDURATION:10
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="mid",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:20.000Z",DURATION=10,X-ASSET-URI="https://a.example/mid.m3u8"
        #EXTINF:10.0,
        s0.ts
        #EXTINF:10.0,
        s1.ts
        #EXTINF:10.0,
        s2.ts
        #EXTINF:10.0,
        s3.ts
        #EXTINF:10.0,
        s4.ts
        #EXTINF:10.0,
        s5.ts
        #EXT-X-ENDLIST

        """

    /// The events' `id playoutDuration` of `hlsi schedule --json` with these options.
    static func playouts(_ options: [String]) async throws -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-start-\(UUID()).m3u8")
        try Self.playlist.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await CLITests.run(["schedule", "--json"] + options + [file.path])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        let events = object?["events"] as? [[String: Any]] ?? []
        return events.map { "\($0["id"] ?? "") \($0["playoutDuration"] ?? "")" }
    }

    @Test("--start inside an event plays its rest (R26); without it, all of it")
    func startInside() async throws {
        #expect(try await Self.playouts([]) == ["mid 10"])
        #expect(try await Self.playouts(["--start", "24"]) == ["mid 6"])
    }

    @Test("--start 8 after a PRE: the PRE first, then primary from 8, 9 s of playout (R9, R21, issue 46)")
    func preThenPrimaryFromStart() async throws {
        let playlist = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="pre",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:00.000Z",CUE="PRE",DURATION=5,X-RESUME-OFFSET=0,X-ASSET-URI="https://a.example/pre.m3u8"
            #EXTINF:6.0,
            s0.ts
            #EXTINF:6.0,
            s1.ts
            #EXT-X-ENDLIST

            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-pre-\(UUID()).m3u8")
        try playlist.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await CLITests.run(["schedule", "--json", "--start", "8", file.path])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        let items = (object?["items"] as? [[String: Any]] ?? []).map { item in
            let span = (item["primary"] as? [Double] ?? []).map { String($0) }.joined(separator: "-")
            return "\(item["id"] ?? "primary") \(span)"
        }
        #expect(items == ["pre 8.0-8.0", "primary 8.0-12.0"])
        let durations = object?["durations"] as? [String: Any]
        #expect(durations?["playout"] as? Double == 9)
    }

    @Test("--start refuses a negative time")
    func negative() async throws {
        let run = try await CLITests.run(["schedule", "--start=-1", "Tests/Fixtures/playlists/interstitials-vod.m3u8"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("--start must be a non-negative number"))
    }
}
