import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Testing

@testable import InterstitialServer

/// Early notices of live breaks (`POST /admin/v1/channels/{id}/upcoming`): the admin route, the rule
/// that matches a signalled break to a notice, expiry, and a notice decided ahead whose cue is
/// answered from those decisions.
@Suite("Early notices of live breaks")
struct BreakNoticeTests {
    static let base = DateTime(iso8601: "2026-06-01T12:00:00.000Z")!
    static let channel = Target(.live, "news")

    // MARK: Matching

    /// A case of the matching table: notices (ID, start in seconds from `base`), cues (ID, start or
    /// nil, served under their own ID, cancelled), and the ID each cue is served with.
    struct MatchCase: Sendable, CustomTestStringConvertible {
        var name: String
        var notices: [(String, Int)]
        var cues: [(id: String, start: Double?, served: Bool, cancelled: Bool)]
        var expected: [String]
        var testDescription: String { name }

        init(
            _ name: String, notices: [(String, Int)], cues: [(String, Double?)], served: Set<String> = [],
            cancelled: Set<String> = [], expected: [String]
        ) {
            self.name = name
            self.notices = notices
            self.cues = cues.map {
                (id: $0.0, start: $0.1, served: served.contains($0.0), cancelled: cancelled.contains($0.0))
            }
            self.expected = expected
        }
    }

    static let matchCases: [MatchCase] = [
        MatchCase(
            "a cue at the notice's time takes it", notices: [("notice-a", 100)], cues: [("c1", 100)],
            expected: ["notice-a"]),
        MatchCase("a cue 9 s late takes it", notices: [("notice-a", 100)], cues: [("c1", 109)], expected: ["notice-a"]),
        MatchCase(
            "a cue exactly the tolerance early takes it", notices: [("notice-a", 100)], cues: [("c1", 90)],
            expected: ["notice-a"]),
        MatchCase(
            "a cue past the tolerance keeps its ID", notices: [("notice-a", 100)], cues: [("c1", 110.5)],
            expected: ["c1"]),
        MatchCase(
            "a cue without a date keeps its ID", notices: [("notice-a", 100)], cues: [("c1", nil)], expected: ["c1"]),
        MatchCase(
            "a cue served under its own ID keeps it", notices: [("notice-a", 100)], cues: [("c1", 100)], served: ["c1"],
            expected: ["c1"]),
        MatchCase(
            "two cues: the nearer takes the notice", notices: [("notice-a", 100)], cues: [("c1", 103), ("c2", 98)],
            expected: ["c1", "notice-a"]),
        MatchCase(
            "two cues as near: the earlier takes it", notices: [("notice-a", 100)], cues: [("c2", 103), ("c1", 97)],
            expected: ["c2", "notice-a"]),
        MatchCase(
            "two notices as near: the earlier is taken", notices: [("notice-b", 158), ("notice-a", 142)],
            cues: [("c1", 150)], expected: ["notice-a"]),
        MatchCase(
            "two notices, two cues: each cue its nearest", notices: [("notice-a", 100), ("notice-b", 112)],
            cues: [("c1", 101), ("c2", 110)], expected: ["notice-a", "notice-b"]),
        MatchCase(
            "a cancelled cue takes the notice (and is withdrawn under its ID)", notices: [("notice-a", 100)],
            cues: [("c1", 100)], cancelled: ["c1"], expected: ["notice-a"]),
        MatchCase("no notices: nothing changes", notices: [], cues: [("c1", 100)], expected: ["c1"]),
    ]

    static func cues(_ item: MatchCase) -> [SignalledBreak] {
        item.cues.enumerated().map { index, cue in
            SignalledBreak(
                id: cue.id, startDate: cue.start.map { base + MediaTime(seconds: $0) },
                plannedDuration: MediaTime(seconds: 30), form: .cueOut, isCancelled: cue.cancelled, line: index + 1)
        }
    }

    static func notices(_ item: MatchCase) -> [BreakNotice] {
        item.notices.map {
            BreakNotice(
                target: channel, id: $0.0, start: base + MediaTime(seconds: $0.1), duration: MediaTime(seconds: 30))
        }
    }

    @Test("NoticeMatcher: which cue takes which notice, in any input order", arguments: matchCases)
    func matching(_ item: MatchCase) {
        let served = Set(item.cues.filter(\.served).map(\.id))
        let matched = NoticeMatcher.match(
            Self.cues(item), notices: Self.notices(item), tolerance: MediaTime(seconds: 10),
            isServed: { served.contains($0) })
        #expect(matched.map(\.id) == item.expected)
        // The same in reverse order: every rendition and replica serves the same IDs.
        let reversed = NoticeMatcher.match(
            Self.cues(item).reversed(), notices: Self.notices(item).reversed(), tolerance: MediaTime(seconds: 10),
            isServed: { served.contains($0) })
        #expect(Array(reversed.map(\.id).reversed()) == item.expected)
    }

    @Test(
        "The planner serves a matched cue under the notice's ID; once served, the same break found again under another ID is not served twice"
    )
    func planner() throws {
        var state = StoredState()
        let notice = BreakNotice(
            target: Self.channel, id: "notice-q2", start: Self.base + MediaTime(seconds: 100),
            duration: MediaTime(seconds: 30))
        state.apply(.saveNotice(notice))
        var planner = BreakPlanner(
            target: Self.channel, state: state, assetListURI: "/live/news/asset-list.json", adURI: { $0.uri })
        planner.signalled = [
            SignalledBreak(
                id: "scte35-7-abcd", startDate: Self.base + MediaTime(seconds: 102),
                plannedDuration: MediaTime(seconds: 30),
                form: .cueOut, line: 5)
        ]
        let timeline = BreakPlanner.Timeline.live(
            epoch: Self.base, window: (Self.base + MediaTime(seconds: 90))..<(Self.base + MediaTime(seconds: 110)),
            lookahead: .zero)
        let planned = planner.plan(timeline)
        #expect(planned.map(\.event.identifier) == ["notice-q2"])
        // Before the cue, the notice is an upcoming break to decide for, and no date range.
        let before = BreakPlanner.Timeline.live(
            epoch: Self.base, window: (Self.base + MediaTime(seconds: 40))..<(Self.base + MediaTime(seconds: 60)),
            lookahead: .zero)
        planner.signalled = []
        #expect(planner.plan(before).isEmpty)
        #expect(planner.noticed(before, horizon: MediaTime(seconds: 60)).map(\.event.identifier) == ["notice-q2"])
        #expect(planner.noticed(before, horizon: MediaTime(seconds: 30)).isEmpty, "beyond the horizon")
        // A cue 5 s early took the notice: until the notice's start the break is still followed
        // (its decisions are not dropped as of a break gone before it started), as served.
        var early = state
        var cue = InsertionRequest(id: "notice-q2")
        cue.date = Self.base + MediaTime(seconds: 95)
        cue.plannedDuration = MediaTime(seconds: 30)
        cue.assetListURI = "/live/news/asset-list.json"
        early.apply(.served(notice.key, try cue.event(mapping: { _ in nil }).dateRangeAttributes))
        planner.state = early
        let edge = BreakPlanner.Timeline.live(
            epoch: Self.base, window: (Self.base + MediaTime(seconds: 77))..<(Self.base + MediaTime(seconds: 97)),
            lookahead: .zero)
        let followed = planner.noticed(edge, horizon: MediaTime(seconds: 60))
        #expect(followed.map(\.event.identifier) == ["notice-q2"])
        #expect(followed.first?.event.date == Self.base + MediaTime(seconds: 95))
        // Served, and the notice expired: the break found again under another ID (a CUE-OUT-CONT
        // without a section) is the same break.
        var served = state
        served.apply(.served(ServedKey(Self.channel, "notice-q2"), try! planned[0].event.dateRangeAttributes))
        served.apply(.deleteNotice(notice.key))
        planner.state = served
        planner.signalled = [
            SignalledBreak(
                id: "scte35-cue-1780315302000", startDate: Self.base + MediaTime(seconds: 102),
                plannedDuration: MediaTime(seconds: 30), form: .cueOut, line: 1)
        ]
        #expect(planner.plan(timeline).map(\.event.identifier) == ["notice-q2"])
    }

    @Test(
        "A DATERANGE OUT whose START-DATE lies ahead of the live edge is an upcoming break to decide for from its first serving"
    )
    func dateRangeAhead() throws {
        var planner = BreakPlanner(
            target: Self.channel, state: StoredState(), assetListURI: "/live/news/asset-list.json", adURI: { $0.uri })
        planner.signalled = [
            SignalledBreak(
                id: "scte35-9-beef", startDate: Self.base + MediaTime(seconds: 115),
                plannedDuration: MediaTime(seconds: 30), form: .dateRange, line: 3)
        ]
        let timeline = BreakPlanner.Timeline.live(
            epoch: Self.base, window: (Self.base + MediaTime(seconds: 40))..<(Self.base + MediaTime(seconds: 100)),
            lookahead: MediaTime(seconds: 20))
        let planned = planner.plan(timeline)
        #expect(planned.map(\.event.identifier) == ["scte35-9-beef"])
        let attributes = try #require(planned.first?.firstServing)
        var state = StoredState()
        state.apply(.served(ServedKey(Self.channel, "scte35-9-beef"), attributes))
        // The prefetcher's planner reads no playlist: the break is known from its first serving,
        // 15 s before it starts.
        let prefetching = BreakPlanner(
            target: Self.channel, state: state, assetListURI: "/live/news/asset-list.json", adURI: { $0.uri })
        let upcoming = prefetching.upcoming(timeline, horizon: MediaTime(seconds: 300))
        #expect(upcoming.map(\.event.identifier) == ["scte35-9-beef"])
        #expect(upcoming.first?.event.date == Self.base + MediaTime(seconds: 115))
    }

    // MARK: The admin route

    static func configuration() throws -> ServerConfiguration {
        var configuration = try Harness.demo()
        configuration.limits.noticesPerChannel = 2
        return configuration
    }

    @Test("POST, GET and DELETE /admin/v1/channels/{id}/upcoming: accepted, listed, withdrawn")
    func accepted() async throws {
        let clock = TestClock(Self.base)
        try await Harness.withServer(try Self.configuration(), clock: clock) { client in
            let created = try await client.admin(.post, "channels/demo-scte35/upcoming", #"{"in":90,"duration":60}"#)
            #expect(created.status == .created, "\(created.text)")
            let start = Self.base + MediaTime(seconds: 90)
            let id = "notice-\(start.nanosecondsSinceEpoch / 1_000_000)"
            #expect(
                created.json
                    == .object([
                        "target": .string("live/demo-scte35"), "id": .string(id), "start": .string(start.iso8601),
                        "duration": .integer(60),
                    ]))
            let at = (Self.base + MediaTime(seconds: 3600)).iso8601
            let named = try await client.admin(
                .post, "channels/demo-scte35/upcoming", #"{"at":"\#(at)","duration":30,"id":"notice-q2"}"#)
            #expect(named.status == .created, "\(named.text)")
            let list = try await client.admin(.get, "channels/demo-scte35/upcoming")
            #expect(list.status == .ok)
            #expect(
                list.text.contains("\"id\":\"\(id)\"") && list.text.contains("\"state\":\"pending\""), "\(list.text)")
            #expect(list.text.firstRange(of: id)!.lowerBound < list.text.firstRange(of: "notice-q2")!.lowerBound)
            #expect(try await client.admin(.delete, "channels/demo-scte35/upcoming/notice-q2").status == .noContent)
            let after = try await client.admin(.get, "channels/demo-scte35/upcoming")
            #expect(!after.text.contains("notice-q2"))
            #expect(
                try await AdServerProtectionTests.metric(client, "hlsi_break_notices_total{outcome=\"withdrawn\"}")
                    == "1")
        }
    }

    /// A refused request: method, path, body, status, code and JSON path.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var method: HTTPRequest.Method = .post
        var path = "channels/demo-scte35/upcoming"
        var body: String?
        var status: Int
        var code: String
        var at: String? = nil
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "neither in nor at", body: #"{"duration":60}"#, status: 400, code: "json-schema", at: "in"),
        Refusal(
            name: "both in and at", body: #"{"in":5,"at":"2026-06-01T12:01:00Z","duration":60}"#, status: 400,
            code: "json-schema", at: "at"),
        Refusal(name: "no duration", body: #"{"in":5}"#, status: 400, code: "json-schema", at: "duration"),
        Refusal(
            name: "a zero duration", body: #"{"in":5,"duration":0}"#, status: 400, code: "json-schema", at: "duration"),
        Refusal(
            name: "a duration over an hour", body: #"{"in":5,"duration":3601}"#, status: 400, code: "json-schema",
            at: "duration"),
        Refusal(name: "a negative in", body: #"{"in":-5,"duration":60}"#, status: 400, code: "json-schema", at: "in"),
        Refusal(
            name: "an unknown member", body: #"{"in":5,"duration":60,"ad":"ad1"}"#, status: 400, code: "json-schema",
            at: "ad"),
        Refusal(
            name: "a date that is not ISO 8601", body: #"{"at":"tomorrow","duration":60}"#, status: 400,
            code: "json-schema", at: "at"),
        Refusal(
            name: "an ID without the prefix", body: #"{"in":5,"duration":60,"id":"q2"}"#, status: 400,
            code: "json-schema", at: "id"),
        Refusal(
            name: "an ID that is not an identifier", body: #"{"in":5,"duration":60,"id":"notice-a b"}"#, status: 400,
            code: "json-schema", at: "id"),
        Refusal(name: "not JSON", body: #"{"in":5,"#, status: 400, code: "json-syntax"),
        Refusal(name: "now", body: #"{"in":0,"duration":60}"#, status: 400, code: "notice-time", at: "in"),
        Refusal(
            name: "in the past", body: #"{"at":"2026-06-01T11:59:00Z","duration":60}"#, status: 400,
            code: "notice-time", at: "at"),
        Refusal(
            name: "more than 6 hours ahead", body: #"{"in":21601,"duration":60}"#, status: 400, code: "notice-time",
            at: "in"),
        Refusal(
            name: "a channel without signals", path: "channels/demo/upcoming", body: #"{"in":5,"duration":60}"#,
            status: 409, code: "not-signalled"),
        Refusal(
            name: "an unknown channel", path: "channels/nothing/upcoming", body: #"{"in":5,"duration":60}"#,
            status: 404, code: "not-found"),
        Refusal(
            name: "a bad channel ID", path: "channels/a%20b/upcoming", body: #"{"in":5,"duration":60}"#, status: 400,
            code: "bad-path"),
        Refusal(
            name: "an ID in use", body: #"{"in":600,"duration":60,"id":"notice-taken"}"#, status: 409, code: "exists"),
        Refusal(name: "an overlap", body: #"{"in":130,"duration":60}"#, status: 409, code: "break-in-progress"),
        Refusal(name: "a channel full", body: #"{"in":3000,"duration":60}"#, status: 409, code: "limit-reached"),
        Refusal(
            name: "delete: unknown", method: .delete, path: "channels/demo-scte35/upcoming/notice-none", status: 404,
            code: "not-found"),
        Refusal(
            name: "delete: a bad ID", method: .delete, path: "channels/demo-scte35/upcoming/a%20b", status: 400,
            code: "bad-path"),
        Refusal(
            name: "delete: taken by a served break", method: .delete,
            path: "channels/demo-scte35/upcoming/notice-taken", status: 409, code: "served-break"),
        Refusal(
            name: "list: unknown channel", method: .get, path: "channels/nothing/upcoming", status: 404,
            code: "not-found"),
    ]

    @Test("Every refusal has its code, and its JSON path", arguments: refusals)
    func refused(_ refusal: Refusal) async throws {
        let clock = TestClock(Self.base)
        var configuration = try Self.configuration()
        configuration.seed = .init()
        // Two notices (the channel's limit): one at +100 s for 60 s, one a cue took (served under its ID).
        let store = try SQLiteStore(path: nil)
        let taken = BreakNotice(
            target: Target(.live, "demo-scte35"), id: "notice-taken", start: Self.base + MediaTime(seconds: 1000),
            duration: MediaTime(seconds: 60))
        try await store.write([.saveNotice(taken), .served(taken.key, [])])
        try await Harness.withServer(configuration, store: store, clock: clock) { client in
            #expect(
                try await client.admin(.post, "channels/demo-scte35/upcoming", #"{"in":100,"duration":60}"#).status
                    == .created)
            let response = try await client.admin(refusal.method, refusal.path, refusal.body)
            #expect(Int(response.status.code) == refusal.status, "\(response.text)")
            #expect(response.errorCode == refusal.code, "\(response.text)")
            if let at = refusal.at { #expect(response.errorPath == at, "\(response.text)") }
        }
    }

    @Test(
        "An admin break may not take the server's own IDs (scte35-, notice-): 400 invalid-break at id",
        arguments: ["scte35-7-abcd", "notice-mine"])
    func reservedBreakIDs(_ id: String) async throws {
        try await Harness.withServer { client in
            let response = try await client.admin(
                .post, "breaks", #"{"id":"\#(id)","target":"vod/demo","at":30,"duration":5}"#)
            #expect(response.status == .badRequest, "\(response.text)")
            #expect(response.errorCode == "invalid-break", "\(response.text)")
            #expect(response.errorPath == "id", "\(response.text)")
            let allowed = try await client.admin(
                .post, "breaks", #"{"id":"mine-\#(id)","target":"vod/demo","at":30,"duration":5}"#)
            #expect(allowed.status == .created, "\(allowed.text)")
        }
    }

    @Test("Without the admin token, 401")
    func unauthorized() async throws {
        try await Harness.withServer { client in
            let response = try await client.admin(
                .post, "channels/demo-scte35/upcoming", #"{"in":90,"duration":60}"#, token: nil)
            #expect(response.status == .unauthorized)
            #expect(response.errorCode == "unauthorized")
        }
    }

    // MARK: Expiry

    @Test(
        "A notice expires at its start + duration + tolerance: matched when a break was served under its ID, else unmatched"
    )
    func expiry() async throws {
        let configuration = try Harness.demo()
        let state = try ServerState(store: try SQLiteStore(path: nil), limits: configuration.limits)
        try await state.open()
        let board = NoticeBoard(configuration: configuration, state: state)
        let channel = try #require(configuration.live.first { $0.id == "demo-scte35" })
        let taken = try await board.announce(
            channel,
            .init(start: Self.base + MediaTime(seconds: 30), duration: MediaTime(seconds: 20), id: "notice-taken"),
            now: Self.base)
        _ = try await board.announce(
            channel, .init(start: Self.base + MediaTime(seconds: 100), duration: MediaTime(seconds: 20), id: nil),
            now: Self.base)
        try await state.update { $0.apply(.served(taken.key, [])) }
        // 30 + 20 + 10 (the default tolerance): not yet at 59.9 s.
        let early = try await board.expire(at: Self.base + MediaTime(seconds: 59.9))
        #expect(early.matched == 0 && early.unmatched == 0)
        let first = try await board.expire(at: Self.base + MediaTime(seconds: 60))
        #expect(first.matched == 1 && first.unmatched == 0)
        let second = try await board.expire(at: Self.base + MediaTime(seconds: 130))
        #expect(second.matched == 0 && second.unmatched == 1)
        #expect(state.snapshot.notices.isEmpty)
        // Stored: a new state on the same store reads none.
        let reopened = try ServerState(store: state.store, limits: configuration.limits)
        try await reopened.open()
        #expect(reopened.snapshot.notices.isEmpty)
    }

    // MARK: Decided ahead, answered on the cue

    @Test(
        "A notice is decided ahead for each viewer; the CUE-OUT that follows is served under its ID and its asset lists come from those decisions"
    )
    func decidedAheadAnsweredOnCue() async throws {
        try await PrefetchTests.withVASTServer { adServer, demo in
            var configuration = demo
            configuration.seed.breaks = []
            let index = try #require(configuration.live.firstIndex { $0.id == "demo-scte35" })
            // A 10 s break every minute, 30 s into it, marked at its first segment (EXT-X-CUE-OUT).
            configuration.live[index].signalInserter = SignalInserter(
                every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30),
                form: .cueOut)
            configuration.live[index].adServer = try AdServerSettings.decode(
                .object(["vast": .string(adServer.origin + "/vast?sid=[SESSIONID]&brk=[BREAKID]&cb=[CACHEBUSTING]")]))
            let epoch = configuration.live[index].epoch
            // The break of minute 1000: the viewers play from 33 s before it (they reload a playing
            // span later, on the server's clock); 27 s before it, the retrieval window is open.
            let start = epoch + MediaTime(seconds: 1000 * 60 + 30)
            let clock = ManualServerClock.starting(at: start - MediaTime(seconds: 33))
            try await Harness.withServer(configuration, serverClock: clock) { client in
                let created = try await client.admin(
                    .post, "channels/demo-scte35/upcoming",
                    #"{"at":"\#(start.iso8601)","duration":10,"id":"notice-q2"}"#)
                #expect(created.status == .created, "\(created.text)")
                let viewers = ["v1", "v2", "v3"]
                let playlists = try await PlayingViewers.play(
                    viewers, on: client, path: "/demo/live-scte35/video/main.m3u8", clock: clock)
                for playlist in playlists {
                    #expect(!playlist.text.contains("notice-q2"), "a notice is no date range")
                }
                // The clock runs on in the retrieval window ([start - 28 s, start - 18 s)), and stops
                // in it: the prefetcher looks for upcoming breaks once its clock has moved a second.
                let ticker = tick(clock, to: clock.now + (start - MediaTime(seconds: 19) - clock.wall))
                defer { ticker.cancel() }
                func asked(_ session: String) -> Int {
                    adServer.requests("/vast").filter { $0.contains("sid=\(session)&") }.count
                }
                // Decided ahead, each viewer once, with the notice's ID as the break's.
                #expect(
                    await PrefetchTests.until { viewers.allSatisfy { asked($0) == 1 } }, "\(adServer.requests("/vast"))"
                )
                #expect(adServer.requests("/vast").allSatisfy { $0.contains("brk=notice-q2&") })
                #expect(
                    try await PrefetchTests.until {
                        try await AdServerProtectionTests.metric(
                            client, "hlsi_ad_decisions_total{target=\"live/demo-scte35\",path=\"prefetched\"}") == "3"
                    })
                ticker.cancel()
                _ = await ticker.value
                // The cue: its first segment is in the window 4 s after the break's start.
                clock.advance(by: start + MediaTime(seconds: 4) - clock.wall)
                let playlist = try await client.get(
                    "/demo/live-scte35/video/main.m3u8", headers: [Routes.sessionField: "v1"])
                #expect(playlist.text.contains("#EXT-X-CUE-OUT"), "\(playlist.text)")
                let interstitial = dateRangeLines(playlist.text).first { $0.contains("com.apple.hls.interstitial") }
                #expect(interstitial?.contains("ID=\"notice-q2\"") == true, "\(playlist.text)")
                #expect(!playlist.text.contains("ID=\"scte35-"), "\(playlist.text)")
                // Every rendition serves the same ID.
                let audio = try await client.text("/demo/live-scte35/audio-en/main.m3u8")
                #expect(dateRangeLines(audio).contains { $0.contains("ID=\"notice-q2\"") }, "\(audio)")
                for viewer in viewers {
                    let list = try await client.get(
                        "/demo/live-scte35/asset-list.json?_HLS_interstitial_id=notice-q2&_HLS_primary_id=\(viewer)")
                    #expect(list.status == .ok)
                    #expect(list.text.contains("/ads/a1/master.m3u8"), "\(list.text)")
                }
                #expect(
                    try await AdServerProtectionTests.metric(
                        client, "hlsi_ad_decisions_total{target=\"live/demo-scte35\",path=\"prefetch\"}") == "3")
                #expect(
                    try await AdServerProtectionTests.metric(
                        client, "hlsi_ad_decisions_total{target=\"live/demo-scte35\",path=\"live\"}") == nil)
                #expect(adServer.requests("/vast").count == 3, "the ad server was asked once per viewer")
                let list = try await client.admin(.get, "channels/demo-scte35/upcoming")
                #expect(list.text.contains("\"state\":\"matched\""), "\(list.text)")
            }
        }
    }
}
