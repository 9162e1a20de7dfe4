import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// Issue 35, item 4: a target publishes its breaks as a Date Range Schedule (profile R27).
@Suite("Date Range Schedules on the server")
struct PublishedScheduleTests {
    /// The demo with its VOD asset's breaks published as a schedule.
    static func scheduleDemo() throws -> ServerConfiguration {
        var configuration = try plainDemo()
        configuration.vod[0].interstitials = .schedule
        return configuration
    }

    /// The demo, its absolute URLs on one public base whatever port a run gets (as replicas share one).
    static func plainDemo() throws -> ServerConfiguration {
        var configuration = try Harness.demo()
        configuration.publicURL = "https://origin.example.com"
        return configuration
    }

    /// The events of a playlist written with plain tags.
    static func plainEvents(_ text: String) -> [InterstitialEvent] {
        guard case .media(let media) = PlaylistParser.parse(text).playlist else { return [] }
        return ScheduleInput.events(of: media)
    }

    /// The events of a playlist written with a schedule, its documents fetched from the server:
    /// the pure resolution a player runs.
    static func resolvedEvents(
        _ text: String, playlistURL: String, client: some TestClientProtocol
    ) async throws -> (DateRangeScheduleResolution, [DateRangeSchedule]) {
        guard case .media(let media) = PlaylistParser.parse(text).playlist else {
            throw APIError(status: 502, code: .playlist, "not a media playlist")
        }
        let schedules = DateRangeSchedule.schedules(of: media, playlistURL: playlistURL)
        var documents: [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>] = [:]
        for schedule in schedules {
            let response = try await client.get(schedule.uri)
            #expect(response.status == .ok, "\(schedule.resolvedURI): \(response.text.prefix(200))")
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.headers[.cacheControl] == CachePolicy.publishedSchedule)
            documents[schedule.identity] = Result { () throws(DateRangeScheduleError) in
                try DateRangeScheduleDocument.decode(Array(buffer: response.body))
            }
        }
        let resolution = DateRangeScheduleResolution.resolve(
            playlist: media, playlistURL: playlistURL, documents: documents)
        return (resolution, schedules)
    }

    /// What a player plays of an event: the attributes of its tag (in name order: a document's
    /// entries are keyed by name).
    static func written(_ events: [InterstitialEvent]) throws -> [String] {
        try events.map { event in
            var plain = event
            plain.scheduleIdentifier = nil
            return try plain.dateRangeAttributes.map { "\($0.name)=\($0.value.rawValue)" }.sorted().joined(
                separator: ",")
        }
    }

    @Test("A VOD's published schedule holds the same breaks as its plain tags: IDs, dates, attributes, asset lists")
    func sameBreaksAsPlain() async throws {
        let path = "/demo/vod/video/main.m3u8"
        let plain = LockedBox<String>("")
        try await Harness.withServer(Self.plainDemo()) { client in plain.set(try await client.text(path)) }
        let plainEvents = Self.plainEvents(plain.get())
        #expect(plainEvents.count == 4)
        #expect(plainEvents.contains { $0.assetListURI != nil })
        try await Harness.withServer(Self.scheduleDemo()) { client in
            let text = try await client.text(path)
            let lines = dateRangeLines(text)
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains(#"CLASS="com.apple.hls.daterange-schedule""#) == true)
            #expect(Self.plainEvents(text).isEmpty, "players without schedules see no interstitial tags")
            let (resolution, schedules) = try await Self.resolvedEvents(
                text, playlistURL: "http://127.0.0.1" + path, client: client)
            #expect(schedules.count == 1)
            #expect(resolution.problems.isEmpty, "\(resolution.problems)")
            #expect(resolution.pending.isEmpty)
            let events = resolution.events
            #expect(events.allSatisfy { $0.scheduleIdentifier == schedules.first?.identifier })
            #expect(events.map(\.identifier) == plainEvents.map(\.identifier))
            #expect(events.map(\.date) == plainEvents.map(\.date))
            #expect(events.map(\.assetListURI) == plainEvents.map(\.assetListURI))
            #expect(events.map(\.assetURI) == plainEvents.map(\.assetURI))
            #expect(try Self.written(events) == Self.written(plainEvents))
            // Without an ID, the route answers the document the primary's playlist names now.
            let current = try await client.get("/demo/vod/schedule.json")
            #expect(current.status == .ok)
            #expect(current.headers[.cacheControl] == CachePolicy.noStore)
            let byID = try await client.get(schedules[0].uri)
            #expect(current.body == byID.body)
        }
    }

    @Test("The published schedule is the same on every replica, which answers its document unasked")
    func deterministicAcrossReplicas() async throws {
        let path = "/demo/vod/video/main.m3u8"
        let first = LockedBox<(text: String, uri: String, document: String)>(("", "", ""))
        try await Harness.withServer(Self.scheduleDemo()) { client in
            let text = try await client.text(path)
            guard case .media(let media) = PlaylistParser.parse(text).playlist,
                let schedule = DateRangeSchedule.schedules(of: media).first
            else {
                Issue.record("no schedule tag")
                return
            }
            #expect(schedule.identifier.hasPrefix(PublishedSchedule.identifierPrefix))
            first.set((text, schedule.uri, try await client.text(schedule.uri)))
        }
        let (text, uri, document) = first.get()
        #expect(!uri.isEmpty)
        // Another replica, asked for the document before any playlist: the same bytes.
        try await Harness.withServer(Self.scheduleDemo()) { client in
            let answer = try await client.get(uri)
            #expect(answer.status == .ok)
            #expect(answer.headers[.cacheControl] == CachePolicy.publishedSchedule)
            #expect(answer.text == document)
            #expect(try await client.text(path) == text)
        }
    }

    @Test("A change of breaks gives a new schedule ID; the same breaks the same ID")
    func identityFollowsBreaks() throws {
        var first = InterstitialEvent(identifier: "a", date: DateTime(iso8601: "2026-01-01T00:00:10.000Z")!)
        first.assetURI = "/ads/ad1/master.m3u8"
        first.duration = MediaTime(seconds: 6)
        var second = first
        second.identifier = "b"
        second.date = DateTime(iso8601: "2026-01-01T00:01:10.000Z")!
        let one = try #require(try PublishedSchedule.make(events: [first], contentPath: "/live/x"))
        let same = try #require(try PublishedSchedule.make(events: [first], contentPath: "/live/x"))
        let two = try #require(try PublishedSchedule.make(events: [first, second], contentPath: "/live/x"))
        #expect(one == same)
        #expect(one.identifier != two.identifier)
        #expect(one.tag[InterstitialEvent.AttributeName.startDate]?.quotedString == "2026-01-01T00:00:10.000Z")
        #expect(
            one.tag[DateRangeSchedule.AttributeName.uri]?.quotedString
                == "/live/x/schedule.json?id=\(one.identifier)")
        #expect(try PublishedSchedule.make(events: [], contentPath: "/live/x") == nil)
        let decoded = try DateRangeScheduleDocument.decode(two.document)
        #expect(decoded.entries.map(\.identifier) == ["a", "b"])
        #expect(decoded.problems.isEmpty)
    }

    @Test("The schedule route: unknown IDs are 404, malformed ones 400, a target with plain tags has none")
    func routeErrors() async throws {
        try await Harness.withServer(Self.scheduleDemo()) { client in
            let unknown = try await client.get("/demo/vod/schedule.json?id=hlsi-schedule-0000000000000000")
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "not-found")
            #expect(unknown.headers[.cacheControl] == CachePolicy.noStore)
            for bad in ["nothing", "hlsi-schedule-%2F..", String(repeating: "a", count: 200)] {
                let response = try await client.get("/demo/vod/schedule.json?id=\(bad)")
                #expect(response.status == .badRequest, "\(bad)")
                #expect(response.errorCode == "bad-path")
                #expect(response.errorPath == "id")
            }
        }
        try await Harness.withServer { client in
            let none = try await client.get("/demo/vod/schedule.json")
            #expect(none.status == .notFound)
            #expect(none.errorCode == "not-found")
            #expect(dateRangeLines(try await client.text("/demo/vod/video/main.m3u8")).count == 4)
        }
    }

    @Test("interstitials and flattenSchedules are read per target, with the JSON path of a wrong value")
    func configuration() throws {
        let good = try ServerConfiguration.decode(
            Array(
                #"{"vod": [{"id": "a", "directory": "/x", "interstitials": "schedule"}], "live": [{"id": "b", "upstream": "https://up.example/b/live.m3u8", "flattenSchedules": true}], "allowedOrigins": ["https://up.example"]}"#
                    .utf8), base: "/")
        #expect(good.vod[0].interstitials == .schedule)
        #expect(good.live[0].interstitials == .tags)
        #expect(good.live[0].flattensSchedules)
        #expect(!good.vod[0].flattensSchedules)
        for (json, path) in [
            (#"{"vod": [{"id": "a", "directory": "/x", "interstitials": "both"}]}"#, "vod[0].interstitials"),
            (#"{"vod": [{"id": "a", "directory": "/x", "interstitials": 1}]}"#, "vod[0].interstitials"),
            (#"{"vod": [{"id": "a", "directory": "/x", "flattenSchedules": true}]}"#, "vod[0].flattenSchedules"),
        ] {
            do {
                _ = try ServerConfiguration.decode(Array(json.utf8), base: "/")
                Issue.record("accepted: \(json)")
            } catch {
                #expect(error.path == path, "\(json): \(error)")
            }
        }
    }

    @Test("The memo of published documents is bounded by count and bytes, oldest out first")
    func memoBounds() throws {
        let memo = PublishedScheduleMemo(limit: 2, byteLimit: 1000)
        func schedule(_ id: String, bytes: Int) -> PublishedSchedule {
            PublishedSchedule(identifier: id, tag: AttributeList([]), document: Array(repeating: 0x20, count: bytes))
        }
        memo.keep(schedule("a", bytes: 10), content: "c")
        memo.keep(schedule("b", bytes: 10), content: "c")
        memo.keep(schedule("c", bytes: 10), content: "c")
        #expect(memo.count == 2)
        #expect(memo.document(content: "c", identifier: "a") == nil)
        #expect(memo.document(content: "c", identifier: "c") != nil)
        memo.keep(schedule("big", bytes: 995), content: "c")
        #expect(memo.count == 1)
        memo.keep(schedule("huge", bytes: 1001), content: "c")
        #expect(memo.document(content: "c", identifier: "huge") == nil)
    }
    @Test("A live channel's schedule holds the breaks of its plain window, and a new break gives a new schedule ID")
    func liveSameBreaksAsPlain() async throws {
        let path = "/demo/live/video/main.m3u8"
        // 1:25 into a day of the loop: the break at 1:30 is announced (20 s ahead).
        let start = ServerConfiguration.defaultEpoch + MediaTime(seconds: 86_400 + 85)
        let plain = LockedBox<String>("")
        try await Harness.withServer(Self.plainDemo(), clock: TestClock(start)) { client in
            plain.set(try await client.text(path))
        }
        let plainEvents = Self.plainEvents(plain.get())
        #expect(!plainEvents.isEmpty)
        var configuration = try Self.plainDemo()
        configuration.live[0].interstitials = .schedule
        let clock = TestClock(start)
        try await Harness.withServer(configuration, clock: clock) { client in
            let text = try await client.text(path)
            #expect(dateRangeLines(text).count == 1)
            let (resolution, schedules) = try await Self.resolvedEvents(
                text, playlistURL: "http://127.0.0.1" + path, client: client)
            #expect(resolution.problems.isEmpty, "\(resolution.problems)")
            #expect(try Self.written(resolution.events) == Self.written(plainEvents))
            // The live timeline document reads the published schedule.
            let timeline = try await client.get("/demo/live/timeline.json")
            #expect(timeline.status == .ok)
            for event in plainEvents { #expect(timeline.text.contains(event.identifier)) }
            // A minute on, the next break is announced: another document, another ID.
            clock.advance(60)
            let later = try await client.text(path)
            guard case .media(let media) = PlaylistParser.parse(later).playlist else { return }
            let next = DateRangeSchedule.schedules(of: media)
            #expect(next.count == 1)
            #expect(next.first?.identifier != schedules.first?.identifier)
        }
    }

    /// An upstream VOD media playlist with a schedule tag whose document is `schedule.json`.
    static let upstreamPlaylist: String = {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-03-01T10:00:00.000Z\n"
        text +=
            #"#EXT-X-DATERANGE:ID="sched",CLASS="com.apple.hls.daterange-schedule",START-DATE="2026-03-01T10:00:00.000Z",X-URI="schedule.json""#
        text += "\n"
        for index in 0..<15 { text += "#EXTINF:4.0,\nseg\(index).ts\n" }
        return text + "#EXT-X-ENDLIST\n"
    }()

    /// Its document: one entry by X-SCHEDULE-OFFSET, one by START-DATE.
    static let upstreamDocument = #"""
        {"DATERANGES":[
         {"ID":"up-1","CLASS":"com.apple.hls.interstitial","X-SCHEDULE-OFFSET":12,"DURATION":6,"X-ASSET-URI":"https://ads.example/a/master.m3u8","X-RESUME-OFFSET":0},
         {"ID":"up-2","CLASS":"com.apple.hls.interstitial","START-DATE":"2026-03-01T10:00:40.000Z","X-ASSET-LIST":"https://ads.example/list.json","X-RESTRICT":"SKIP,JUMP"}
        ]}
        """#

    /// Runs `body` with a server proxying an upstream VOD at `/up/vod` that flattens schedules, the
    /// upstream answering the document with `document` (nil: 404).
    static func withFlattening(
        document: String?, _ body: @Sendable (any TestClientProtocol, TestOrigin) async throws -> Void
    ) async throws {
        try await TestOrigin.withOrigin(routes: { path in
            if path.hasPrefix("/up/main.m3u8") { return .init(body: Array(Self.upstreamPlaylist.utf8)) }
            if path.hasPrefix("/up/schedule.json"), let document {
                return .init(contentType: "application/json", body: Array(document.utf8))
            }
            return .init(status: .notFound, contentType: "text/plain", body: Array("no".utf8))
        }) { origin in
            var configuration = try Harness.demo()
            configuration.allowedOrigins = [origin.origin]
            var content = ServerConfiguration.Content(
                id: "up", path: "/up/vod", origin: .upstream(origin.origin + "/up/main.m3u8"), entry: "main.m3u8")
            content.flattensSchedules = true
            configuration.vod.append(content)
            try await Harness.withServer(configuration) { client in try await body(client, origin) }
        }
    }

    @Test("An upstream's schedule is flattened into plain tags, fetched once per identity")
    func flattening() async throws {
        try await Self.withFlattening(document: Self.upstreamDocument) { client, origin in
            let text = try await client.text("/up/vod/main.m3u8")
            let lines = dateRangeLines(text)
            #expect(lines.count == 2, "\(lines)")
            #expect(!text.contains("com.apple.hls.daterange-schedule"))
            let events = Self.plainEvents(text)
            #expect(events.map(\.identifier) == ["up-1", "up-2"])
            #expect(
                events.map(\.date)
                    == ["2026-03-01T10:00:12.000Z", "2026-03-01T10:00:40.000Z"].map { DateTime(iso8601: $0) })
            #expect(events[0].assetURI == "https://ads.example/a/master.m3u8")
            #expect(events[1].assetListURI == "https://ads.example/list.json")
            #expect(events.allSatisfy { $0.scheduleIdentifier == nil })
            // The same playlist again (another URL, so it is rendered again): the document is kept.
            let again = try await client.text("/up/vod/main.m3u8?v=2")
            #expect(dateRangeLines(again).count == 2)
            #expect(origin.count("/up/schedule.json") == 1)
            let metrics = try await client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Harness.token)"])
            #expect(String(buffer: metrics.body).contains(#"hlsi_schedule_loads_total{result="loaded"} 1"#))
        }
    }

    @Test("A schedule document that fails upstream, or is not JSON, adds no events; the playlist is served")
    func flatteningFailure() async throws {
        for document in [nil, "{not json", #"{"DATERANGES": 3}"#] as [String?] {
            try await Self.withFlattening(document: document) { client, _ in
                let text = try await client.text("/up/vod/main.m3u8")
                #expect(dateRangeLines(text).isEmpty, "\(document ?? "404")")
                #expect(text.contains("#EXTINF:4.0,"))
                let metrics = try await client.execute(
                    uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Harness.token)"])
                #expect(String(buffer: metrics.body).contains(#"hlsi_schedule_loads_total{result="failed"} 1"#))
            }
        }
    }
}

/// A value shared with a `@Sendable` test body.
final class LockedBox<Value: Sendable>: Sendable {
    private let box: NIOLockedValueBox<Value>
    init(_ value: Value) { box = NIOLockedValueBox(value) }
    func get() -> Value { box.withLockedValue { $0 } }
    func set(_ value: Value) { box.withLockedValue { $0 = value } }
}
