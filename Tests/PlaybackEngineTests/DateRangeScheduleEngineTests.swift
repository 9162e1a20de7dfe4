import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// Date Range Schedules in the engine (profile R27): the document is requested like an asset list,
/// its entries play like the playlist's own interstitials, each with its schedule's ID, and a
/// failed document adds nothing.
@Suite("Date Range Schedules in the engine")
struct DateRangeScheduleEngineTests {
    /// A schedule tag dated at `start` seconds of the playlist dated from 2025-01-01T00:00:00Z.
    static func schedule(_ id: String = "sched", at start: Int = 0, uri: String = "sched.json") -> String {
        let date = "2025-01-01T00:\(String(format2: start / 60)):\(String(format2: start % 60)).000Z"
        return
            "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"\(date)\",X-URI=\"\(uri)\""
    }

    /// A document of two entries: `s1` by X-SCHEDULE-OFFSET 20 s (an asset), `s2` by START-DATE at
    /// 40 s (an asset list); `extra` adds entries.
    static func document(_ prefix: String = "s", extra: String = "") -> String {
        #"{"DATERANGES":[{"ID":"\#(prefix)1","CLASS":"com.apple.hls.interstitial","X-SCHEDULE-OFFSET":20,"DURATION":10,"X-ASSET-URI":"a.m3u8","X-RESUME-OFFSET":0},"#
            + #"{"ID":"\#(prefix)2","CLASS":"com.apple.hls.interstitial","START-DATE":"2025-01-01T00:00:40.000Z","X-ASSET-LIST":"pair.json","X-RESUME-OFFSET":0}\#(extra)]}"#
    }

    static let assets: [String: Double] = ["a.m3u8": 10, "a4.m3u8": 4, "a6.m3u8": 6]
    static let pair = #"{"ASSETS":[{"URI":"a4.m3u8","DURATION":4},{"URI":"a6.m3u8","DURATION":6}]}"#

    static func harness(
        _ primary: String, document: String? = document(),
        configure: (inout Harness.Machine.Configuration) -> Void = { _ in }
    ) -> Harness {
        var harness = Harness(primary, assets: assets, lists: ["pair.json": pair], configure: configure)
        if let document { harness.schedules[Harness.base + "sched.json"] = document }
        return harness
    }

    /// The schedule-request-completed notifications, as `id: N entries` or `id: code`.
    static func completed(_ harness: Harness) -> [String] {
        harness.notifications.compactMap { notification in
            guard case .scheduleRequestCompleted(let id, let response, let error) = notification else { return nil }
            if let response { return "\(id): \(response.entries.count) entries" }
            return "\(id): \(error.map { "\($0.code)" } ?? "nothing")"
        }
    }

    static func scheduleRequests(_ harness: Harness) -> [String] {
        harness.requests.compactMap { request in
            guard case .schedule(let identity) = request.key else { return nil }
            return "\(identity.identifier) \(Harness.strip(request.url))"
        }
    }

    @Test(
        "R27: the document is requested with the playlist, and its entries play like the playlist's own, each with its schedule"
    )
    func entriesPlay() {
        var harness = Self.harness(dated(Self.schedule()))
        harness.deliver()
        #expect(Self.scheduleRequests(harness) == ["sched \(Harness.base)sched.json"])
        #expect(
            harness.requests.first { if case .schedule = $0.key { true } else { false } }?.url.contains(
                "_HLS_primary_id=p") == true)
        #expect(Self.completed(harness) == ["sched: 2 entries"])
        #expect(harness.machine.scheduledEvents.map(\.identifier) == ["s1", "s2"])
        #expect(harness.machine.scheduledEvents.allSatisfy { $0.scheduleIdentifier == "sched" })
        harness.play(until: 80)
        #expect(
            harness.lines([.interstitialStarted], fields: ["id", "schedule"]) == [
                "20.0 interstitialStarted @20.0 id=s1 schedule=sched",
                "50.0 interstitialStarted @40.0 id=s2 schedule=sched",
            ])
        #expect(
            harness.lines([.scheduleRequested, .scheduleRequestCompleted], fields: ["schedule", "entries"]) == [
                "0.0 scheduleRequested @0.0 schedule=sched",
                "0.0 scheduleRequestCompleted @0.0 schedule=sched entries=2",
            ])
    }

    @Test("R27: a document that fails to load, or is malformed, adds no events; the notification carries the error")
    func failedDocumentAddsNothing() {
        let cases: [(String?, String)] = [
            (nil, "schedule-load"), ("{\"DATERANGES\":", "schedule-json"), ("[]", "schedule-schema"),
        ]
        for (document, code) in cases {
            var harness = Self.harness(
                dated(Self.schedule(), event("own", at: 30, "X-ASSET-URI=\"a.m3u8\",X-RESUME-OFFSET=0")),
                document: document)
            harness.play(until: 90)
            #expect(Self.completed(harness) == ["sched: \(code)"])
            #expect(harness.lines([.interstitialStarted]).map { $0.components(separatedBy: " ").last } == ["id=own"])
            #expect(harness.events(.scheduleRequestCompleted).first?["code"] == .string(code))
            #expect(harness.events(.ended).count == 1)
        }
    }

    @Test("R27: a bad entry is left out alone; the others play")
    func badEntryLeftOut() {
        let extra = #",{"ID":"bad","CLASS":"com.apple.hls.interstitial","X-SCHEDULE-OFFSET":-5}"#
        var harness = Self.harness(dated(Self.schedule()), document: Self.document(extra: extra))
        harness.deliver()
        #expect(harness.machine.scheduledEvents.map(\.identifier) == ["s1", "s2"])
        #expect(harness.events(.scheduleRequestCompleted).first?["leftOut"] == .integer(1))
    }

    @Test(
        "R27: on live, a schedule is loaded once per identity across reloads; a changed document is not read again until its ID changes"
    )
    func liveOncePerIdentity() {
        var harness = Self.harness(live(6, Self.schedule())) { $0.startTime = .zero }
        harness.play(until: 5)
        #expect(Self.scheduleRequests(harness).count == 1)
        // The server changes the document: reloads keep the first one.
        harness.schedules[Harness.base + "sched.json"] = Self.document("t")
        harness.playlists[Harness.base + "main.m3u8"] = live(7, Self.schedule())
        harness.run(until: 35)
        #expect(Self.scheduleRequests(harness).count == 1)
        #expect(harness.machine.scheduledEvents.map(\.identifier) == ["s1", "s2"])
        #expect(harness.lines([.interstitialStarted], fields: ["id"]) == ["20.0 interstitialStarted @20.0 id=s1"])
        // A new identity (ID) is loaded afresh; the old one's entries leave with its tag.
        harness.playlists[Harness.base + "main.m3u8"] = live(8, Self.schedule("sched2"))
        harness.run(until: 45)
        #expect(
            Self.scheduleRequests(harness) == ["sched \(Harness.base)sched.json", "sched2 \(Harness.base)sched.json"])
        #expect(harness.machine.scheduledEvents.map(\.identifier) == ["t1", "t2"])
        #expect(harness.machine.scheduledEvents.allSatisfy { $0.scheduleIdentifier == "sched2" })
    }

    @Test(
        "R27, App. F: a Preload tag that targets a schedule loads its document at a point of its range; the tag then finds it"
    )
    func preloadTargetsSchedule() {
        let hint = PeerAgreementEngineTests.preload(
            uri: "sched.json", target: "sched", targetClass: "com.apple.hls.daterange-schedule")
        var harness = Self.harness(playlist(6, tags: [hint], end: false, dated: true)) {
            $0.startTime = .zero
            $0.random = { $0 / 2 }
        }
        harness.play(until: 30)
        // [10, 40): the midpoint, 25.
        #expect(
            harness.lines([.scheduleRequested], fields: ["schedule"]) == ["25.0 scheduleRequested @25.0 schedule=sched"]
        )
        #expect(Self.completed(harness) == ["sched: 2 entries"])
        #expect(harness.machine.scheduledEvents.isEmpty)
        // The schedule tag appears: its document is there, not requested again.
        harness.playlists[Harness.base + "main.m3u8"] = playlist(
            7, tags: [hint, Self.schedule()], end: false, dated: true)
        harness.run(until: 45)
        #expect(Self.scheduleRequests(harness).count == 1)
        #expect(harness.machine.scheduledEvents.map(\.identifier) == ["s1", "s2"])
    }
}

extension DateRangeScheduleEngineTests {
    @Test("R27: playback starts once the first load's schedule documents arrive, so a schedule's PRE plays first")
    func startWaitsForDocument() {
        let pre =
            #"{"DATERANGES":[{"ID":"pre","CLASS":"com.apple.hls.interstitial","CUE":"PRE","X-SCHEDULE-OFFSET":0,"X-ASSET-URI":"a.m3u8","X-RESUME-OFFSET":0}]}"#
        var harness = Self.harness(dated(Self.schedule()), document: pre)
        // The primary arrives; the schedule's document is still loading when play is asked for.
        let primary = harness.pending.removeFirst()
        harness.record(
            harness.machine.handle(harness.primaryInput(Harness.strip(primary.url), key: .primary), at: .zero).actions)
        harness.record(harness.machine.handle(.command(.play), at: .zero).actions)
        #expect(harness.events(.primaryResumed).isEmpty)
        #expect(harness.events(.interstitialStarted).isEmpty)
        harness.run(until: 30)
        #expect(
            harness.lines([.interstitialStarted, .primaryResumed]) == [
                "0.0 interstitialStarted @0.0 id=pre", "10.0 primaryResumed @0.0",
            ])
    }
}

extension DateRangeScheduleEngineTests {
    @Test("R27: a playlist that names many schedules has their documents loaded a few at a time")
    func boundedConcurrentLoads() {
        let tags = (0..<6).map { Self.schedule("k\($0)", uri: "k\($0).json") }
        var harness = Harness(
            playlist(6, tags: ["#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z"] + tags, end: true))
        for index in 0..<6 { harness.schedules[Harness.base + "k\(index).json"] = Self.document("k\(index)-") }
        let primary = harness.pending.removeFirst()
        harness.record(
            harness.machine.handle(harness.primaryInput(Harness.strip(primary.url), key: .primary), at: .zero).actions)
        #expect(Self.scheduleRequests(harness).count == 4)
        harness.deliver()
        #expect(Self.scheduleRequests(harness).count == 6)
        #expect(harness.machine.scheduledEvents.count == 12)
    }
}
