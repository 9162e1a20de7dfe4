import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackEngine
import Testing

/// A 60 s VOD primary (ten 6 s segments) with these date ranges, plus the other files.
func vod(_ dateRanges: [String], _ files: [String: String] = [:]) -> [String: String] {
    var all = files
    all["/main.m3u8"] = Content.vod(segments: 10, dateRanges: dateRanges)
    return all
}

/// The standard ads: 5 s, 4 s, 6 s and 10 s.
let ads: [String: String] = [
    "/a.m3u8": Content.ad(5), "/b.m3u8": Content.ad(4), "/c.m3u8": Content.ad(6), "/long.m3u8": Content.ad(10),
]

@Suite("Playback rules: VOD")
struct VODRuleTests {
    @Test("R18: the asset list is requested when buffering reaches the event, not when the playlist is read")
    func lateBinding() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 30, "DURATION=5,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")],
            ads.merging(["/list.json": Content.assetList([("{ORIGIN}/a.m3u8", 5)])]) { $1 })
        let (defaultTrace, earlyTrace) = try await TestOrigin.with(files: files) { origin in
            (await play(origin, "/main.m3u8").trace, await play(origin, "/main.m3u8") { $0.lookahead = s(4) }.trace)
        }
        // profile R18: 10 s ahead by default, at the configured look-ahead otherwise.
        #expect(defaultTrace.first(.assetListRequested, id: "brk")?.seconds == s(20))
        #expect(earlyTrace.first(.assetListRequested, id: "brk")?.seconds == s(26))
        #expect(defaultTrace.first(.interstitialStarted, id: "brk")?.seconds == s(30))
        #expect(defaultTrace.first(.primaryResumed)?.seconds == s(0))
        #expect(defaultTrace.last { $0.kind == .primaryResumed }?.primaryTime == s(30))
    }

    @Test("R19: every request carries _HLS_primary_id and X-PLAYBACK-SESSION-ID, segments included")
    func sessionIdentifier() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 12, "DURATION=5,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")],
            ads.merging(["/list.json": Content.assetList([("{ORIGIN}/a.m3u8?_HLS_interstitial_id=brk", 5)])]) { $1 })
        let requests = try await TestOrigin.with({ path, _ in
            path.hasSuffix(".ts") ? .init(contentType: "video/mp2t", body: "media") : TestOrigin.reply(files, path)
        }) { origin in
            _ = await play(origin, "/main.m3u8") { $0.loadsSegments = true }
            return origin.requests
        }
        #expect(requests.count > 10)
        for request in requests {
            // profile R19
            #expect(request.query["_HLS_primary_id"] == "session-1", "\(request.uri)")
            #expect(request.sessionHeader == "session-1", "\(request.uri)")
        }
        #expect(requests.contains { $0.path == "/a.m3u8" && $0.query["_HLS_interstitial_id"] == "brk" })
        #expect(requests.contains { $0.path.hasPrefix("/ad") && $0.path.hasSuffix(".ts") })
        #expect(requests.contains { $0.path == "/seg9.ts" })
    }

    @Test("primary waits with reason .interstitialEvent while the interstitial player plays the assets")
    func executionModel() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 12, "DURATION=9,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")],
            ads.merging(["/list.json": Content.assetList([("{ORIGIN}/a.m3u8", 5), ("{ORIGIN}/b.m3u8", 4)])]) { $1 })
        try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            let monitor = InterstitialEventMonitor(primaryPlayer: player)
            player.play()
            await player.run(until: .seconds(18))
            #expect(player.timeControlStatus == .waitingToPlayAtSpecifiedRate)
            #expect(player.reasonForWaitingToPlay == .interstitialEvent)
            #expect(player.currentTime == s(12))
            #expect(monitor.currentEvent?.identifier == "brk")
            #expect(monitor.interstitialPlayer.currentItem?.templatePlayerItem?.url.hasSuffix("/b.m3u8") == true)
            #expect(monitor.interstitialPlayer.currentItem?.interstitialEventIdentifier == "brk")
            #expect(monitor.interstitialPlayer.currentTime == s(1))
            #expect(monitor.interstitialPlayer.items.count == 1)
            await player.run(until: .seconds(22))
            #expect(player.timeControlStatus == .playing)
            #expect(player.reasonForWaitingToPlay == nil)
            #expect(monitor.currentEvent == nil)
            #expect(player.currentTime == s(13))
            await player.shutdown()
        }
    }

    @Test("R7: an empty list plays nothing and resumes at X-RESUME-OFFSET, or 0 without one")
    func emptyList() async throws {
        let files = vod(
            [
                Content.interstitial("with", at: 12, "DURATION=5,X-ASSET-LIST=\"/empty.json\",X-RESUME-OFFSET=3"),
                Content.interstitial("without", at: 30, "DURATION=5,X-ASSET-LIST=\"/empty.json\""),
            ], ["/empty.json": "{\"ASSETS\":[]}"])
        let trace = try await TestOrigin.with(files: files) { await play($0, "/main.m3u8").trace }
        // profile R7
        #expect(trace.first(.interstitialEnded, id: "with")?["resumeTime"] == .time(s(15)))
        #expect(trace.first(.interstitialEnded, id: "with")?["playedDuration"] == .time(.zero))
        #expect(trace.first(.interstitialEnded, id: "without")?["resumeTime"] == .time(s(30)))
        #expect(!trace.contains { $0.kind == .assetStarted })
        #expect(trace.last?.kind == .ended && trace.last?.seconds == s(57))
    }

    @Test("R7, R20: a failed asset list cancels the event with offset 0, reported as unavailable")
    func failedList() async throws {
        let files = vod([
            Content.interstitial("brk", at: 12, "DURATION=5,X-ASSET-LIST=\"/missing.json\",X-RESUME-OFFSET=4")
        ])
        try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            let statuses = InterstitialEventMonitor(primaryPlayer: player).assetListResponseStatusDidChange
            player.play()
            await player.run(until: nil)
            await player.shutdown()
            let trace = player.trace
            // profile R7: resume offset 0 although X-RESUME-OFFSET is 4; primary keeps playing (R20).
            #expect(trace.first(.error, id: "brk")?["message"]?.description.contains("404") == true)
            #expect(trace.first(.interstitialEnded, id: "brk")?["resumeTime"] == .time(s(12)))
            #expect(trace.first(.interstitialEnded, id: "brk")?["reason"] == .string("failed"))
            #expect(trace.last?.kind == .ended && trace.last?.seconds == s(60))
            var received: [AssetListResponseStatus] = []
            for await status in statuses { received.append(status.status) }
            #expect(received == [.unavailable])
        }
    }

    @Test("R7: a failed asset is skipped and the rest play; if all fail, it is as if the list failed")
    func failedAssets() async throws {
        let files = vod(
            [
                Content.interstitial("some", at: 12, "DURATION=9,X-ASSET-LIST=\"/some.json\""),
                Content.interstitial("all", at: 30, "DURATION=9,X-ASSET-LIST=\"/all.json\",X-RESUME-OFFSET=3"),
            ],
            ads.merging([
                "/some.json": Content.assetList([("{ORIGIN}/gone.m3u8", 5), ("{ORIGIN}/b.m3u8", 4)]),
                "/all.json": Content.assetList([("{ORIGIN}/gone.m3u8", 5), ("{ORIGIN}/gone2.m3u8", 4)]),
            ]) { $1 })
        let trace = try await TestOrigin.with(files: files) { await play($0, "/main.m3u8").trace }
        // profile R7: "some" plays its second asset; its offset is the time played (4 s), not 9 s.
        #expect(
            trace.lines([.assetStarted], fields: ["id", "index"]) == ["12.000 assetStarted @12.000 id=some index=1"])
        #expect(trace.first(.interstitialEnded, id: "some")?["resumeTime"] == .time(s(16)))
        #expect(trace.first(.interstitialEnded, id: "all")?["resumeTime"] == .time(s(30)))
        #expect(trace.first(.interstitialEnded, id: "all")?["reason"] == .string("failed"))
        #expect(trace.filter { $0.kind == .error }.count == 3)
    }

    @Test("R8: a negative offset replays primary without replaying the event, until the user seeks back")
    func negativeOffset() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 30, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=-10")], ads
        )
        let trace = try await TestOrigin.with(files: files) {
            await play($0, "/main.m3u8", until: 90, script: [(50, .seek(s(10)))]).trace
        }
        // profile R8: played at 30, resumed at 20, crossed 30 again without playing; after the seek
        // back to 10 it plays once more.
        #expect(
            trace.lines([.interstitialStarted, .primaryResumed, .seekCompleted]) == [
                "0.000 primaryResumed @0.000", "30.000 interstitialStarted @30.000 id=brk",
                "35.000 primaryResumed @20.000",
                "50.000 seekCompleted @10.000", "70.000 interstitialStarted @30.000 id=brk",
                "75.000 primaryResumed @20.000",
            ])
    }

    @Test("R9: PRE plays before primary wherever it starts, POST after the end; ONCE never plays twice")
    func cues() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "pre", at: 0, "CUE=\"PRE\",DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0"),
                Content.interstitial(
                    "once", at: 30, "CUE=\"ONCE\",DURATION=4,X-ASSET-URI=\"{ORIGIN}/b.m3u8\",X-RESUME-OFFSET=0"),
                Content.interstitial("post", at: 0, "CUE=\"POST\",DURATION=6,X-ASSET-URI=\"{ORIGIN}/c.m3u8\""),
            ], ads)
        let trace = try await TestOrigin.with(files: files) {
            await play($0, "/main.m3u8", configure: { $0.startTime = s(20) }, script: [(25, .seek(s(10)))]).trace
        }
        // profile R9: PRE at 0 although primary starts at 20; ONCE at 30 (clock 15) not replayed after
        // seeking back to 10; POST after primary's end, resuming nowhere.
        #expect(
            trace.lines([.interstitialStarted, .interstitialEnded, .primaryResumed, .ended]) == [
                "0.000 interstitialStarted @20.000 id=pre", "5.000 interstitialEnded @20.000 id=pre",
                "5.000 primaryResumed @20.000", "15.000 interstitialStarted @30.000 id=once",
                "19.000 interstitialEnded @30.000 id=once", "19.000 primaryResumed @30.000",
                "75.000 interstitialStarted @60.000 id=post", "81.000 interstitialEnded @60.000 id=post",
                "81.000 ended @60.000",
            ])
        #expect(trace.first(.interstitialEnded, id: "post")?["resumeTime"] == .null)
    }

    @Test("R13: under SKIP, forward seeks and rates above 1 are refused; pausing and seeking back inside it are not")
    func skipRestriction() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "brk", at: 12,
                    "DURATION=10,X-ASSET-URI=\"{ORIGIN}/long.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP\"")
            ], ads)
        let trace = try await TestOrigin.with(files: files) {
            await play(
                $0, "/main.m3u8",
                script: [
                    (14, .seek(s(40))), (15, .setRate(2)), (16, .pause), (18, .play), (19, .seekInInterstitial(s(9))),
                    (20, .seekInInterstitial(s(1))), (21, .seek(s(2))),
                ]
            ).trace
        }
        // profile R13
        #expect(trace.first(.seekRefused)?["reason"]?.description.contains("SKIP") == true)
        #expect(trace.first(.seekRefused)?.seconds == s(14))
        #expect(trace.first(.rateRefused)?.seconds == s(15))
        #expect(trace.first(.paused)?.seconds == s(16))
        #expect(trace.filter { $0.kind == .seekRefused }.count == 2)
        #expect(trace.first { $0.kind == .seekCompleted && $0["interstitialTime"] == .time(s(1)) }?.seconds == s(20))
        // A backward seek out of the event is allowed: primary resumes at 2.
        #expect(trace.first(.interstitialEnded, id: "brk")?["reason"] == .string("seek"))
        #expect(trace.first { $0.kind == .seekCompleted && $0["to"] == .time(s(2)) }?.seconds == s(21))
    }

    @Test("R14: a seek across JUMP events plays the last one crossed, then completes; others are skipped")
    func jumpRestriction() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "j1", at: 20, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"JUMP\""),
                Content.interstitial("free", at: 30, "DURATION=4,X-ASSET-URI=\"{ORIGIN}/b.m3u8\",X-RESUME-OFFSET=0"),
                Content.interstitial(
                    "j2", at: 40, "DURATION=6,X-ASSET-URI=\"{ORIGIN}/c.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"JUMP\""),
            ], ads)
        let trace = try await TestOrigin.with(files: files) {
            await play($0, "/main.m3u8", script: [(5, .seek(s(50))), (20, .seek(s(10))), (21, .seek(s(25)))]).trace
        }
        // profile R14: j2 (nearest the target) plays, then the seek completes at 50; "free" is skipped.
        // A seek from 10 to 25 crosses j1: it plays, then the seek lands at 25; playback then goes on
        // through "free" and j2.
        #expect(
            trace.lines([.interstitialStarted, .seekCompleted, .primaryResumed]).prefix(10) == [
                "0.000 primaryResumed @0.000", "5.000 interstitialStarted @40.000 id=j2",
                "11.000 primaryResumed @50.000",
                "11.000 seekCompleted @50.000", "20.000 seekCompleted @10.000",
                "21.000 interstitialStarted @20.000 id=j1",
                "26.000 primaryResumed @25.000", "26.000 seekCompleted @25.000",
                "31.000 interstitialStarted @30.000 id=free",
                "35.000 primaryResumed @30.000",
            ])
    }

    @Test("R14: JUMP plays an event again even if it was played through earlier")
    func jumpReplays() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "j", at: 10, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"JUMP\"")
            ], ads)
        let trace = try await TestOrigin.with(files: files) {
            await play($0, "/main.m3u8", until: 40, script: [(20, .seek(s(2))), (21, .seek(s(30)))]).trace
        }
        #expect(trace.filter { $0.kind == .interstitialStarted }.map(\.seconds) == [s(10), s(21)])
    }

    @Test("R15: a seek into the resume window of an event with a positive offset starts the event")
    func resumeWindow() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 20, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=10")], ads)
        let trace = try await TestOrigin.with(files: files) {
            await play($0, "/main.m3u8", until: 30, script: [(2, .seek(s(25)))]).trace
        }
        // profile R15: lands at 20, plays the event from its start, resumes at 30.
        #expect(
            trace.lines([.seekCompleted, .interstitialStarted, .primaryResumed]) == [
                "0.000 primaryResumed @0.000", "2.000 seekCompleted @20.000",
                "2.000 interstitialStarted @20.000 id=brk",
                "7.000 primaryResumed @30.000",
            ])
    }

    @Test("R16: skip control opens a window measured from the start of the interstitial, even under SKIP")
    func skipControl() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "ctl", at: 10,
                    "DURATION=10,X-ASSET-LIST=\"/ctl.json\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP\",X-SKIP-CONTROL-OFFSET=1,X-SKIP-CONTROL-DURATION=1"
                ),
                Content.interstitial("free", at: 30, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0"),
                Content.interstitial(
                    "locked", at: 40, "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP\""
                ),
            ],
            // The list's SKIP-CONTROL overrides the tag: the window is [3, 8) across both assets.
            ads.merging([
                "/ctl.json": Content.assetList(
                    [("{ORIGIN}/a.m3u8", 5), ("{ORIGIN}/a.m3u8", 5)], skipControl: "{\"OFFSET\":3,\"DURATION\":5}")
            ]) { $1 })
        try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            let controller = InterstitialEventController(primaryPlayer: player)
            let states = controller.currentEventSkippableStateDidChange
            for (time, command) in [
                (11.0, PlaybackCommand.skipCurrentEvent), (16, .skipCurrentEvent), (38, .skipCurrentEvent),
                (50, .skipCurrentEvent),
            ] {
                player.schedule(command, at: .nanoseconds(s(time).nanoseconds))
            }
            player.play()
            await player.run(until: nil)
            await player.shutdown()
            let trace = player.trace
            // profile R16
            #expect(
                trace.lines([.skipRefused, .eventSkipped]) == [
                    "11.000 skipRefused @10.000 id=ctl", "16.000 eventSkipped @10.000 id=ctl",
                    "38.000 eventSkipped @30.000 id=free", "50.000 skipRefused @40.000 id=locked",
                ])
            var seen: [SkippableEventState] = []
            for await change in states where change.event.identifier == "ctl" { seen.append(change.state) }
            // Skipped while eligible: the state goes back to not skippable as the event ends.
            #expect(seen == [.notYetEligible, .eligible, .notSkippable])
        }
    }

    @Test("Plan A (WWDC23): ads under SKIP and JUMP allow only play and pause")
    func planA() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "ad1", at: 10,
                    "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\"")
            ], ads)
        let trace = try await TestOrigin.with(files: files) {
            await play(
                $0, "/main.m3u8",
                script: [(11, .seek(s(50))), (12, .setRate(2)), (12.5, .skipCurrentEvent), (13, .pause), (14, .play)]
            ).trace
        }
        #expect(
            trace.lines([.seekRefused, .rateRefused, .skipRefused, .paused, .interstitialStarted, .primaryResumed]) == [
                "0.000 primaryResumed @0.000", "10.000 interstitialStarted @10.000 id=ad1",
                "11.000 seekRefused @10.000",
                "12.000 rateRefused @10.000", "12.500 skipRefused @10.000 id=ad1", "13.000 paused @10.000",
                "16.000 primaryResumed @10.000",
            ])
        #expect(trace.filter { $0.kind == .interstitialStarted }.map(\.seconds) == [s(10)])
    }

    @Test("Plan B (WWDC23): an app that sets no events plays no ads")
    func planB() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "ad1", at: 10,
                    "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\"")
            ], ads)
        let trace = try await TestOrigin.with(files: files) { origin in
            await play(origin, "/main.m3u8", before: { InterstitialEventController(primaryPlayer: $0).events = [] })
                .trace
        }
        #expect(!trace.contains { $0.kind == .interstitialStarted })
        #expect(trace.last?.kind == .ended && trace.last?.seconds == s(60))
    }

    @Test("Plan C (WWDC23), R17: the first ad stays restricted, the app clears the second's restriction")
    func planC() async throws {
        let files = vod(
            [
                Content.interstitial(
                    "ad1", at: 10,
                    "DURATION=5,X-ASSET-URI=\"{ORIGIN}/a.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""),
                Content.interstitial(
                    "ad2", at: 30,
                    "DURATION=4,X-ASSET-URI=\"{ORIGIN}/b.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""),
            ], ads)
        let trace = try await TestOrigin.with(files: files) { origin in
            let player = makePlayer(origin)
            let controller = InterstitialEventController(primaryPlayer: player)
            player.play()
            await player.run(until: .seconds(1))
            // Copy the server's events, clear ad2's restrictions, set them back (profile R17).
            var events = controller.events
            events[1].restrictions = []
            controller.events = events
            #expect(controller.events[1].restrictions.isEmpty && controller.events[0].restrictions == [.skip, .jump])
            player.schedule(.seek(s(50)), at: .seconds(2))
            player.schedule(.seek(s(5)), at: .seconds(20))
            await player.run(until: .seconds(30))
            await player.shutdown()
            return player.trace
        }
        // The seek from 2 to 50 crosses ad1 (JUMP) and ad2 (no longer): only ad1 plays.
        #expect(trace.filter { $0.kind == .interstitialStarted }.compactMap { $0["id"]?.description } == ["ad1"])
        #expect(trace.first(.seekCompleted)?.primaryTime == s(50))
    }
}
