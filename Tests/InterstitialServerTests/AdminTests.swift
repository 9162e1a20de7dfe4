import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

@Suite("Admin API")
struct AdminTests {
    @Test("Requests without the bearer token are refused with 401")
    func authentication() async throws {
        try await Harness.withServer { client in
            for token in [nil, "wrong", ""] as [String?] {
                let response = try await client.admin(.get, "breaks", token: token)
                #expect(response.status == .unauthorized)
                #expect(response.errorCode == "unauthorized")
                #expect(response.headers[.wwwAuthenticate] != nil)
            }
            #expect(try await client.admin(.get, "breaks").status == .ok)
        }
        var open = try Harness.demo()
        open.adminToken = nil
        try await Harness.withServer(open) { client in
            let response = try await client.admin(.get, "breaks")
            #expect(response.status == .unauthorized)
        }
    }

    @Test(
        "The Bearer scheme is case-insensitive and may be followed by several spaces (RFC 9110 §11.4)",
        arguments: [
            ("Bearer \(Harness.token)", true), ("bearer \(Harness.token)", true), ("BEARER \(Harness.token)", true),
            ("Bearer   \(Harness.token)", true), ("Bearer\(Harness.token)", false), ("Bearer \(Harness.token)x", false),
            ("Basic \(Harness.token)", false), ("Bearer ", false), ("Bearer", false), (Harness.token, false),
        ])
    func bearerScheme(header: String, accepted: Bool) async throws {
        try await Harness.withServer { client in
            let response = try await client.get("/admin/v1/breaks", headers: [.authorization: header])
            #expect(response.status == (accepted ? .ok : .unauthorized), "\(header)")
        }
    }

    @Test(
        "An ad or a break whose URI a player would load is http(s) or a path: other schemes are refused",
        arguments: ["javascript:alert(1)", "data:text/plain,x", "file:///etc/passwd", "//evil.example/ad.m3u8"])
    func playerURIs(uri: String) async throws {
        try await Harness.withServer { client in
            let ad = try await client.admin(.post, "inventory", #"{"id":"x","uri":"\#(uri)","duration":5}"#)
            #expect(ad.status == .badRequest, "\(uri): \(ad.text)")
            #expect(ad.errorPath == "uri")
            for key in ["assetUri", "assetList"] {
                let item = try await client.admin(
                    .post, "breaks", #"{"id":"b","target":"vod/demo","at":5,"duration":5,"\#(key)":"\#(uri)"}"#)
                #expect(item.status == .badRequest, "\(key) \(uri): \(item.text)")
                #expect(item.errorPath == key)
            }
            let fine = try await client.admin(
                .post, "inventory", #"{"id":"y","uri":"HTTPS://ads.example/y.m3u8","duration":5}"#)
            #expect(fine.status == .created, "\(fine.text)")
        }
    }

    @Test("Breaks, schedules and ads: create, read, update, delete, with errors that name the field")
    func crud() async throws {
        try await Harness.withServer { client in
            let created = try await client.admin(
                .post, "breaks",
                #"{"id":"extra","target":"vod/demo","at":20,"duration":4,"ad":"ad1","restrict":["SKIP"],"attributes":{"X-COM-EXAMPLE-CAMPAIGN":"spring"}}"#
            )
            #expect(created.status == .created, "\(created.text)")
            let playlist = try await client.text("/demo/vod/video/main.m3u8")
            let line = try #require(dateRangeLines(playlist).first { $0.contains("ID=\"extra\"") })
            #expect(line.contains("START-DATE=\"2000-01-01T00:00:20.000Z\""))
            #expect(line.contains("X-ASSET-URI=\"http://"))
            #expect(line.contains("X-COM-EXAMPLE-CAMPAIGN=\"spring\""))
            #expect(try await client.admin(.get, "breaks/extra").json == created.json)
            #expect(
                try await client.admin(.post, "breaks", #"{"id":"extra","target":"vod/demo","at":1,"duration":1}"#)
                    .status == .conflict)

            // Served values never change: the update is refused.
            let update = try await client.admin(
                .put, "breaks/extra", #"{"target":"vod/demo","at":21,"duration":4,"ad":"ad1"}"#)
            #expect(update.status == .conflict)
            #expect(update.errorCode == "served-break")
            // A break not yet served can change.
            #expect(
                try await client.admin(.post, "breaks", #"{"id":"later","target":"vod/demo","at":30,"duration":5}"#)
                    .status == .created)
            #expect(
                try await client.admin(.put, "breaks/later", #"{"target":"vod/demo","at":31,"duration":5}"#).status
                    == .ok)
            #expect(try await client.admin(.delete, "breaks/later").status == .noContent)
            #expect(try await client.admin(.get, "breaks/later").status == .notFound)

            let cases: [(String, String, String)] = [
                (#"{"id":"x","target":"vod/demo","at":"soon","duration":4}"#, "at", "json-schema-or-insert"),
                (#"{"id":"x","target":"vod/nothing","at":1,"duration":4}"#, "target", "not-found"),
                (#"{"id":"x","target":"vod/demo","duration":4}"#, "at", "invalid-break"),
                (#"{"id":"x","target":"vod/demo","at":1}"#, "duration", "invalid-break"),
                (#"{"id":"x","target":"vod/demo","at":1,"duration":4,"ad":"ghost"}"#, "ad", "unknown-ad"),
                (
                    #"{"id":"x","target":"vod/demo","at":1,"duration":4,"restrict":["NEVER"]}"#, "restrict",
                    "invalid-interstitial"
                ),
                (#"{"id":"x","target":"live/demo","at":1,"duration":4}"#, "at", "invalid-break"),
                (#"{"id":"x y","target":"vod/demo","at":1,"duration":4}"#, "id", "json-schema"),
                (
                    #"{"id":"x","target":"vod/demo","at":1,"duration":4,"colour":"red"}"#, "colour",
                    "invalid-interstitial"
                ),
                (#"[1,2]"#, "", "json-schema"),
                (#"{"id":"#, "", "json-syntax"),
            ]
            for (body, path, _) in cases {
                let response = try await client.admin(.post, "breaks", body)
                #expect((400..<500).contains(Int(response.status.code)), "\(body): \(response.status)")
                #expect((response.errorPath ?? "") == path, "\(body): \(response.text)")
            }
            let large = try await client.admin(
                .post, "breaks", "{\"id\":\"" + String(repeating: "a", count: 70_000) + "\"}")
            #expect(large.status == .contentTooLarge)
            #expect(large.errorCode == "body-too-large")

            // Inventory and schedules.
            #expect(
                try await client.admin(
                    .post, "inventory", #"{"id":"ad9","uri":"https://ads.example.com/9.m3u8","duration":7.5}"#
                ).status == .created)
            #expect(
                try await client.admin(.post, "inventory", #"{"id":"ad10","uri":"x","duration":-1}"#).errorPath
                    == "duration")
            let inUse = try await client.admin(.delete, "inventory/ad1")
            #expect(inUse.status == .conflict)
            #expect(inUse.errorCode == "ad-in-use")
            #expect(try await client.admin(.delete, "inventory/ad9").status == .noContent)
            let schedule = try await client.admin(
                .put, "schedules/vod/demo",
                #"{"cadence":{"every":15,"duration":2},"prefix":"slot","interstitial":{"restrict":["JUMP"]}}"#)
            #expect(schedule.status == .ok, "\(schedule.text)")
            let withCadence = dateRangeLines(try await client.text("/demo/vod/audio-en/main.m3u8"))
            #expect(withCadence.filter { $0.contains("ID=\"slot-") }.count == 3)  // 0, 15 and 30 s
            #expect(
                try await client.admin(.put, "schedules/vod/demo", #"{"cadence":{"every":15,"duration":20}}"#).errorPath
                    == "cadence.duration")
            #expect(try await client.admin(.delete, "schedules/vod/demo").status == .noContent)
            #expect(try await client.admin(.get, "schedules/vod/demo").status == .notFound)
            let content = try await client.admin(.get, "content")
            #expect(content.text.contains("\"url\":\"/demo/live/master.m3u8\""))
        }
    }

    @Test("Live: a break now starts at the live edge; an early return adds X-PLAYOUT-LIMIT under the same ID")
    func liveControls() async throws {
        let clock = TestClock(ServerConfiguration.defaultEpoch + MediaTime(seconds: 86_400 + 3.3))
        try await Harness.withServer(clock: clock) { client in
            let started = try await client.admin(.post, "channels/demo/breaks", #"{"duration":30,"id":"live-now"}"#)
            #expect(started.status == .created, "\(started.text)")
            // Live edge at 3.3 s into a day: the segment ending at 2 s.
            #expect(started.text.contains("\"date\":\"2026-01-02T00:00:02.000Z\""))
            let before = try await client.text("/demo/live/video/main.m3u8")
            let servedLine = try #require(dateRangeLines(before).first { $0.contains("ID=\"live-now\"") })
            #expect(servedLine.contains("PLANNED-DURATION=30"))
            #expect(!servedLine.contains("X-PLAYOUT-LIMIT"))
            #expect(
                try await client.admin(.post, "channels/demo/breaks", #"{"duration":30,"id":"live-now"}"#).status
                    == .conflict)

            clock.advance(7.25)
            let returned = try await client.admin(.post, "channels/demo/return")
            #expect(returned.status == .ok, "\(returned.text)")
            #expect(returned.text.contains("\"playoutLimit\":8.55"))
            #expect(
                try await client.admin(.post, "channels/demo/return", #"{"break":"live-now"}"#).errorCode
                    == "already-returned")
            let after = try await client.text("/demo/live/audio-en/main.m3u8")
            let line = try #require(dateRangeLines(after).first { $0.contains("ID=\"live-now\"") })
            #expect(line.hasPrefix(servedLine))
            #expect(line.hasSuffix(",END-DATE=\"2026-01-02T00:00:10.550Z\",DURATION=8.55,X-PLAYOUT-LIMIT=8.55"))
            // A reload validator sees additions only.
            let reloaded = PlaylistParser.parse(try await client.text("/demo/live/video/main.m3u8"))
            guard case .media(let old) = PlaylistParser.parse(before).playlist, case .media(let new) = reloaded.playlist
            else {
                Issue.record("not media playlists")
                return
            }
            let diagnostics = ReloadValidator.validate(previous: old, current: new, document: reloaded.document)
            #expect(diagnostics.isEmpty, "\(diagnostics)")
            let deleting = try await client.admin(.delete, "breaks/live-now")
            #expect(deleting.status == .conflict)
            #expect(deleting.errorCode == "served-break")
            #expect(try await client.admin(.post, "channels/nope/return").status == .notFound)
        }
    }

    @Test("Concurrent break-now calls make one break; the others get 409 until it returns early")
    func breakNowDoesNotStack() async throws {
        let clock = TestClock(ServerConfiguration.defaultEpoch + MediaTime(seconds: 86_400 + 3.3))
        try await Harness.withServer(clock: clock) { client in
            let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let response = try await client.admin(
                            .post, "channels/demo/breaks", #"{"duration":30,"id":"now\#(index)"}"#)
                        return (response.status, response.errorCode)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == .created }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0.1 == "break-in-progress" }.count == 19, "\(statuses)")
            clock.advance(5)
            let again = try await client.admin(.post, "channels/demo/breaks", #"{"duration":30,"id":"later"}"#)
            #expect(again.errorCode == "break-in-progress")
            #expect(try await client.admin(.post, "channels/demo/return").status == .ok)
            clock.advance(2)
            let next = try await client.admin(.post, "channels/demo/breaks", #"{"duration":30,"id":"next"}"#)
            #expect(next.status == .created, "a break after the early return: \(next.text)")
        }
    }

    @Test("Breaks per target and ads in the inventory are capped (limits.breaksPerTarget, limits.inventoryAds)")
    func adminCaps() async throws {
        var configuration = try Harness.demo()
        configuration.seed = .init()
        configuration.limits.breaksPerTarget = 2
        configuration.limits.inventoryAds = 2
        try await Harness.withServer(configuration) { client in
            for index in 0..<3 {
                let response = try await client.admin(
                    .post, "breaks", #"{"id":"b\#(index)","target":"vod/demo","at":\#(10 * index + 5),"duration":5}"#)
                #expect(response.status == (index < 2 ? .created : .conflict), "\(index): \(response.text)")
                if index == 2 { #expect(response.errorCode == "limit-reached") }
            }
            // Replacing a break keeps the count.
            let replaced = try await client.admin(.put, "breaks/b0", #"{"target":"vod/demo","at":6,"duration":5}"#)
            #expect(replaced.status == .ok, "\(replaced.text)")
            // Another target has its own room.
            let live = try await client.admin(
                .post, "breaks", #"{"id":"l0","target":"live/demo","date":"2026-01-02T00:00:02.000Z","duration":5}"#)
            #expect(live.status == .created, "\(live.text)")
            for index in 0..<3 {
                let response = try await client.admin(
                    .post, "inventory", #"{"id":"a\#(index)","uri":"/ads/a.m3u8","duration":5}"#)
                #expect(response.status == (index < 2 ? .created : .conflict), "\(index): \(response.text)")
                if index == 2 { #expect(response.errorCode == "limit-reached") }
            }
            #expect(
                try await client.admin(.put, "inventory/a9", #"{"uri":"/ads/a.m3u8","duration":5}"#).status == .conflict
            )
            #expect(try await client.admin(.put, "inventory/a0", #"{"uri":"/ads/b.m3u8","duration":5}"#).status == .ok)
        }
    }

    @Test("State survives a restart: breaks, and the values served, from the SQLite file")
    func persistence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try Harness.demo()
        configuration.database = directory.appendingPathComponent("state.sqlite").path
        let line = SendableBox<String>()
        try await Harness.withServer(configuration) { client in
            #expect(
                try await client.admin(.post, "breaks", #"{"id":"kept","target":"vod/demo","at":8,"duration":4}"#)
                    .status == .created)
            line.value = dateRangeLines(try await client.text("/demo/vod/video/main.m3u8")).first {
                $0.contains("\"kept\"")
            }
            #expect(try await client.admin(.delete, "breaks/midroll-2").status == .noContent)
        }
        try await Harness.withServer(configuration) { client in
            #expect(try await client.admin(.get, "breaks/kept").status == .ok)
            #expect(try await client.admin(.get, "breaks/midroll-2").status == .notFound, "the seed does not come back")
            let text = try await client.text("/demo/vod/video/main.m3u8")
            #expect(dateRangeLines(text).first { $0.contains("\"kept\"") } == line.value)
            #expect(
                try await client.admin(.put, "breaks/kept", #"{"target":"vod/demo","at":9,"duration":4}"#).status
                    == .conflict)
        }
        let reopened = try SQLiteStore(path: configuration.database)
        let state = try reopened.load()
        #expect(state.served[ServedKey(Target(.vod, "demo"), "kept")] != nil)
        #expect(state.breaks["kept"]?.interstitial.at == MediaTime(seconds: 8))
    }
}

final class SendableBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?
    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
