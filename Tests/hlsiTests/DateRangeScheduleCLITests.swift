import Foundation
import Testing

/// Date Range Schedules on the command line (issue 35, profile R27): `schedule`, `timeline`,
/// `inspect --schedules` and `validate` follow a schedule tag's JSON document.
@Suite("hlsi and Date Range Schedules")
struct DateRangeScheduleCLITests {
    static let measured = "Tests/Fixtures/schedules/measured.m3u8"
    static let bad = "Tests/Fixtures/schedules/bad.m3u8"

    static let goldenCases: [CLITests.GoldenCase] = [
        .init(arguments: ["schedule", measured], golden: "schedule-daterange-schedule.txt", status: 0),
        .init(arguments: ["schedule", "--json", measured], golden: "schedule-daterange-schedule.json", status: 0),
        .init(
            arguments: ["timeline", "--ansi", "--width", "60", measured], golden: "timeline-daterange-schedule.txt",
            status: 0),
        .init(arguments: ["inspect", "--schedules", measured], golden: "inspect-daterange-schedule.txt", status: 0),
        .init(
            arguments: ["inspect", "--schedules", "--json", bad], golden: "inspect-daterange-schedule-bad.json",
            status: 0),
        .init(arguments: ["validate", bad], golden: "validate-daterange-schedule.txt", status: 1),
        .init(
            arguments: ["validate", "--recursive", bad], golden: "validate-daterange-schedule-recursive.txt",
            status: 1),
    ]

    @Test("golden output and exit status", arguments: goldenCases)
    func goldenOutput(_ testCase: CLITests.GoldenCase) async throws { try await CLITests.check(testCase) }

    @Test("the measured case: schedule --resolve schedules the entry by offset and the one by date")
    func measuredCase() async throws {
        let run = try await CLITests.run(["schedule", "--resolve", "--json", Self.measured])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        let events = object?["events"] as? [[String: Any]] ?? []
        let summary = events.map { event in
            "\(event["id"] ?? "") \(event["start"] ?? "") \(event["scheduleIdentifier"] ?? "-") \(event["scheduled"] ?? "")"
        }
        #expect(summary == ["by-offset 10 breaks 1", "by-date 30 breaks 1", "plain 50 - 1"])
    }
}
