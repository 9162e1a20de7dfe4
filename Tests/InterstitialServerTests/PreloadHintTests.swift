import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// The server writes App. F preload hints for the live breaks a VAST ad server
/// fills, before their interstitial, sized from the audience, recorded as served, never on
/// EXT-X-ENDLIST.
@Suite("Preload hints")
struct PreloadHintTests {
    /// A live edge of the demo loop (2 s segments, 40 s loop from 2026-01-01T00:00:00Z).
    static let start = DateTime(iso8601: "2026-03-01T12:00:00.000Z")!
    /// The demo channel's cadence break at 12:00:30 (every minute, 10 s, 30 s past).
    static let breakID = "break-1772366430"
    static let breakList = "/demo/live/asset-list.json?_HLS_interstitial_id=\(breakID)"
    static let video = "/demo/live/video/main.m3u8"
    static let vast = "http://127.0.0.1:9/vast?sid=[SESSIONID]"

    /// A content library on the demo configuration (its live channel `demo` filled by a VAST ad
    /// server deciding 100 a second), a clock, and an audience the test sets.
    final class Fixture: Sendable {
        let configuration: ServerConfiguration
        let state: ServerState
        let clock: TestClock
        /// The active sessions the library is told of.
        let audience: NIOLockedValueBox<Int>
        let client: HTTPClient
        let library: ContentLibrary
        let recorder: Task<Void, Never>

        init(
            store: any ServerStore = try! SQLiteStore(path: nil), cache: Bool = false,
            configure: (inout ServerConfiguration) -> Void = { _ in }
        ) async throws {
            var configuration = try Harness.demo()
            var settings = AdServerSettings(vast: PreloadHintTests.vast)
            settings.maximumPerSecond = 100
            configuration.live[0].adServer = settings
            configure(&configuration)
            self.configuration = configuration
            let state = try ServerState(store: store, ownsStore: true)
            try await state.open()
            try await state.seed(configuration.seed)
            self.state = state
            recorder = Task { await state.recordServed(logger: Harness.logger) }
            let clock = TestClock(PreloadHintTests.start)
            let audience = NIOLockedValueBox(0)
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            self.clock = clock
            self.audience = audience
            self.client = client
            library = ContentLibrary(
                configuration: configuration, state: state, inventory: StoredInventory(state: state), client: client,
                logger: Harness.logger, now: { clock.now },
                rendered: cache ? RenderedPlaylistCache() : RenderedPlaylistCache(countLimit: 0),
                activeSessions: { target in target == Target(.live, "demo") ? audience.withLockedValue { $0 } : 0 })
        }

        /// The playlist at `path` now, as text.
        func playlist(_ path: String = PreloadHintTests.video) async throws -> String {
            let mounted = try #require(library.mounted(path))
            let bytes = try #require(try await library.get(mounted, query: [:]).bytes)
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Renders at `date`.
        func playlist(at date: String, _ path: String = PreloadHintTests.video) async throws -> String {
            clock.set(DateTime(iso8601: date)!)
            return try await playlist(path)
        }

        /// Finishes recording and closes the store.
        func close() async throws {
            state.finishRecording()
            await recorder.value
            await state.close(logger: Harness.logger)
            try await client.shutdown()
        }
    }

    /// The valid preload hints of a playlist, as a client reads them (App. F).
    static func hints(_ text: String) -> [PreloadDateRange] {
        guard case .media(let media) = PlaylistParser.parse(Array(text.utf8)).playlist else { return [] }
        return media.dateRanges.compactMap(PreloadDateRange.init(dateRange:))
    }

    /// The interstitials of a playlist.
    static func interstitials(_ text: String) -> [InterstitialEvent] {
        guard case .media(let media) = PlaylistParser.parse(Array(text.utf8)).playlist else { return [] }
        return ScheduleInput.events(of: media)
    }

    /// The lines of the preload hints.
    static func hintLines(_ text: String) -> [String] {
        dateRangeLines(text).filter { $0.contains(PreloadDateRange.className) }
    }

    @Test(
        "A cadence break's hint appears before its interstitial, with exact attributes; X-URI is its X-ASSET-LIST; it goes with the break"
    )
    func cadenceBreak() async throws {
        let fixture = try await Fixture()
        // Range [12:00:12, 12:00:18): written once its start is at most two target durations (4 s)
        // after the live edge.
        let early = try await fixture.playlist(at: "2026-03-01T12:00:06.000Z")
        #expect(Self.hintLines(early).isEmpty)
        let first = try await fixture.playlist(at: "2026-03-01T12:00:08.000Z")
        #expect(
            Self.hintLines(first) == [
                #"#EXT-X-DATERANGE:ID="break-1772366430.preload",CLASS="com.apple.hls.preload",START-DATE="2026-03-01T12:00:12.000Z",DURATION=6,X-URI="/demo/live/asset-list.json?_HLS_interstitial_id=break-1772366430",X-TARGET-ID="break-1772366430",X-TARGET-CLASS="com.apple.hls.interstitial""#
            ], "\(first)")
        #expect(!Self.interstitials(first).contains { $0.identifier == Self.breakID }, "the hint comes first")
        // The interstitial is announced 20 s ahead (content lookahead): the hint stays as written.
        let both = try await fixture.playlist(at: "2026-03-01T12:00:12.000Z")
        let event = try #require(Self.interstitials(both).first { $0.identifier == Self.breakID })
        let hint = try #require(Self.hints(both).first)
        #expect(Self.hintLines(both) == Self.hintLines(first))
        #expect(hint.uri == event.assetListURI)
        #expect(hint.uri == Self.breakList)
        #expect(hint.targetID == event.identifier)
        #expect(hint.targetClass == InterstitialEvent.className)
        #expect(hint.end <= event.date! - MediaTime(seconds: 12), "it ends before the players' normal request time")
        // The validator finds nothing about it: the same findings with and without the hint.
        let without = both.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains(PreloadDateRange.className) }.joined(separator: "\n")
        let findings = InterstitialValidator.validate(PlaylistParser.parse(Array(both.utf8))).map { "\($0.rule)" }
        let reference = InterstitialValidator.validate(PlaylistParser.parse(Array(without.utf8))).map { "\($0.rule)" }
        #expect(findings == reference)
        #expect(!findings.contains { $0.contains("preload") })
        // It stays while the break is in the window (players behind the edge would discard what
        // it loaded, App. F), and goes with it.
        let started = try await fixture.playlist(at: "2026-03-01T12:00:52.000Z")
        #expect(Self.hintLines(started) == Self.hintLines(first))
        #expect(Self.interstitials(started).contains { $0.identifier == Self.breakID })
        let past = try await fixture.playlist(at: "2026-03-01T12:00:54.000Z")
        #expect(Self.hintLines(past).isEmpty)
        #expect(!Self.interstitials(past).contains { $0.identifier == Self.breakID })
        try await fixture.close()
    }

    @Test("An admin break's hint appears before its interstitial and goes when the break is deleted")
    func adminBreak() async throws {
        let fixture = try await Fixture()
        var request = InsertionRequest(id: "big-match")
        request.date = DateTime(iso8601: "2026-03-01T12:05:10.000Z")!
        request.plannedDuration = MediaTime(seconds: 20)
        let catalog = Catalog(library: fixture.library)
        try await catalog.createBreak(Break(target: Target(.live, "demo"), interstitial: request))
        // Range [12:04:52, 12:04:58): written from the edge 12:04:48.
        #expect(try await Self.hintLines(fixture.playlist(at: "2026-03-01T12:04:46.000Z")).isEmpty)
        let text = try await fixture.playlist(at: "2026-03-01T12:04:48.000Z")
        let hint = try #require(Self.hints(text).first { $0.targetID == "big-match" })
        #expect(hint.identifier == "big-match.preload")
        #expect(hint.uri == "/demo/live/asset-list.json?_HLS_interstitial_id=big-match")
        #expect(hint.startDate == DateTime(iso8601: "2026-03-01T12:04:52.000Z")!)
        #expect(hint.duration == MediaTime(seconds: 6))
        #expect(!Self.interstitials(text).contains { $0.identifier == "big-match" })
        // Deleted before it is served: the hint goes (App. F: the client discards what it loaded).
        try await catalog.deleteBreak(id: "big-match", now: fixture.clock.now)
        let after = try await fixture.playlist(at: "2026-03-01T12:04:50.000Z")
        #expect(!Self.hints(after).contains { $0.targetID == "big-match" })
        try await fixture.close()
    }

    @Test(
        "The range is sized from the audience and the ad server's rate: 0 viewers give the shortest, 1,500 at 100/s give 15 s",
        arguments: [(0, 6), (1500, 15), (1_000_000, 120)])
    func sizedFromAudience(sessions: Int, seconds: Int) async throws {
        let fixture = try await Fixture()
        fixture.audience.withLockedValue { $0 = sessions }
        // Late enough for every length: the hint of the 12:00:30 break is written at 12:00:10.
        let text = try await fixture.playlist(at: "2026-03-01T12:00:10.000Z")
        let hint = try #require(Self.hints(text).first { $0.targetID == Self.breakID })
        #expect(hint.duration == MediaTime(seconds: seconds))
        #expect(hint.end == DateTime(iso8601: "2026-03-01T12:00:18.000Z")!)
        try await fixture.close()
    }

    @Test("The settings change the range; \"preload\": false writes none")
    func settings() async throws {
        let custom = try await Fixture { configuration in
            configuration.live[0].adServer?.preload = try! PreloadSettings.decode(
                .object(["endsBefore": .integer(20), "minimum": .integer(8)]), path: "preload")
        }
        let text = try await custom.playlist(at: "2026-03-01T12:00:00.000Z")
        let hint = try #require(Self.hints(text).first { $0.targetID == Self.breakID })
        #expect(hint.startDate == DateTime(iso8601: "2026-03-01T12:00:02.000Z")!)
        #expect(hint.duration == MediaTime(seconds: 8))
        try await custom.close()
        let off = try await Fixture { $0.live[0].adServer?.preload.isEnabled = false }
        #expect(try await Self.hintLines(off.playlist(at: "2026-03-01T12:00:10.000Z")).isEmpty)
        try await off.close()
    }

    @Test("No hint for breaks the inventory fills: a target without a VAST ad server, or a break with a fixed ad")
    func inventoryFilled() async throws {
        let inventory = try await Fixture { $0.live[0].adServer = nil }
        let text = try await inventory.playlist(at: "2026-03-01T12:00:12.000Z")
        #expect(Self.interstitials(text).contains { $0.identifier == Self.breakID })
        #expect(Self.hintLines(text).isEmpty)
        try await inventory.close()

        let fixture = try await Fixture()
        var request = InsertionRequest(id: "fixed")
        request.date = DateTime(iso8601: "2026-03-01T12:00:50.000Z")!
        request.duration = MediaTime(seconds: 6)
        try await Catalog(library: fixture.library).createBreak(
            Break(target: Target(.live, "demo"), interstitial: request, ad: "ad1"))
        let fixed = try await fixture.playlist(at: "2026-03-01T12:00:40.000Z")
        #expect(Self.interstitials(fixed).contains { $0.identifier == "fixed" })
        #expect(!Self.hints(fixed).contains { $0.targetID == "fixed" })
        try await fixture.close()
    }

    @Test("A hint is recorded as served: after a restart with another audience, the same bytes")
    func recordedAsServed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-hints-\(UUID().uuidString).db")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try await Fixture(store: SQLiteStore(path: path))
        let before = try await first.playlist(at: "2026-03-01T12:00:08.000Z")
        let key = ServedKey(Target(.live, "demo"), Self.breakID + ".preload")
        let recorded = try #require(first.state.snapshot.served[key])
        #expect(await first.state.awaitRecorded([key], timeout: .seconds(600)))
        #expect(PreloadHint(attributes: recorded)?.range.lowerBound == DateTime(iso8601: "2026-03-01T12:00:12.000Z")!)
        try await first.close()

        // Another replica (here the same store reopened) with 1,500 viewers would size it 15 s.
        let second = try await Fixture(store: SQLiteStore(path: path))
        second.audience.withLockedValue { $0 = 1500 }
        let after = try await second.playlist(at: "2026-03-01T12:00:08.000Z")
        #expect(after == before)
        let later = try await second.playlist(at: "2026-03-01T12:00:14.000Z")
        #expect(Self.hintLines(later) == Self.hintLines(before))
        try await second.close()
    }

    @Test("A preload entry of the served map is never an interstitial: planning, lookup and asset lists skip it")
    func servedWalksSkipHints() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.playlist(at: "2026-03-01T12:00:08.000Z")
        let target = Target(.live, "demo")
        let hintID = Self.breakID + ".preload"
        let attributes = try #require(fixture.state.snapshot.served[ServedKey(target, hintID)])
        #expect(InterstitialEvent(attributes: attributes) == nil)
        #expect(PreloadHint(attributes: attributes)?.breakID == Self.breakID)
        let planner = fixture.library.planner(for: try #require(fixture.library.mounted(Self.video)))
        let timeline = BreakPlanner.Timeline.live(
            epoch: fixture.configuration.live[0].epoch,
            window: DateTime(iso8601: "2026-03-01T12:00:00.000Z")!..<DateTime(iso8601: "2026-03-01T12:00:20.000Z")!,
            lookahead: MediaTime(seconds: 20))
        #expect(planner.lookup(id: hintID, timeline) == nil)
        #expect(!planner.plan(timeline).contains { $0.event.identifier == hintID })
        // An asset list asked for the hint's ID is not a break.
        let mounted = try #require(fixture.library.mounted("/demo/live/asset-list.json"))
        await #expect(throws: APIError.self) {
            _ = try await fixture.library.get(mounted, query: ["_HLS_interstitial_id": hintID])
        }
        // A break cannot take the hint's ID once it was served.
        var request = InsertionRequest(id: hintID)
        request.date = DateTime(iso8601: "2026-03-01T13:00:00.000Z")!
        request.plannedDuration = MediaTime(seconds: 10)
        await #expect(throws: APIError.self) {
            try await Catalog(library: fixture.library).createBreak(Break(target: target, interstitial: request))
        }
        try await fixture.close()
    }

    @Test("A break whose ID is a hint's keeps it: no hint is written under an ID in use")
    func noCollision() async throws {
        let fixture = try await Fixture()
        let catalog = Catalog(library: fixture.library)
        for (id, date) in [("show", "2026-03-01T12:03:20.000Z"), ("show.preload", "2026-03-01T12:03:40.000Z")] {
            var request = InsertionRequest(id: id)
            request.date = DateTime(iso8601: date)!
            request.plannedDuration = MediaTime(seconds: 10)
            try await catalog.createBreak(Break(target: Target(.live, "demo"), interstitial: request))
        }
        // Both ranges start by 12:03:22, two target durations past the edge.
        let text = try await fixture.playlist(at: "2026-03-01T12:03:18.000Z")
        #expect(!Self.hints(text).contains { $0.targetID == "show" })
        #expect(Self.hints(text).contains { $0.targetID == "show.preload" })
        try await fixture.close()
    }

    @Test("A kept playlist does not hide a hint that a larger audience brings earlier")
    func cacheFollowsAudience() async throws {
        let fixture = try await Fixture(cache: true)
        let mounted = try #require(fixture.library.mounted(Self.video))
        // With no viewers the range starts at 12:00:12: not yet written at 12:00:00.
        let quiet = try await fixture.playlist(at: "2026-03-01T12:00:00.000Z")
        #expect(Self.hintLines(quiet).isEmpty)
        let known = (try? fixture.library.answer(mounted, query: [:]))?.known
        #expect(known?.bytes.map { String(decoding: $0, as: UTF8.self) } == quiet)
        // 1,500 viewers at 100/s: the range starts at 12:00:03, written now, in the same segment.
        fixture.audience.withLockedValue { $0 = 1500 }
        let busyKnown = (try? fixture.library.answer(mounted, query: [:]))?.known
        #expect(busyKnown == nil, "the fast lane does not answer the quiet playlist")
        let busy = try await fixture.playlist()
        #expect(Self.hints(busy).first?.duration == MediaTime(seconds: 15))
        try await fixture.close()
    }

    @Test("Never on a playlist with EXT-X-ENDLIST")
    func notOnEndList() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-end-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:1\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-06-01T11:59:50.000Z\n"
        for index in 1...5 { text += "#EXTINF:2.0,\nseg\(index).ts\n" }
        try text.write(to: directory.appendingPathComponent("open.m3u8"), atomically: true, encoding: .utf8)
        try (text + "#EXT-X-ENDLIST\n").write(
            to: directory.appendingPathComponent("ended.m3u8"), atomically: true, encoding: .utf8)
        let clock = TestClock(DateTime(iso8601: "2026-06-01T12:00:00.000Z")!)
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            var configuration = try Harness.demo()
            let origin = "http://127.0.0.1:\(port)"
            configuration.allowedOrigins = [origin]
            for name in ["open", "ended"] {
                var channel = ServerConfiguration.Content(
                    id: name, path: "/live/\(name)", origin: .upstream(origin + "/\(name).m3u8"))
                channel.adServer = AdServerSettings(vast: Self.vast)
                configuration.live.append(channel)
            }
            try await Harness.withServer(configuration, clock: clock) { client in
                for name in ["open", "ended"] {
                    let created = try await client.admin(
                        .post, "breaks",
                        #"{"id":"\#(name)-break","target":"live/\#(name)","date":"2026-06-01T12:00:15.000Z","plannedDuration":8}"#
                    )
                    #expect(created.status == .created, "\(created.text)")
                }
                let open = try await client.text("/live/open/open.m3u8")
                #expect(Self.hints(open).map(\.targetID) == ["open-break"], "\(open)")
                let ended = try await client.text("/live/ended/ended.m3u8")
                #expect(ended.contains("#EXT-X-ENDLIST"))
                #expect(Self.interstitials(ended).map(\.identifier) == ["ended-break"])
                #expect(Self.hintLines(ended).isEmpty, "\(ended)")
            }
        }
    }

    @Test("The preload settings are read with located errors and written back")
    func settingsJSON() throws {
        func decode(_ json: String) throws(APIError) -> AdServerSettings {
            let value = try! JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
            return try AdServerSettings.decode(value, path: "adServer", allowsVMAP: false)
        }
        let custom = try decode(
            #"{"vast":"https://ads.example/v","preload":{"endsBefore":15,"minimum":10,"maximum":300}}"#)
        #expect(custom.preload.windows().endsBefore == MediaTime(seconds: 15))
        #expect(custom.preload.windows().minimum == MediaTime(seconds: 10))
        #expect(custom.preload.windows().maximum == MediaTime(seconds: 300))
        #expect(try AdServerSettings.decode(custom.jsonValue, allowsVMAP: false) == custom)
        let off = try decode(#"{"vast":"https://ads.example/v","preload":false}"#)
        #expect(!off.preload.isEnabled)
        #expect(try AdServerSettings.decode(off.jsonValue, allowsVMAP: false) == off)
        let plain = try decode(#"{"vast":"https://ads.example/v","preload":true}"#)
        #expect(plain.preload == PreloadSettings())
        guard case .object(let fields) = plain.jsonValue else { Issue.record("not an object"); return }
        #expect(fields["preload"] == nil, "the defaults are not written")
        for (json, path) in [
            (#"{"maximum":901}"#, "adServer.preload.maximum"), (#"{"minimum":0}"#, "adServer.preload.minimum"),
            (#"{"endsBefore":121}"#, "adServer.preload.endsBefore"),
            (#"{"minimum":30,"maximum":20}"#, "adServer.preload.maximum"),
            (#"{"window":3}"#, "adServer.preload.window"), (#""yes""#, "adServer.preload"),
            (#"{"endsBefore":-1}"#, "adServer.preload.endsBefore"),
        ] {
            do {
                _ = try decode(#"{"vast":"https://ads.example/v","preload":\#(json)}"#)
                Issue.record("\(json) was accepted")
            } catch {
                #expect(error.code == .jsonSchema)
                #expect(error.path == path, "\(json): \(error.message)")
            }
        }
    }
}
