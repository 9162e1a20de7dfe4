import AdDecisioning
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import InterstitialServer

/// Where a new user trips (issue 47): the configuration reference held in step with the decoder,
/// errors that point (JSON syntax, unknown keys, missing directories, refused ad-server addresses)
/// and the admin API's warnings.
@Suite("What a new user trips on")
struct NewUserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    // MARK: - The configuration reference

    /// `object.key` of every row of docs/configuration.md's tables: a `## ` heading's first
    /// backticked word names the object; each table row's first cell is a backticked key.
    static func documentedKeys() throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var keys: Set<String> = []
        var object: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                object = line.split(separator: "`", omittingEmptySubsequences: false).dropFirst().first.map(String.init)
            } else if line.hasPrefix("| `"), let object {
                let cell = line.dropFirst(3).prefix { $0 != "`" }
                keys.insert("\(object).\(cell)")
            }
        }
        return keys
    }

    /// `object.key` of the JSON Schema: the root's properties (object `configuration`) and each
    /// `$defs` entry's (object named as the entry).
    static func schemaKeys() throws -> Set<String> {
        let bytes = try Data(contentsOf: root.appendingPathComponent("docs/configuration.schema.json"))
        let schema = try JSONValue.parse(Array(bytes), code: .json)
        guard case .object(let top) = schema, case .object(let definitions)? = top["$defs"] else { return [] }
        var keys: Set<String> = []
        for (name, definition) in [(ConfigurationKeys.root, schema)] + definitions.sorted(by: { $0.key < $1.key }) {
            guard case .object(let fields) = definition, case .object(let properties)? = fields["properties"] else {
                continue
            }
            for key in properties.keys { keys.insert("\(name).\(key)") }
        }
        return keys
    }

    @Test("docs/configuration.md and its JSON Schema document every key the decoder takes, and nothing else")
    func referenceMatchesDecoder() throws {
        let decoder = ConfigurationKeys.qualifiedKeys
        #expect(decoder.count > 80)
        for (file, documented) in [
            ("docs/configuration.md", try Self.documentedKeys()),
            ("docs/configuration.schema.json", try Self.schemaKeys()),
        ] {
            for key in decoder.subtracting(documented).sorted() {
                Issue.record(
                    "\(file) lacks the key \(key) (object.key) that the configuration decoder takes (ConfigurationKeys)"
                )
            }
            for key in documented.subtracting(decoder).sorted() {
                Issue.record(
                    "\(file) documents \(key) (object.key), which the configuration decoder does not take (ConfigurationKeys)"
                )
            }
        }
    }

    /// A value for every key the decoder takes, so that decoding reads them all.
    static let everyKey = """
        {"host": "127.0.0.1", "port": 0, "publicURL": "https://video.example.com", "database": "state.sqlite",
         "adminToken": "t", "hlsjs": "https://cdn.example/hls.mjs",
         "allowedOrigins": ["https://origin.example.com"], "trustedProxies": ["10.0.0.0/8"],
         "vod": [{"id": "movie", "path": "/vod/movie", "directory": "media/movie", "entry": "master.m3u8",
                  "interstitials": "tags",
                  "adServer": {"vast": "https://ads.example/vast", "vmap": "https://ads.example/vmap",
                               "vmapBreakDuration": 30, "tracking": "client", "maxWrapperDepth": 5,
                               "maxConcurrent": 8, "maxPerSecond": 10,
                               "breaker": {"failures": 5, "window": 10, "coolDown": 5}, "slate": "ad1",
                               "maxFillSegments": 500,
                               "preload": {"endsBefore": 12, "minimum": 6, "maximum": 60},
                               "prefetch": {"window": 60, "expectedBreak": 30, "refresh": 300, "learnFrom": 5}}},
                 {"id": "news", "upstream": "https://origin.example.com/news/master.m3u8",
                  "flattenSchedules": true}],
         "live": [{"id": "channel", "path": "/live/channel", "loop": "media/movie", "entry": "master.m3u8",
                   "epoch": "2026-01-01T00:00:00Z", "windowSegments": 6, "lookahead": 20, "signals": "scte35",
                   "keepSignals": true, "snapSignals": false, "interstitials": "schedule",
                   "signalInserter": {"every": 60, "duration": 10, "offset": 30, "form": "daterange", "lead": 0},
                   "adServer": {"vast": "https://ads.example/vast",
                                "rateLearning": {"initial": 50, "minimum": 5, "maximum": 1000}}}],
         "ads": "media/ads", "creativeCache": null, "creativeCacheMegabytes": 64, "assetListDeadline": 1,
         "stitchedUserAgents": ["Tizen"],
         "limits": {LIMITS}, "adServerFetch": {"allowPrivate": false, "allow": ["ads.internal"], "deny": []},
         "seed": {"inventory": [], "schedules": [], "breaks": []}}
        """

    @Test("A file with every listed key decodes: the decoder reads each key the list names")
    func everyListedKeyIsRead() throws {
        // Every limit at a value each accepts (upstreamPlaylistReuse: at most 60 s; noticeTolerance: 300 s;
        // prefetchPlayingSpan: 600 s).
        let limits = ConfigurationKeys.byName["limits"]?.keys.map {
            "\"\($0)\": \(["upstreamPlaylistReuse", "noticeTolerance", "prefetchPlayingSpan"].contains($0) ? 30 : 100000)"
        }
        .joined(separator: ", ")
        let text = Self.everyKey.replacingOccurrences(of: "{LIMITS}", with: "{\(limits ?? "")}")
        // The file names every key of every listed object (a key added to the list is added here too).
        for object in ConfigurationKeys.objects {
            for key in object.keys {
                #expect(text.contains("\"\(key)\""), "the test file lacks \(object.name).\(key)")
            }
        }
        let configuration = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
        #expect(configuration.limits.prefetchBytes == 100000)
        #expect(configuration.live.first?.signalInserter?.every == MediaTime(seconds: 60))
    }

    @Test(
        "A misspelt key is an unknown key, named with its path and the nearest key, before any other error",
        arguments: [
            (#"{"vod": [{"id": "a", "upstrem": "https://o.example/a/master.m3u8"}]}"#, "vod[0].upstrem", "upstream"),
            (#"{"live": [{"id": "c", "lop": "media"}]}"#, "live[0].lop", "loop"),
            (#"{"prot": 8080}"#, "prot", "port"),
            (#"{"limits": {"idleTimeOut": 5}}"#, "limits.idleTimeOut", "idleTimeout"),
            (
                #"{"vod": [{"id": "a", "directory": "d", "adServer": {"vast": "https://a.example/v", "breaker": {"cooldown": 1}}}]}"#,
                "vod[0].adServer.breaker.cooldown", "coolDown"
            ),
        ])
    func unknownKeys(text: String, path: String, nearest: String) {
        #expect {
            _ = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
        } throws: { error in
            guard let error = error as? APIError else { return false }
            return error.code == .config && error.path == path && error.message.contains("unknown key")
                && error.message.contains("did you mean \"\(nearest)\"")
        }
    }

    @Test(
        "JSON syntax errors in a configuration name the line and column; a trailing comma is refused",
        arguments: [
            ("{\n  \"port\": 8080,\n  \"host\": \"127.0.0.1\",\n}", 3, 22, "trailing comma"),
            ("{\"vod\": [\n  {\"id\": \"a\", \"directory\": \"d\"},\n]}", 2, 32, "trailing comma"),
            ("{\n  \"port\": 8080\n  \"host\": \"x\"\n}", 3, 3, "expected , or }"),
            ("{\"port\": 08080}", 1, 10, "not a JSON number"),
        ])
    func configurationSyntax(text: String, line: Int, column: Int, what: String) {
        #expect {
            _ = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
        } throws: { error in
            guard let error = error as? APIError else { return false }
            return error.code == .jsonSyntax && error.message.contains("line \(line), column \(column):")
                && error.message.contains(what)
        }
    }

    @Test("An admin body with a trailing comma gets 400 json-syntax with its line and column")
    func adminBodySyntax() async throws {
        try await Harness.withServer { client in
            let response = try await client.admin(
                .post, "breaks", "{\"id\": \"b\", \"target\": \"vod/demo\",\n \"at\": 5, \"duration\": 4,}")
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "json-syntax")
            #expect(response.text.contains("line 2, column 24"), "\(response.text)")
        }
    }

    // MARK: - Directories at start

    @Test("A VOD or loop directory that does not exist, or lacks its entry playlist, is an error at start")
    func missingDirectories() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-dirs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = #"{"vod": [{"id": "movie", "directory": "no-such-dir"}]}"#
        let configuration = try ServerConfiguration.decode(Array(missing.utf8), base: directory.path)
        #expect {
            try configuration.checkFiles()
        } throws: { error in
            (error as? APIError)?.path == "vod[0].directory"
                && (error as? APIError)?.message.contains("no-such-dir does not exist") == true
        }
        let empty = directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let noEntry = try ServerConfiguration.decode(
            Array(#"{"live": [{"id": "c", "loop": "empty"}]}"#.utf8), base: directory.path)
        #expect {
            try noEntry.checkFiles()
        } throws: { error in
            (error as? APIError)?.path == "live[0].loop"
                && (error as? APIError)?.message.contains("master.m3u8") == true
        }
        try Data("#EXTM3U\n".utf8).write(to: empty.appendingPathComponent("master.m3u8"))
        try noEntry.checkFiles()
        #expect(
            noEntry.targetURLs(port: 8080).map(\.url) == ["http://127.0.0.1:8080/live/c/master.m3u8"])
    }

    // MARK: - Admin API warnings

    @Test("A VOD pre-roll without resumeOffset gets the validator's warning with the 201; with 0 it gets none")
    func preRollWarning() async throws {
        try await Harness.withServer { client in
            let skipping = try await client.admin(
                .post, "breaks", #"{"id":"pre2","target":"vod/demo","cue":["PRE"],"duration":6}"#)
            #expect(skipping.status == .created, "\(skipping.text)")
            guard case .object(let fields)? = skipping.json, case .array(let warnings)? = fields["warnings"] else {
                Issue.record("no warnings in \(skipping.text)")
                return
            }
            #expect(warnings.count == 1)
            guard case .object(let warning)? = warnings.first else { return }
            #expect(warning["rule"] == .string("interstitial-preroll-skip"))
            #expect(warning["path"] == .string("resumeOffset"))
            // The validator's text, from the one rule.
            let expected = InterstitialEvent.preRollSkipMessage(id: "pre2", skipped: MediaTime(seconds: 6))
            #expect(warning["message"] == .string(expected), "\(warnings)")
            let inserting = try await client.admin(
                .post, "breaks", #"{"id":"pre3","target":"vod/demo","cue":["PRE"],"duration":6,"resumeOffset":0}"#)
            #expect(inserting.status == .created)
            #expect(!inserting.text.contains("warnings"), "\(inserting.text)")
        }
    }

    @Test("A VOD break past the end of the asset gets a warning with the 201; one inside it none")
    func pastEndWarning() async throws {
        try await Harness.withServer { client in
            let late = try await client.admin(
                .post, "breaks", #"{"id":"late","target":"vod/demo","at":86400,"duration":4,"resumeOffset":0}"#)
            #expect(late.status == .created, "\(late.text)")
            #expect(late.text.contains("\"rule\":\"break-past-end\""), "\(late.text)")
            #expect(late.text.contains("past the end of vod/demo"), "\(late.text)")
            let inside = try await client.admin(
                .post, "breaks", #"{"id":"inside","target":"vod/demo","at":5,"duration":4,"resumeOffset":0}"#)
            #expect(inside.status == .created)
            #expect(!inside.text.contains("warnings"), "\(inside.text)")
        }
    }

    // MARK: - Ad-server failures

    @Test("A VAST URL whose address the policy refuses fails as fetch-failed (VAST 300), not wrapper-timeout")
    func refusedAddressLabel() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let fetcher = AdServerFetcher(client: client, policy: AdServerFetchPolicy(), clock: SystemServerClock())
        let dispatcher = TrackingDispatcher(fetcher: fetcher, logger: Harness.logger)
        let decisions = VASTDecisionClient(fetcher: fetcher, dispatcher: dispatcher, logger: Harness.logger)
        // Loopback, which the default policy refuses: nothing is sent.
        let url = "http://127.0.0.1:9/vast"
        let outcome = await decisions.decide(
            url: url, settings: AdServerSettings(vast: url), headers: [], deadline: MediaTime(seconds: 20),
            cacheBuster: "1")
        try await client.shutdown()
        #expect(!outcome.errors.isEmpty)
        #expect(outcome.errors.allSatisfy { $0.reason != .wrapperTimeout && $0.code != .wrapperTimeout })
        #expect(outcome.errors.contains { $0.reason == .fetchFailed && $0.code == .wrapperGeneral })
        #expect(!outcome.timedOut)
    }
}
