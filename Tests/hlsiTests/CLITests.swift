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

    /// Runs `python3 -u ARGUMENTS` from the package root while `body` runs with the first line it
    /// prints (a server says its port there); the process is killed after.
    static func withPython(_ arguments: [String], _ body: (String) async throws -> Void) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u"] + arguments
        process.currentDirectoryURL = packageRoot
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let running = Started(process: process, output: output, error: Pipe())
        let first = await offPool {
            var text = ""
            let handle = running.output.fileHandleForReading
            while !text.contains("\n") {
                let data = handle.availableData
                guard !data.isEmpty else { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return String(text.prefix { $0 != "\n" })
        }
        func stop() async {
            // SIGKILL: a child of the test process inherits its blocked SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            await offPool { running.process.waitUntilExit() }
        }
        do {
            try await body(first)
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        try await start(arguments, environment: environment).finish()
    }

    /// Runs `work` on a thread of its own and waits for it without blocking: a blocking read or
    /// wait on the concurrency pool (two threads on a 2-core machine) would stall every other test
    /// running at once, and their deadlines with them.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// A started `hlsi` process, to run several at once.
    struct Started: Sendable {
        let process: Process
        let output: Pipe
        let error: Pipe

        /// Waits for the process (off the concurrency pool) and collects what it printed.
        func finish() async -> Run {
            let started = self
            return await CLITests.offPool { started.finishBlocking() }
        }

        /// Waits for the process and collects what it printed, blocking the calling thread.
        private func finishBlocking() -> Run {
            // Both pipes are drained at once: a process that fills one while the other is read would block.
            let errorHandle = error.fileHandleForReading
            let errorBox = ErrorBox()
            let reader = Thread { errorBox.set(errorHandle.readDataToEndOfFile()) }
            reader.start()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            let errorData = errorBox.wait()
            process.waitUntilExit()
            return Run(
                status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                standardError: String(decoding: errorData, as: UTF8.self))
        }
    }

    /// The standard error a reader thread collected, handed over once.
    final class ErrorBox: @unchecked Sendable {
        private let condition = NSCondition()
        private var data: Data?

        func set(_ value: Data) {
            condition.lock()
            data = value
            condition.signal()
            condition.unlock()
        }

        func wait() -> Data {
            condition.lock()
            defer { condition.unlock() }
            while data == nil { condition.wait() }
            return data ?? Data()
        }
    }

    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Started {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = packageRoot
        let started = Started(process: process, output: Pipe(), error: Pipe())
        process.standardOutput = started.output
        process.standardError = started.error
        try process.run()
        return started
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
        GoldenCase(
            arguments: ["validate", "Tests/Fixtures/invalid/interstitial-rules.m3u8"],
            golden: "validate-interstitial-rules.txt", status: 1),
        GoldenCase(
            arguments: ["validate", "--format", "json", "Tests/Fixtures/invalid/interstitial-rules.m3u8"],
            golden: "validate-interstitial-rules.json", status: 1),
        GoldenCase(
            arguments: ["validate", "Tests/Fixtures/playlists/interstitials-vod.m3u8"],
            golden: "validate-interstitials-vod.txt", status: 0),
        GoldenCase(
            arguments: ["inspect", "Tests/Fixtures/scte35-playlists/literal/signals.m3u8"],
            golden: "inspect-signals.txt", status: 0),
        GoldenCase(
            arguments: ["validate", "Tests/Fixtures/scte35-playlists/literal/signals.m3u8"],
            golden: "validate-signals.txt", status: 0),
        GoldenCase(
            arguments: [
                "insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--id", "ad1", "--at", "10", "--asset-uri",
                "https://ads.example.com/ad1/main.m3u8", "--duration", "15", "--restrict", "SKIP,JUMP",
                "--resume-offset", "-2.5", "--cue", "ONCE", "--attr", "X-COM-EXAMPLE-BEACON=123",
            ],
            golden: "insert-vod-basic.m3u8", status: 0),
        GoldenCase(
            arguments: [
                "insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--schedule",
                "Tests/Fixtures/insert-schedule.json",
            ],
            golden: "insert-schedule.m3u8", status: 0),
        GoldenCase(arguments: ["rules"], golden: "rules.txt", status: 0),
        // SCTE-35: a section from hex, from base64 as JSON, and errors located by byte and field.
        GoldenCase(
            arguments: [
                "scte35", "decode",
                "0xFC302C000000000000FFFFF00506FE000F424000160214435545490000004D7FFF00002932E00000220000136010CA",
            ],
            golden: "scte35-break-start.txt", status: 0),
        GoldenCase(
            arguments: ["scte35", "decode", "--json", "/DARAAAAAAAA///wAAcAAHMWlCM="],
            golden: "scte35-null.json", status: 0),
        GoldenCase(
            arguments: ["scte35", "decode", "--json", "0xFC3011000000000000FFFFF00007000073169424"],
            golden: "scte35-bad-crc.json", status: 1),
        GoldenCase(arguments: ["scte35", "decode", "0xFC301100000000000"], golden: "scte35-odd-hex.txt", status: 1),
        GoldenCase(
            arguments: ["schedule", "Tests/Fixtures/playlists/interstitials-vod.m3u8"],
            golden: "schedule-interstitials.txt",
            status: 0),
        GoldenCase(
            arguments: ["timeline", "--ansi", "--width", "60", "Tests/Fixtures/playlists/interstitials-vod.m3u8"],
            golden: "timeline-interstitials.txt", status: 0),
        GoldenCase(
            arguments: ["schedule", "--json", "Tests/Fixtures/playlists/interstitials-vod.m3u8"],
            golden: "schedule-interstitials.json", status: 0),
        // Issue 16: JSON whatever happens, with the keys of a normal report.
        GoldenCase(
            arguments: ["validate", "--format", "json", "Tests/Fixtures/playlists/none.m3u8"],
            golden: "validate-unreadable.json", status: 2),
        GoldenCase(
            arguments: ["validate", "--format", "json", "Tests/Fixtures/insert-schedule.json"],
            golden: "validate-not-a-playlist.json", status: 1),
        GoldenCase(
            arguments: ["inspect", "--json", "Tests/Fixtures/insert-schedule.json"],
            golden: "inspect-not-a-playlist.json", status: 1),
        GoldenCase(
            arguments: ["schedule", "--json", "Tests/Fixtures/playlists/none.m3u8"],
            golden: "schedule-unreadable.json", status: 2),
        GoldenCase(
            arguments: ["validate", "--verbose", "Tests/Fixtures/playlists/interstitials-vod.m3u8"],
            golden: "validate-interstitials-vod-verbose.txt", status: 0),
    ]

    @Test("golden output and exit status", arguments: goldenCases)
    func goldenOutput(_ testCase: GoldenCase) async throws { try await Self.check(testCase) }

    /// Runs a golden case: its exit status, and standard output then standard error against the golden file.
    static func check(_ testCase: GoldenCase) async throws {
        let run = try await run(testCase.arguments)
        #expect(run.status == testCase.status, "\(run.standardError)")
        try golden(
            testCase.golden, run.standardOutput + (run.standardError.isEmpty ? "" : "--- stderr\n" + run.standardError))
    }

    @Test("usage errors exit 2 with a message; --help exits 0")
    func usage() async throws {
        let noArguments = try await Self.run(["inspect"])
        #expect(noArguments.status == 2)
        #expect(noArguments.standardError.contains("Missing expected argument"))
        let unknown = try await Self.run(["inspect", "--bogus", "x"])
        #expect(unknown.status == 2)
        let badValue = try await Self.run(["generate", "vod", "--segments", "-3"])
        #expect(badValue.status == 2)
        let help = try await Self.run(["inspect", "--help"])
        #expect(help.status == 0)
        #expect(
            help.standardOutput.contains("Exit codes: 0 no errors, 1 the playlist has errors, 2 usage or I/O failure."))
    }

    @Test("I/O failures exit 2; content that is not a playlist exits 1")
    func failures() async throws {
        let missing = try await Self.run(["inspect", "Tests/Fixtures/playlists/none.m3u8"])
        #expect(missing.status == 2)
        #expect(
            missing.standardError == "Tests/Fixtures/playlists/none.m3u8: error: [load-file-unreadable] no such file\n")
        let notPlaylist = try await Self.run(["inspect", "README.md"])
        #expect(notPlaylist.status == 1)
        #expect(notPlaylist.standardError.contains("[load-not-a-playlist]"))
        let refused = try await Self.run(["inspect", "http://127.0.0.1:9/a.m3u8"])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("[load-network]"))
        let validate = try await Self.run(["validate", "http://127.0.0.1:1/x"])
        #expect(validate.status == 2)
        #expect(
            validate.standardError.hasPrefix("http://127.0.0.1:1/x: error: [load-network]"), "\(validate.standardError)"
        )
        let interval = try await Self.run(["validate", "x.m3u8", "--watch", "1", "--interval", "1e300"])
        #expect(interval.status != 0)
        #expect(interval.standardError.contains("--interval"))
    }

    @Test("generate writes playlists that inspect cleanly")
    func generate() async throws {
        let run = try await Self.run(["generate", "vod", "--segments", "300", "--interstitial-every", "100"])
        #expect(run.status == 0)
        #expect(run.standardOutput.components(separatedBy: "#EXT-X-DATERANGE").count == 4)
        let live = try await Self.run(["generate", "live", "--hours", "0.1"])
        #expect(live.standardOutput.contains("#EXT-X-PRELOAD-HINT"))
    }

    @Test("docs/rules.md is the output of hlsi rules --markdown")
    func rulesCatalog() async throws {
        let run = try await Self.run(["rules", "--markdown"])
        #expect(run.status == 0)
        let path = Self.packageRoot.appendingPathComponent("docs/rules.md")
        if ProcessInfo.processInfo.environment["HLSI_UPDATE_GOLDEN"] == "1" {
            try run.standardOutput.write(to: path, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: path, encoding: .utf8) == run.standardOutput, "regenerate docs/rules.md")
    }

    @Test("insert --in --out writes identical tags into every media playlist, copies the media, and validates")
    func insertTree() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-tree-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await Self.run([
            "insert", "--in", "Tests/Fixtures/presentation/master.m3u8", "--out", out.path, "--schedule",
            "Tests/Fixtures/insert-schedule.json",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let video = try String(contentsOf: out.appendingPathComponent("video/prog.m3u8"), encoding: .utf8)
        let audio = try String(contentsOf: out.appendingPathComponent("audio/en.m3u8"), encoding: .utf8)
        let tags = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE") } }
        #expect(tags(video).count == 2)
        #expect(tags(video) == tags(audio))
        let master = try Data(contentsOf: out.appendingPathComponent("master.m3u8"))
        #expect(master == (try Data(contentsOf: Self.fixtures.appendingPathComponent("presentation/master.m3u8"))))
        for file in ["video/init.mp4", "video/s2.m4s", "audio/s0.m4s"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file)")
        }
        let validate = try await Self.run(["validate", "--recursive", out.appendingPathComponent("master.m3u8").path])
        // The asset list (resolved against each media playlist) and the ad are not there: only loading fails.
        let errors = validate.standardOutput.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.allSatisfy { $0.contains("[interstitial-load]") }, "\(validate.standardOutput)")
        #expect(errors.filter { $0.contains("mid.json") }.count == 2)
        let single = try await Self.run(["validate", out.appendingPathComponent("video/prog.m3u8").path])
        #expect(single.status == 0)
        #expect(single.standardOutput.isEmpty)
    }

    @Test("insert refuses bad requests with the option or JSON path, exit 2")
    func insertErrors() async throws {
        let relative = try await Self.run([
            "insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--id", "a", "--at", "1", "--asset-uri", "ad.m3u8",
        ])
        #expect(relative.status == 2)
        #expect(relative.standardError.contains("[insert-request] assetUri: \"ad.m3u8\" is not absolute"))
        let noID = try await Self.run(["insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--at", "1"])
        #expect(noID.status == 2)
        let badSeconds = try await Self.run([
            "insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--id", "a", "--at", "soon", "--asset-uri",
            "https://a/b",
        ])
        #expect(badSeconds.status == 2)
        #expect(badSeconds.standardError.contains("--at needs a non-negative number of seconds, found soon"))
        let invalid = try await Self.run([
            "insert", "Tests/Fixtures/invalid/attribute-syntax.m3u8", "--id", "a", "--at", "1", "--asset-uri",
            "https://a/b",
        ])
        #expect(invalid.status == 1)
        let master = try await Self.run([
            "insert", "Tests/Fixtures/presentation/master.m3u8", "--id", "a", "--at", "1", "--asset-uri", "https://a/b",
        ])
        #expect(master.status == 2)
        #expect(master.standardError.contains("multivariant"))
    }

    @Test("schedule and timeline do not crash on a playlist with huge durations that validates clean")
    func hugeDurations() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-huge-\(UUID().uuidString).m3u8")
        defer { try? FileManager.default.removeItem(at: file) }
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for (id, second) in [("a", 10), ("b", 20)] {
            text +=
                "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:\(second).000Z\",DURATION=9223372036,X-ASSET-URI=\"https://a.example/\(id).m3u8?_HLS_interstitial_id=\(id)\"\n"
        }
        for index in 0..<5 { text += "#EXTINF:6.000,\nseg\(index).ts\n" }
        text += "#EXT-X-ENDLIST\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        await #expect(try Self.run(["validate", file.path]).status == 0)
        let svg = file.deletingPathExtension().appendingPathExtension("svg")
        defer { try? FileManager.default.removeItem(at: svg) }
        for arguments in [
            ["schedule"], ["schedule", "--json"], ["timeline", "--ansi"], ["timeline", "--svg", svg.path],
        ] {
            let run = try await Self.run(arguments + [file.path])
            #expect(run.status == 0, "\(arguments): \(run.standardError)")
        }
    }

    @Test("inspect --limit=-1 and validate --interval 1e300 are usage errors, not crashes")
    func boundedOptions() async throws {
        let limit = try await Self.run(["inspect", "--limit=-1", "Tests/Fixtures/playlists/vod-basic.m3u8"])
        #expect(limit.status == 2)
        let interval = try await Self.run([
            "validate", "--watch", "1", "--interval", "1e300", "Tests/Fixtures/playlists/vod-basic.m3u8",
        ])
        #expect(interval.status == 2)
        #expect(interval.standardError.contains("--interval"))
        let hugeAt = try await Self.run([
            "insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--id", "a", "--at", "8999999999", "--asset-uri",
            "https://a/b",
        ])
        #expect(hugeAt.status == 2)
        let inject = try await Self.run([
            "insert", "Tests/Fixtures/playlists/vod-basic.m3u8", "--id", "a", "--at", "1", "--asset-uri",
            "https://a/b", "--attr", "X-EVIL=a\",DURATION=999,X-Z=\"b",
        ])
        #expect(inject.status == 2)
        #expect(inject.standardOutput.isEmpty)
    }

    @Test("validate reports a quoted-string with a quote inside, and output stays bounded for 100k duplicates")
    func validateInjected() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-dup-\(UUID().uuidString).m3u8")
        defer { try? FileManager.default.removeItem(at: file) }
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        text += "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2026-01-01T00:00:00.000Z\",X-Q=\"a\"b\""
        text += String(repeating: ",X-A=1", count: 100_000) + String(repeating: ",x=1", count: 100_000) + "\n"
        text += "#EXTINF:6,\na.ts\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        for arguments in [["validate"], ["validate", "--format", "json"], ["inspect"]] {
            let run = try await Self.run(arguments + [file.path])
            #expect(run.status == 1)
            let output = run.standardOutput + run.standardError
            #expect(output.contains("attribute-quoted-string"))
            #expect(output.contains("diagnostic-limit"))
            #expect(output.utf8.count < 64 * 1024, "\(arguments): \(output.utf8.count) bytes")
        }
    }

    @Test("validate exits 2 on I/O failures and usage errors")
    func validateFailures() async throws {
        await #expect(try Self.run(["validate", "Tests/Fixtures/none.m3u8"]).status == 2)
        await #expect(try Self.run(["validate", "--watch", "0", "x.m3u8"]).status == 2)
        await #expect(try Self.run(["validate", "--format", "xml", "x.m3u8"]).status == 2)
        let ended = try await Self.run(["validate", "--watch", "2", "Tests/Fixtures/playlists/vod-basic.m3u8"])
        #expect(ended.status == 0)
        #expect(ended.standardError.contains("has EXT-X-ENDLIST; stopped watching after 0 reloads"))
    }

    /// The conformance vectors (local copies, plus newer ones in ../shared), as JSON objects.
    static func scheduleVectors() throws -> [(name: String, vector: [String: Any])] {
        let local = fixtures.appendingPathComponent("conformance")
        let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/schedule")
        var seen: Set<String> = []
        var vectors: [(String, [String: Any])] = []
        for directory in [local, shared] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") && seen.insert(name).inserted {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                vectors.append((name, try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]))
            }
        }
        return vectors
    }

    @Test("hlsi schedule --json --resolve reproduces every conformance vector to the millisecond")
    func scheduleConformance() async throws {
        let vectors = try Self.scheduleVectors()
        #expect(vectors.count >= 10)
        func ms(_ value: Any?) -> Int? { (value as? NSNumber).map { Int(($0.doubleValue * 1000).rounded()) } }
        func normalized(_ value: Any?) -> String {
            switch value {
            case let number as NSNumber: return String(ms(number) ?? 0)
            case let array as [Any]: return "[" + array.map(normalized).joined(separator: ",") + "]"
            case let object as [String: Any]:
                return "{" + object.keys.sorted().map { "\($0):\(normalized(object[$0]))" }.joined(separator: ",") + "}"
            case let text as String: return text
            case nil, is NSNull: return "null"
            default: return "\(value!)"
            }
        }
        for (name, vector) in vectors {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hlsi-vector-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let playlist = directory.appendingPathComponent("playlist.m3u8")
            try (vector["playlist"] as? String ?? "").write(to: playlist, atomically: true, encoding: .utf8)
            for (file, content) in vector["files"] as? [String: Any] ?? [:] {
                let data = try JSONSerialization.data(withJSONObject: content)
                try data.write(to: directory.appendingPathComponent(file))
            }
            let run = try await Self.run(["schedule", "--json", "--resolve", playlist.path])
            #expect(run.status == 0, "\(name): \(run.standardError)")
            let output = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any] ?? [:]
            let expected = vector["expected"] as? [String: Any] ?? [:]
            // Compare the keys the vector gives; the output may carry more.
            let events = (output["events"] as? [[String: Any]] ?? []).map { event in
                event.filter { ["id", "start", "resumeTime"].contains($0.key) }
            }
            #expect(normalized(events) == normalized(expected["events"]), "\(name) events")
            #expect(normalized(output["items"]) == normalized(expected["items"]), "\(name) items")
            #expect(normalized(output["durations"]) == normalized(expected["durations"]), "\(name) durations")
        }
    }

    @Test("hlsi timeline --svg writes an SVG; without an output it is a usage error")
    func timelineSVG() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: path) }
        let run = try await Self.run([
            "timeline", "Tests/Fixtures/playlists/interstitials-vod.m3u8", "--svg", path.path,
        ])
        #expect(run.status == 0)
        #expect(try String(contentsOf: path, encoding: .utf8).hasPrefix("<svg"))
        await #expect(try Self.run(["timeline", "Tests/Fixtures/playlists/interstitials-vod.m3u8"]).status == 2)
    }
}
