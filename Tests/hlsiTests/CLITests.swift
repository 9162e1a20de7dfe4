import Foundation
import Testing

/// Runs the built `hlsi` binary and compares its output with golden files
/// (`Tests/Fixtures/golden`). Set `HLSI_UPDATE_GOLDEN=1` to rewrite them.
@Suite("hlsi command line")
struct CLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let packageRoot = fixtures.deletingLastPathComponent().deletingLastPathComponent()

    struct Run {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static var executable: URL {
        // The test bundle sits in the build products folder, next to `hlsi`.
        let products = Bundle.main.bundleURL
        let candidates = [
            products.appendingPathComponent("hlsi"),
            products.deletingLastPathComponent().appendingPathComponent("hlsi"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }

    static func golden(_ name: String, _ actual: String) throws {
        let url = fixtures.appendingPathComponent("golden/\(name)")
        if ProcessInfo.processInfo.environment["HLSI_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "golden file \(name) differs")
    }

    struct GoldenCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var golden: String
        var status: Int32
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let goldenCases: [GoldenCase] = [
        GoldenCase(
            arguments: ["inspect", "Tests/Fixtures/playlists/interstitials-vod.m3u8"],
            golden: "inspect-interstitials.txt", status: 0),
        GoldenCase(
            arguments: ["inspect", "Tests/Fixtures/playlists/multivariant-full.m3u8"],
            golden: "inspect-multivariant.txt", status: 0),
        GoldenCase(
            arguments: ["inspect", "Tests/Fixtures/playlists/ll-hls-live.m3u8"], golden: "inspect-ll-hls.txt", status: 0
        ),
        GoldenCase(
            arguments: ["inspect", "--json", "Tests/Fixtures/playlists/vod-basic.m3u8"],
            golden: "inspect-vod-basic.json", status: 0),
        GoldenCase(
            arguments: ["inspect", "Tests/Fixtures/invalid/attribute-syntax.m3u8"],
            golden: "inspect-attribute-syntax.txt", status: 1),
    ]

    @Test("golden output and exit status", arguments: goldenCases)
    func goldenOutput(_ testCase: GoldenCase) throws {
        let run = try Self.run(testCase.arguments)
        #expect(run.status == testCase.status, "\(run.standardError)")
        try Self.golden(
            testCase.golden, run.standardOutput + (run.standardError.isEmpty ? "" : "--- stderr\n" + run.standardError))
    }

    @Test("usage errors exit 2 with a message; --help exits 0")
    func usage() throws {
        let noArguments = try Self.run(["inspect"])
        #expect(noArguments.status == 2)
        #expect(noArguments.standardError.contains("Missing expected argument"))
        let unknown = try Self.run(["inspect", "--bogus", "x"])
        #expect(unknown.status == 2)
        let badValue = try Self.run(["generate", "vod", "--segments", "-3"])
        #expect(badValue.status == 2)
        let help = try Self.run(["inspect", "--help"])
        #expect(help.status == 0)
        #expect(
            help.standardOutput.contains("Exit codes: 0 no errors, 1 the playlist has errors, 2 usage or I/O failure."))
    }

    @Test("I/O failures exit 2; content that is not a playlist exits 1")
    func failures() throws {
        let missing = try Self.run(["inspect", "Tests/Fixtures/playlists/none.m3u8"])
        #expect(missing.status == 2)
        #expect(
            missing.standardError == "Tests/Fixtures/playlists/none.m3u8: error: [load-file-unreadable] no such file\n")
        let notPlaylist = try Self.run(["inspect", "README.md"])
        #expect(notPlaylist.status == 1)
        #expect(notPlaylist.standardError.contains("[load-not-a-playlist]"))
        let refused = try Self.run(["inspect", "http://127.0.0.1:9/a.m3u8"])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("[load-network]"))
    }

    @Test("generate writes playlists that inspect cleanly")
    func generate() throws {
        let run = try Self.run(["generate", "vod", "--segments", "300", "--interstitial-every", "100"])
        #expect(run.status == 0)
        #expect(run.standardOutput.components(separatedBy: "#EXT-X-DATERANGE").count == 4)
        let live = try Self.run(["generate", "live", "--hours", "0.1"])
        #expect(live.standardOutput.contains("#EXT-X-PRELOAD-HINT"))
    }
}
