import HLSInterstitials
import HLSLoading
import HLSPlaylist
import InterstitialPlayback
import Testing

@Suite("Controller, monitor and integrated timeline")
struct ControllerTests {
    static let server = vod(
        [Content.interstitial("srv", at: 10, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0")], ads)

    static func clientEvent(_ origin: TestOrigin, _ id: String, at seconds: Double, _ uri: String) -> InterstitialEvent
    {
        var event = InterstitialEvent(identifier: id, time: s(seconds))
        event.assetURI = origin.url(uri)
        return event
    }

    @Test(
        "automaticallyHandlesInterstitialEvents = false ignores server events; controller events still play (R4: offset 0)"
    )
    func automaticHandlingOff() async throws {
        let trace = try await TestOrigin.with(files: Self.server) { origin in
            await play(
                origin, "/main.m3u8", until: 40,
                before: { player in
                    player.currentItem.automaticallyHandlesInterstitialEvents = false
                    InterstitialEventController(primaryPlayer: player).events = [
                        Self.clientEvent(origin, "app", at: 20, "/b.m3u8")
                    ]
                }
            ).trace
        }
        #expect(
            trace.lines([.interstitialStarted, .interstitialEnded], fields: ["id", "resumeTime"]) == [
                "20.000 interstitialStarted @20.000 id=app",
                "24.000 interstitialEnded @20.000 id=app resumeTime=20.000",
            ])
    }

    @Test("setting events to nil restores the server's schedule")
    func restoreServerEvents() async throws {
        let trace = try await TestOrigin.with(files: Self.server) { origin in
            await play(
                origin, "/main.m3u8", until: 30,
                before: { player in
                    let controller = InterstitialEventController(primaryPlayer: player)
                    controller.events = [Self.clientEvent(origin, "app", at: 2, "/b.m3u8")]
                    player.schedule(.setEvents(nil), at: .seconds(3))
                }
            ).trace
        }
        #expect(
            trace.filter { $0.kind == .interstitialStarted }.compactMap { $0["id"]?.description } == ["app", "srv"])
        #expect(
            trace.filter { $0.kind == .eventsChanged }.compactMap { $0["ids"]?.description } == ["app", "app", "srv"])
    }

    @Test("cancelCurrentEvent: a time offset, indefinite (wall clock elapsed) and invalid (projected)")
    func cancel() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 10, "DURATION=10,X-ASSET-URI=\"{ORIGIN}/long.m3u8\",X-RESUME-OFFSET=10")],
            ads)
        func resume(_ offset: ResumptionOffset?) async throws -> MediaTime? {
            let trace = try await TestOrigin.with(files: files) { origin in
                await play(
                    origin, "/main.m3u8", until: 20,
                    script: [(12, .pause), (14, .play), (15, .cancelCurrentEvent(resumptionOffset: offset))]
                ).trace
            }
            return trace.last { $0.kind == .primaryResumed }?.primaryTime
        }
        #expect(try await resume(.time(s(2))) == s(12))
        // 5 s of wall clock elapsed (3 played, 2 paused).
        #expect(try await resume(.indefinite) == s(15))
        #expect(try await resume(nil) == s(20))
    }

    @Test("skipCurrentEvent skips one event: a coinciding one still plays, and offsets add up (R5)")
    func skipInGroup() async throws {
        let files = vod(
            [
                Content.interstitial("one", at: 10, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=2"),
                Content.interstitial("two", at: 10, "DURATION=4,X-ASSET-URI=\"{ORIGIN}/b.m3u8\",X-RESUME-OFFSET=3"),
            ], ads)
        let trace = try await TestOrigin.with(files: files) { origin in
            await play(origin, "/main.m3u8", until: 30, script: [(11, .skipCurrentEvent)]).trace
        }
        #expect(
            trace.lines([.eventSkipped, .interstitialStarted, .primaryResumed]) == [
                "0.000 primaryResumed @0.000", "10.000 interstitialStarted @10.000 id=one",
                "11.000 eventSkipped @10.000 id=one",
                "11.000 interstitialStarted @10.000 id=two", "15.000 primaryResumed @15.000",
            ])
    }

    @Test("R25: interstitials inside an interstitial asset are ignored")
    func nested() async throws {
        var files = Self.server
        files["/a.m3u8"] = Content.vod(
            segments: 1, length: 5,
            dateRanges: [Content.interstitial("nested", at: 1, "DURATION=4,X-ASSET-URI=\"{ORIGIN}/b.m3u8\"")])
        let trace = try await TestOrigin.with(files: files) { await play($0, "/main.m3u8", until: 30).trace }
        #expect(trace.filter { $0.kind == .interstitialStarted }.compactMap { $0["id"]?.description } == ["srv"])
        #expect(trace.first(.interstitialEnded, id: "srv")?.seconds == s(15))
    }

    /// The slow asset list never answers on its own (it is held until the test ends); the loader's
    /// deadline is on a ``ManualTimer``, moved past once that load waits for it. Loads go one at a
    /// time, so nothing else waits on the timer then: the redirects of the first two events were
    /// followed before, and nothing but their answers decides how they end.
    @Test(
        "R20: redirects are followed up to 5; more, or a slow response, fail the event with offset 0 (R7)",
        .timeLimit(.minutes(10)))
    func redirectsAndTimeouts() async throws {
        let files = vod(
            [
                Content.interstitial("moved", at: 10, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/r1.m3u8\",X-RESUME-OFFSET=0"),
                Content.interstitial(
                    "loop", at: 20, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/loop0.m3u8\",X-RESUME-OFFSET=0"),
                Content.interstitial("slow", at: 30, "DURATION=5,X-ASSET-LIST=\"/slow.json\",X-RESUME-OFFSET=3"),
            ], ads)
        let timeout = Duration.seconds(3600)
        let timer = ManualTimer()
        let trace = try await TestOrigin.with({ path, _ in
            if path == "/r1.m3u8" { return .init(status: .found, body: "", location: "/a.m3u8") }
            if path.hasPrefix("/loop"), let n = Int(path.dropFirst(5).dropLast(5)) {
                return .init(status: .found, body: "", location: "/loop\(n + 1).m3u8")
            }
            if path == "/slow.json" {
                return .init(contentType: "application/json", body: "{\"ASSETS\":[]}", held: true)
            }
            return TestOrigin.reply(files, path)
        }) { origin in
            try await play(
                origin, "/main.m3u8", until: 60,
                configure: {
                    $0.timeout = timeout
                    $0.timeLimitSleep = timer.sleep
                },
                during: { _, trace in
                    var events = trace.makeAsyncIterator()
                    while let event = await events.next(),
                        !(event.kind == .assetListRequested && event["id"] == .string("slow"))
                    {}
                    try await timer.untilWaiting(for: timeout)
                    timer.advance(by: timeout)
                }
            ).trace
        }
        #expect(trace.first(.interstitialEnded, id: "moved")?["playedDuration"] == .time(s(5)))
        #expect(trace.first(.error, id: "loop")?["message"]?.description.contains("redirect") == true)
        #expect(trace.first(.interstitialEnded, id: "loop")?["reason"] == .string("failed"))
        #expect(trace.first(.error, id: "slow")?["message"]?.description.contains("timeout") == true)
        #expect(trace.first(.interstitialEnded, id: "slow")?["resumeTime"] == .time(s(30)))
    }

    @Test("monitor notifications arrive as AsyncSequences, in order")
    func notifications() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 10, "DURATION=5,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")],
            ads.merging(["/list.json": Content.assetList([("{ORIGIN}/a.m3u8", 5)])]) { $1 })
        let received = try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            let monitor = InterstitialEventMonitor(primaryPlayer: player)
            let all = monitor.notifications
            let finished = monitor.eventDidFinish
            player.play()
            await player.run(until: nil)
            await player.shutdown()
            var names: [String] = []
            for await notification in all {
                switch notification {
                case .eventsDidChange: names.append("events")
                case .currentEventDidChange(let event): names.append("current:\(event?.identifier ?? "nil")")
                case .assetListResponseStatusDidChange(let event, let status, _):
                    names.append("list:\(event.identifier):\(status)")
                case .eventDidFinish(let event, let time, let entire):
                    names.append("finish:\(event.identifier):\(time):\(entire)")
                default: names.append("\(notification)")
                }
            }
            var finishes = 0
            for await finish in finished where finish.didPlayEntireEvent { finishes += 1 }
            return (names, finishes)
        }
        #expect(received.0 == ["events", "list:brk:available", "current:brk", "finish:brk:5:true", "current:nil"])
        #expect(received.1 == 1)
    }

    @Test("integrated timeline: time stops in a point event, moves in a fill event; observers and out-of-sync reasons")
    func integratedTimeline() async throws {
        let files = vod(
            [
                Content.interstitial("point", at: 10, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0"),
                Content.interstitial(
                    "fill", at: 30,
                    "DURATION=4,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\""),
            ], ads.merging(["/list.json": Content.assetList([("{ORIGIN}/b.m3u8", 4)])]) { $1 })
        try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            player.play()
            await player.run(until: .seconds(1))
            let timeline = try #require(player.currentItem.integratedTimeline)
            let changes = timeline.snapshotsOutOfSync
            let ticks = Recorder<MediaTime>()
            let boundary = Recorder<Bool>()
            _ = timeline.addPeriodicTimeObserver(forInterval: s(10)) { time in ticks.append(time) }
            let snapshot = try #require(timeline.currentSnapshot)
            let fill = try #require(snapshot.segments.first { $0.interstitialEvent?.identifier == "fill" })
            _ = timeline.addBoundaryTimeObserver(for: fill, offsetsIntoSegment: [s(2)]) { boundary.append($0) }
            await player.run(until: .seconds(12))
            #expect(timeline.currentTime == s(10))  // frozen in the point event
            await player.run(until: .seconds(14))
            #expect(timeline.currentTime == s(10))
            await player.run(until: .seconds(37))
            #expect(timeline.currentTime == s(32))  // 2 s into the fill event
            #expect(timeline.seek(to: s(5)))
            #expect(player.currentTime == s(5))
            await player.run(until: .seconds(40))
            await player.shutdown()
            #expect(boundary.value == [true])
            #expect(ticks.value.prefix(4) == [s(1), s(10), s(20), s(30)])
            var reasons: Set<IntegratedTimelineSnapshot.Change> = []
            for await change in changes { reasons.insert(change) }
            #expect(reasons.contains(.currentSegmentChanged) && reasons.contains(.segmentsChanged))
        }
    }

    @Test("R13, R16: the player's seeks and skip return false exactly when the engine refuses them")
    func refusalsFromOutcome() async throws {
        // profile R13, R16: the answer comes from the engine's outcome, not from the trace.
        let files = vod(
            [Content.interstitial("ad", at: 10, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESTRICT=\"SKIP\"")],
            ads)
        try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            let controller = InterstitialEventController(primaryPlayer: player)
            player.play()
            await player.run(until: .seconds(12))
            #expect(!player.seek(to: s(40)))
            #expect(!controller.skipCurrentEvent())
            #expect(!player.interstitialPlayer.seek(to: s(4)))
            #expect(player.interstitialPlayer.seek(to: s(0)))
            #expect(player.seek(to: s(2)))
            #expect(!controller.skipCurrentEvent())
            await player.shutdown()
        }
    }

    @Test("a manual clock plays two hours with an ad every ten minutes")
    func hours() async throws {
        var ranges: [String] = []
        for minute in stride(from: 10, to: 120, by: 10) {
            ranges.append(
                Content.interstitial(
                    "ad\(minute)", at: Double(minute * 60), "DURATION=30,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")
            )
        }
        let files = [
            "/main.m3u8": Content.vod(segments: 1200, dateRanges: ranges),
            "/list.json": Content.assetList([("{ORIGIN}/a.m3u8", 5), ("{ORIGIN}/long.m3u8", 10)]),
        ].merging(ads) { $1 }
        let trace = try await TestOrigin.with(files: files) { await play($0, "/main.m3u8").trace }
        #expect(trace.filter { $0.kind == .interstitialStarted }.count == 11)
        #expect(trace.last?.kind == .ended && trace.last?.seconds == s(7200 + 11 * 15))
    }
}

@Suite("Playback: bad input")
struct BadInputTests {
    @Test("an invalid asset list is an error naming the JSON path, and the event resumes at 0 (R7)")
    func invalidAssetList() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 10, "DURATION=5,X-ASSET-LIST=\"/bad.json\",X-RESUME-OFFSET=2")],
            ["/bad.json": "{\"ASSETS\":[{\"URI\":\"x\"}]}"])
        let trace = try await TestOrigin.with(files: files) { await play($0, "/main.m3u8").trace }
        let message = try #require(trace.first(.error, id: "brk")?["message"]?.description)
        #expect(message.contains("ASSETS[0].DURATION"))
        #expect(trace.first(.interstitialEnded, id: "brk")?["resumeTime"] == .time(s(10)))
        #expect(trace.last?.kind == .ended)
    }

    @Test("a primary that is not a playlist ends playback with the reason")
    func notAPlaylist() async throws {
        let trace = try await TestOrigin.with(files: ["/main.m3u8": "<html>"]) { await play($0, "/main.m3u8").trace }
        #expect(trace.first(.error)?["message"]?.description.contains("must start with #EXTM3U") == true)
        #expect(trace.last?.kind == .ended && trace.last?["reason"] != nil)
    }

    @Test("rates that are negative, not finite or absurdly large are refused")
    func rates() async throws {
        let trace = try await TestOrigin.with(files: vod([])) {
            await play(
                $0, "/main.m3u8", until: 5, script: [(1, .setRate(-1)), (2, .setRate(1e308)), (3, .setRate(.nan))]
            ).trace
        }
        #expect(trace.filter { $0.kind == .rateRefused }.count == 3)
        #expect(trace.last { $0.kind == .rateChanged }?["rate"] == .number(1))
    }
}
