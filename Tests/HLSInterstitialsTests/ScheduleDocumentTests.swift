import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

/// The schedule document (`timeline.json`, `hlsi schedule --json`) carries the groups the schedule
/// decided, so that a player (the demo page's controller) reads them instead of regrouping items.
@Suite("Schedule document")
struct ScheduleDocumentTests {
    /// Where each local conformance vector's document is kept: the demo page's controller plays it
    /// in node (Tests/Page/conformance.test.mjs). `HLSI_UPDATE_GOLDEN=1` rewrites them.
    static let goldens = Sample.fixtures.appendingPathComponent("golden/schedule-documents")

    /// The vectors of `Tests/Fixtures/conformance` (not the shared ones: they have no golden).
    static func localVectors() -> [ScheduleVector] {
        let local = Set(
            (try? FileManager.default.contentsOfDirectory(
                atPath: Sample.fixtures.appendingPathComponent("conformance").path)) ?? [])
        return ScheduleVector.all().filter { local.contains($0.name + ".json") }
    }

    @Test("each conformance vector's document is the golden the page's node test plays", arguments: localVectors())
    func golden(_ vector: ScheduleVector) throws {
        let json = try ConformanceTests.schedule(vector).jsonDocument
        let url = Self.goldens.appendingPathComponent(vector.name + ".json")
        if ProcessInfo.processInfo.environment["HLSI_UPDATE_GOLDEN"] == "1" {
            try json.write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(json == (try String(contentsOf: url, encoding: .utf8)), "golden \(url.lastPathComponent) differs")
    }

    @Test("groups list the schedule's groups: members, start, resumption, playout length, cue, integrated start")
    func groups() throws {
        let vector = try #require(Self.localVectors().first { $0.name == "back-to-back-same-start" })
        let schedule = try ConformanceTests.schedule(vector)
        let document = ScheduleDocument(schedule)
        #expect(document.groups.count == schedule.groups.count)
        let group = try #require(document.groups.first)
        #expect(group.members == ["ad1", "ad2"])
        #expect(group.start == 5 && group.resumeTime == 5 && group.playoutDuration == 20)
        #expect(group.cue == nil && group.scheduled && group.integrated == 5)

        let prePost = try #require(Self.localVectors().first { $0.name == "pre-and-post-roll" })
        let cues = ScheduleDocument(try ConformanceTests.schedule(prePost)).groups.map(\.cue)
        #expect(cues == ["PRE", "POST"])
    }

    @Test("the streaming writer gives JSONEncoder's bytes for groups too")
    func writer() throws {
        for vector in Self.localVectors() {
            let document = ScheduleDocument(try ConformanceTests.schedule(vector))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let encoded = String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
            #expect(document.json == encoded, "\(vector.name)")
            #expect(try JSONDecoder().decode(ScheduleDocument.self, from: Data(document.json.utf8)) == document)
        }
    }
}
