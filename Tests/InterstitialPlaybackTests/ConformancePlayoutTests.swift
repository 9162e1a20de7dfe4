import Foundation
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// A schedule conformance vector, read from `Tests/Fixtures/conformance` and from `../shared`.
struct PlayoutVector: Sendable, CustomTestStringConvertible {
    var name: String
    var playlist: String
    var files: [String: String]
    var expected: [String: JSONValue]
    var testDescription: String { name }

    static func all() -> [PlayoutVector] {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let directories = [
            tests.appendingPathComponent("Fixtures/conformance"),
            tests.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "shared/conformance/schedule"),
        ]
        var seen: Set<String> = []
        var vectors: [PlayoutVector] = []
        for directory in directories {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") && seen.insert(name).inserted {
                guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path),
                    case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: data),
                    case .string(let playlist)? = fields["playlist"], case .object(let expected)? = fields["expected"]
                else {
                    vectors.append(PlayoutVector(name: name, playlist: "", files: [:], expected: [:]))
                    continue
                }
                var files: [String: String] = [:]
                if case .object(let given)? = fields["files"] {
                    for (file, value) in given { files[file] = AssetList.decode(value).map { $0.encoded() } ?? "" }
                }
                vectors.append(PlayoutVector(name: name, playlist: playlist, files: files, expected: expected))
            }
        }
        return vectors
    }
}

extension AssetList {
    fileprivate static func decode(_ value: JSONValue) -> AssetList? { try? decode(value) as AssetList }
}

@Suite("Playout of the conformance vectors")
struct ConformancePlayoutTests {
    static func ms(_ value: JSONValue?) -> Int64? { value?.number.map { Int64(($0 * 1000).rounded()) } }
    static func ms(_ time: MediaTime) -> Int64 { Int64((Double(time.nanoseconds) / 1_000_000).rounded()) }

    @Test("the engine's playout matches the schedule's items", arguments: PlayoutVector.all())
    func playout(_ vector: PlayoutVector) async throws {
        try #require(!vector.playlist.isEmpty, "the vector could not be read")
        // Every ad the vector names is served, as long as the schedule says it plays.
        let ads = "https://ads.example.com"
        var files: [String: String] = [
            "/primary.m3u8": vector.playlist.replacingOccurrences(of: ads, with: "{ORIGIN}/ads")
        ]
        let parsed = try #require(PlaylistParser.parse(vector.playlist).playlist.media)
        for event in ScheduleInput.events(of: parsed) {
            if let uri = event.assetURI, let duration = event.duration ?? event.plannedDuration {
                files[String(uri.dropFirst(ads.count)).prefixed] =
                    Content.ad(duration.seconds)
            }
        }
        for (name, json) in vector.files {
            files["/" + name] = json.replacingOccurrences(of: ads, with: "{ORIGIN}/ads")
            for asset in try AssetList.decode(Array(json.utf8)).assets {
                files[String(asset.uri.dropFirst(ads.count)).prefixed] = Content.ad(asset.duration.seconds)
            }
        }
        let trace = try await TestOrigin.with(files: files) { origin in
            await play(origin, "/primary.m3u8").trace
        }
        guard case .array(let items)? = vector.expected["items"] else { return }
        var position = 0
        for item in items {
            guard case .object(let fields) = item, fields["kind"] == .string("interstitial"),
                case .string(let id)? = fields["id"], case .array(let playout)? = fields["playout"],
                case .array(let primary)? = fields["primary"]
            else { continue }
            let started = trace[position...].first { $0.kind == .interstitialStarted && $0["id"] == .string(id) }
            let ended = trace[position...].first { $0.kind == .interstitialEnded && $0["id"] == .string(id) }
            #expect(started.map { Self.ms($0.seconds) } == Self.ms(playout[0]), "start of \(id)")
            #expect(ended.map { Self.ms($0.seconds) } == Self.ms(playout[1]), "end of \(id)")
            if case .time(let resume)? = ended?["resumeTime"] {
                #expect(Self.ms(resume) == Self.ms(primary[1]), "resumption point of \(id)")
            }
            if let ended, let index = trace.firstIndex(of: ended) { position = index }
        }
        if case .object(let durations)? = vector.expected["durations"], let playout = Self.ms(durations["playout"]) {
            #expect(trace.first { $0.kind == .ended }.map { Self.ms($0.seconds) } == playout, "end of playout")
        }
        #expect(!trace.contains { $0.kind == .error }, "\(trace.filter { $0.kind == .error })")
    }
}

extension String {
    /// The path on the test origin for an ad URI's path.
    fileprivate var prefixed: String { "/ads" + self }
}
