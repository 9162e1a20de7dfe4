import Foundation
import Testing

/// Hostile and careless command lines: every one ends with a clear message and exit status, never a
/// crash (a signal), whatever the numbers or the playlist (issue "Security and robustness").
@Suite("hlsi robustness")
struct CLIRobustnessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        /// The exit status expected.
        var status: Int32
        /// Text the standard error must contain.
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let hostile = "Tests/Fixtures/hostile/"

    static let cases: [Case] = [
        Case(
            arguments: ["inspect", "--limit=-1", "Tests/Fixtures/playlists/vod-basic.m3u8"], status: 2,
            message: "--limit"),
        Case(
            arguments: [
                "validate", "Tests/Fixtures/playlists/ll-hls-live.m3u8", "--watch", "1", "--interval", "1e300",
            ],
            status: 2, message: "--interval"),
        Case(
            arguments: ["validate", "Tests/Fixtures/playlists/ll-hls-live.m3u8", "--watch", "1", "--interval", "nan"],
            status: 2, message: "--interval"),
        Case(arguments: ["generate", "vod", "--segments", "1000000000000"], status: 2, message: "--segments"),
        Case(arguments: ["generate", "vod", "--interstitial-every", "-1"], status: 2, message: "--interstitial-every"),
        Case(arguments: ["generate", "live", "--hours", "inf"], status: 2, message: "--hours"),
        Case(arguments: ["play", "x.m3u8", "--start", "1e300"], status: 2, message: "--start"),
        Case(arguments: ["play", "x.m3u8", "--lookahead", "-inf"], status: 2, message: "--lookahead"),
        // A playlist that is valid but whose durations reach the end of the time range.
        Case(arguments: ["schedule", hostile + "huge-duration.m3u8"], status: 0, message: ""),
        Case(arguments: ["schedule", "--json", hostile + "huge-duration.m3u8"], status: 0, message: ""),
        Case(arguments: ["timeline", "--ansi", hostile + "huge-duration.m3u8"], status: 0, message: ""),
        // A quote or CR inside a quoted-string value is an error, reported where it is.
        Case(arguments: ["validate", hostile + "quote-in-quoted.m3u8"], status: 1, message: "quote-in-quoted.m3u8:5:"),
    ]

    @Test("hostile arguments and playlists end with a message and an exit status, never a crash", arguments: cases)
    func hostileCommandLines(_ testCase: Case) async throws {
        let run = try await CLITests.run(testCase.arguments)
        #expect(run.status == testCase.status, "\(run.standardError)")
        let output = run.standardOutput + run.standardError
        #expect(testCase.message.isEmpty || output.contains(testCase.message), "\(run.standardError)")
    }

    @Test("insert --attr refuses a value that would break the line grammar (tag injection)")
    func insertInjection() async throws {
        for value in ["X-EVIL=a\"\n#EXTINF:2,\nhttp://evil.invalid/seg.m4s\n#X:\"b", "X-EVIL=a\",DURATION=999,X-Z=\"b"]
        {
            let run = try await CLITests.run([
                "insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--id", "ad", "--at", "2", "--asset-uri",
                "https://ads.example.com/ad.m3u8", "--attr", value,
            ])
            #expect(run.status == 2, "\(run.standardOutput)")
            #expect(run.standardError.contains("--attr"), "\(run.standardError)")
            #expect(!run.standardOutput.contains("evil.invalid"))
            #expect(!run.standardOutput.contains("DURATION=999"))
        }
    }

    @Test("10,000 duplicate attributes on one tag: bounded output, the count said once")
    func duplicateAttributes() async throws {
        let tag =
            "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2020-01-01T00:00:00Z\""
            + String(repeating: ",DURATION=1", count: 10_000)
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n" + tag + "\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-duplicates-\(UUID()).m3u8")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        for command in ["inspect", "validate"] {
            let run = try await CLITests.run([command, url.path])
            #expect(run.status == 1)
            // The input is 110 KB; what is said about it stays a small multiple of one line's window.
            #expect(run.standardError.utf8.count + run.standardOutput.utf8.count < 64 * 1024, "\(command)")
            #expect((run.standardOutput + run.standardError).contains("attribute-duplicate"))
        }
    }
}

extension CLIRobustnessTests {
    @Test("a binary file is reported without raw control bytes (terminal escapes) in the message")
    func binaryInputIsEscaped() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-binary-\(UUID())")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0x1B, 0x5B, 0x32, 0x4A, 0x00, 0x07, 0x0A, 0x0D, 0x09]).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let run = try await CLITests.run(["inspect", url.path])
        #expect(run.status == 1)
        #expect(run.standardError.contains("load-not-a-playlist"))
        #expect(run.standardError.contains(#"\u{1B}[2J"#), "\(run.standardError)")
        let controls = run.standardError.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" }
        #expect(controls.isEmpty, "raw control characters: \(controls.map(\.value))")
    }
}
