import Foundation
import Testing

/// Issue 16, "CLI polish": input never drives the terminal, network failures are worded for people,
/// defaults are shown once, `--format json`/`--json` print JSON whatever happens, `insert --in`
/// takes a media playlist, and `validate --recursive` says what it checked.
@Suite("hlsi output: escaped echoes, worded failures, help defaults, insert --in, validate summaries")
struct CLIPolishTests {
    /// The control characters (other than the line feed) in `text`.
    static func controls(_ text: String) -> [UInt32] {
        text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }.map(\.value)
    }

    /// A directory for one test, removed afterwards by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-polish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: Control characters

    /// A media playlist whose interstitial ID, class-free date range ID and asset URI carry terminal
    /// escapes (clear screen, set title), a bell and a tab.
    static let hostilePlaylist =
        "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        + "#EXT-X-DATERANGE:ID=\"ad\u{1B}[2J\u{07}\",CLASS=\"com.apple.hls.interstitial\","
        + "START-DATE=\"2026-01-01T00:00:06.000Z\",DURATION=5,"
        + "X-ASSET-URI=\"https://ads.example.com/\u{1B}]0;owned\u{07}.m3u8\"\n"
        + "#EXT-X-DATERANGE:ID=\"tab\there\",START-DATE=\"2026-01-01T00:00:01.000Z\"\n"
        + "#EXTINF:6.000,\ns0.ts\n#EXTINF:6.000,\ns1.ts\n#EXT-X-ENDLIST\n"

    static let echoingCommands: [[String]] = [
        ["inspect"], ["validate"], ["validate", "--recursive", "--verbose"], ["schedule"], ["timeline", "--ansi"],
        ["insert", "--id", "x\u{1B}[31m", "--at", "1", "--asset-uri", "ad.m3u8\u{1B}[2J"],
        ["insert", "--id", "x", "--at", "1", "--asset-uri", "https://a.example/x.m3u8", "--date", "\u{1B}[2J"],
    ]

    @Test("commands that echo a playlist's text escape its control characters", arguments: echoingCommands)
    func controlCharactersEscaped(_ command: [String]) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("hostile.m3u8")
        try Data(Self.hostilePlaylist.utf8).write(to: file)
        // insert refuses a playlist with errors before it reads the request: give it a clean one.
        let input = command[0] == "insert" ? "Tests/Fixtures/playlists/vod-basic.m3u8" : file.path
        let run = try await CLITests.run(command + [input])
        #expect(run.status != 0 || command[0] != "insert")
        let output = run.standardOutput + run.standardError
        #expect(Self.controls(output).isEmpty, "\(command): raw control characters \(Self.controls(output))")
        // The escape is shown escaped, or named by its code point.
        #expect(output.contains(#"\u{1B}"#) || output.contains("U+001B"), "\(command): \(output)")
    }

    @Test("a binary file (an ELF header) is reported with its bytes escaped, text and JSON")
    func binaryFile() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("binary")
        var bytes: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x1B, 0x5B, 0x32, 0x4A, 0x9B, 0xC2, 0x9B]
        bytes += (0..<64).map { UInt8($0 * 4 & 0xFF) }
        try Data(bytes).write(to: file)
        for command in [["inspect"], ["validate"], ["schedule"], ["timeline", "--ansi"], ["inspect", "--json"]] {
            let run = try await CLITests.run(command + [file.path])
            #expect(run.status == 1, "\(command)")
            let output = run.standardOutput + run.standardError
            #expect(Self.controls(output).isEmpty, "\(command): \(Self.controls(output))")
            #expect(output.contains("load-not-a-playlist"), "\(command): \(output)")
        }
    }

    // MARK: Network failures

    @Test("a refused connection is worded as such, with the host and port")
    func refusedConnection() async throws {
        let run = try await CLITests.run(["validate", "http://127.0.0.1:1/x"])
        #expect(run.status == 2)
        #expect(
            run.standardError
                == "http://127.0.0.1:1/x: error: [load-network] connection refused by 127.0.0.1:1: nothing listens there\n"
        )
        #expect(!run.standardError.contains("errno"))
    }

    // MARK: Help

    static let subcommands = [
        "inspect", "validate", "insert", "schedule", "timeline", "generate", "serve", "admin", "play", "handoff",
        "rules",
    ]

    @Test("--help shows each default once (the parser adds \"(default: …)\" itself)", arguments: subcommands)
    func defaultsShownOnce(_ command: String) async throws {
        let run = try await CLITests.run([command, "--help"])
        #expect(run.status == 0)
        let text = run.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        // A "(default …)" of the help text right before the parser's own "(default: …)".
        let doubled = text.range(of: #"\(default[^)]*\)\.? \(default: "#, options: .regularExpression)
        #expect(doubled == nil, "\(command): \(doubled.map { String(text[$0]) } ?? "")")
        if command == "admin" {
            #expect(text.components(separatedBy: "http://127.0.0.1:8080").count == 2, "\(text)")
        }
    }

    // MARK: JSON always

    struct JSONCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var rule: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let jsonFailures: [JSONCase] = [
        JSONCase(
            arguments: ["validate", "--format", "json", "Tests/Fixtures/playlists/none.m3u8"], status: 2,
            rule: "load-file-unreadable"),
        JSONCase(
            arguments: ["validate", "--format", "json", "Tests/Fixtures/insert-schedule.json"], status: 1,
            rule: "load-not-a-playlist"),
        JSONCase(
            arguments: ["validate", "--format", "json", "--recursive", "http://127.0.0.1:1/x"], status: 2,
            rule: "load-network"),
        JSONCase(
            arguments: ["validate", "--format", "json", "--watch", "1", "Tests/Fixtures/playlists/none.m3u8"],
            status: 2, rule: "load-file-unreadable"),
        JSONCase(
            arguments: ["inspect", "--json", "Tests/Fixtures/playlists/none.m3u8"], status: 2,
            rule: "load-file-unreadable"),
        JSONCase(arguments: ["inspect", "--json", "http://127.0.0.1:1/x"], status: 2, rule: "load-network"),
        JSONCase(
            arguments: ["schedule", "--json", "Tests/Fixtures/insert-schedule.json"], status: 1,
            rule: "load-not-a-playlist"),
        JSONCase(arguments: ["schedule", "--json", "http://127.0.0.1:1/x"], status: 2, rule: "load-network"),
        JSONCase(
            arguments: ["schedule", "--json", "--resolve", "Tests/Fixtures/playlists/none.m3u8"], status: 2,
            rule: "load-file-unreadable"),
    ]

    /// The same command on a playlist that loads.
    static func working(_ arguments: [String]) -> [String] {
        Array(arguments.dropLast()) + ["Tests/Fixtures/playlists/interstitials-vod.m3u8"]
    }

    @Test(
        "--format json / --json print JSON with the keys of a normal report when loading fails", arguments: jsonFailures
    )
    func jsonOnFailure(_ testCase: JSONCase) async throws {
        let run = try await CLITests.run(testCase.arguments)
        #expect(run.status == testCase.status, "\(run.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any],
            "no JSON: \(run.standardOutput)")
        let normal = try await CLITests.run(Self.working(testCase.arguments))
        let normalObject = try #require(
            try JSONSerialization.jsonObject(with: Data(normal.standardOutput.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Set(normalObject.keys))
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?["rule"] as? String == testCase.rule)
        #expect(diagnostics.first?["severity"] as? String == "error")
        #expect(
            Set(diagnostics.first?.keys.map { $0 } ?? []) == ["severity", "rule", "file", "line", "column", "message"])
    }

    // MARK: insert --in

    static let insertOptions = [
        "--id", "ad1", "--at", "10", "--asset-uri", "https://ads.example.com/ad1/main.m3u8", "--duration", "15",
        "--restrict", "SKIP,JUMP", "--resume-offset", "-2.5", "--cue", "ONCE", "--attr", "X-COM-EXAMPLE-BEACON=123",
    ]

    @Test("insert --in MEDIA does what the positional form does")
    func insertInMedia() async throws {
        let positional = try await CLITests.run(
            ["insert", "Tests/Fixtures/playlists/vod-basic.m3u8"] + Self.insertOptions)
        #expect(positional.status == 0)
        let option = try await CLITests.run(
            ["insert", "--in", "Tests/Fixtures/playlists/vod-basic.m3u8"] + Self.insertOptions)
        #expect(option.status == 0, "\(option.standardError)")
        #expect(option.standardOutput == positional.standardOutput)
        try CLITests.golden("insert-vod-basic.m3u8", option.standardOutput)

        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = directory.appendingPathComponent("one.m3u8")
        let toFile = try await CLITests.run(
            ["insert", "--in", "Tests/Fixtures/playlists/vod-basic.m3u8", "--output", written.path] + Self.insertOptions
        )
        #expect(toFile.status == 0, "\(toFile.standardError)")
        #expect(try String(contentsOf: written, encoding: .utf8) == positional.standardOutput)
    }

    @Test("insert --in MEDIA --out DIR writes the playlist and copies its media")
    func insertInMediaTree() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await CLITests.run(
            [
                "insert", "--in", "Tests/Fixtures/presentation/video/prog.m3u8", "--out", directory.path, "--schedule",
                "Tests/Fixtures/insert-schedule.json",
            ])
        #expect(run.status == 0, "\(run.standardError)")
        let text = try String(contentsOf: directory.appendingPathComponent("prog.m3u8"), encoding: .utf8)
        #expect(text.components(separatedBy: "#EXT-X-DATERANGE").count == 3)
        for file in ["init.mp4", "s0.m4s", "s1.m4s", "s2.m4s"] {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path), "\(file)")
        }
        let master = try await CLITests.run([
            "insert", "--in", "Tests/Fixtures/presentation/master.m3u8", "--schedule",
            "Tests/Fixtures/insert-schedule.json",
        ])
        #expect(master.status == 2)
        #expect(master.standardError.contains("--out DIR"))
    }

    // MARK: validate --recursive

    /// A presentation with a multivariant playlist, two media playlists, an asset list (one asset
    /// missing) and a single asset, as files under `directory`.
    static func writePresentation(in directory: URL) throws {
        let root = directory.path
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        try write(
            "master.m3u8",
            """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=640x360,AUDIO="aud"
            video.m3u8

            """)
        let media = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="mid",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:06.000Z",X-ASSET-LIST="list.json?_HLS_interstitial_id=mid",X-RESUME-OFFSET=0
            #EXT-X-DATERANGE:ID="one",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:12.000Z",X-ASSET-URI="file://\(root)/ad.m3u8?_HLS_interstitial_id=one",X-RESUME-OFFSET=0
            #EXTINF:6.000,
            s0.ts
            #EXTINF:6.000,
            s1.ts
            #EXTINF:6.000,
            s2.ts
            #EXT-X-ENDLIST

            """
        try write("video.m3u8", media)
        try write("audio.m3u8", media)
        try write(
            "list.json",
            #"{"ASSETS":[{"URI":"file://\#(root)/ad.m3u8","DURATION":4},{"URI":"file://\#(root)/gone.m3u8","DURATION":2}]}"#
        )
        try write(
            "ad.m3u8",
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.000,\nad.ts\n#EXT-X-ENDLIST\n"
        )
    }

    @Test("validate --recursive says what it checked: counts in text, each one with --verbose, all in JSON")
    func recursiveReport() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.writePresentation(in: directory)
        let master = directory.appendingPathComponent("master.m3u8").path
        func normalized(_ run: CLITests.Run) -> String {
            (run.standardOutput + (run.standardError.isEmpty ? "" : "--- stderr\n" + run.standardError))
                .replacingOccurrences(of: directory.path, with: "DIR")
        }
        let plain = try await CLITests.run(["validate", "--recursive", master])
        #expect(plain.status == 1)
        #expect(
            plain.standardError.contains(
                "checked 1 multivariant playlist, 2 media playlists, 1 asset list, 3 assets (1 could not be loaded)\n"),
            "\(plain.standardError)")
        #expect(!plain.standardError.contains("checked media playlist"))
        try CLITests.golden("validate-recursive.txt", normalized(plain))

        let verbose = try await CLITests.run(["validate", "--recursive", "--verbose", master])
        #expect(verbose.status == 1)
        try CLITests.golden("validate-recursive-verbose.txt", normalized(verbose))
        #expect(
            verbose.standardError.contains(
                "checked asset list DIR/list.json".replacingOccurrences(of: "DIR", with: directory.path)))

        let json = try await CLITests.run(["validate", "--recursive", "--format", "json", master])
        #expect(json.status == 1)
        try CLITests.golden("validate-recursive.json", normalized(json))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let checked = try #require(object["checked"] as? [[String: Any]])
        #expect(
            checked.map { $0["kind"] as? String } == [
                "multivariant-playlist", "media-playlist", "media-playlist", "asset-list", "asset", "asset", "asset",
            ])
        #expect(checked.filter { $0["result"] as? String == "failed" }.count == 1)
    }

    @Test("validate of one playlist keeps its short summary; --verbose names the playlist checked")
    func singleReport() async throws {
        let plain = try await CLITests.run(["validate", "Tests/Fixtures/playlists/vod-basic.m3u8"])
        #expect(plain.standardError == "Tests/Fixtures/playlists/vod-basic.m3u8: 0 errors, 0 warnings\n")
        let verbose = try await CLITests.run(["validate", "--verbose", "Tests/Fixtures/playlists/vod-basic.m3u8"])
        #expect(
            verbose.standardError
                == """
                checked media playlist Tests/Fixtures/playlists/vod-basic.m3u8: ok
                checked 1 media playlist
                Tests/Fixtures/playlists/vod-basic.m3u8: 0 errors, 0 warnings

                """)
    }
}
