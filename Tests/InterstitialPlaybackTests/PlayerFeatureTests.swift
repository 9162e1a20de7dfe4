import HLSPlaylist
import InterstitialPlayback
import Logging
import PlaybackEngine
import ServiceLifecycle
import Testing

/// The player features an AVFoundation developer expects, on a manual clock against a real HTTP
/// origin: loaded time ranges, boundary observers on the interstitial player, the item template,
/// variant selection and a player that runs itself.
@Suite("Player features")
struct PlayerFeatureTests {
    /// Serves `files` and answers every `.ts` with a few bytes.
    static func routes(_ files: [String: String]) -> TestOrigin.Routes {
        { path, _ in
            path.hasSuffix(".ts") ? .init(contentType: "video/mp2t", body: "media") : TestOrigin.reply(files, path)
        }
    }

    @Test("the primary's loadedTimeRanges cover the forward buffer's loaded segments")
    func primaryLoadedRanges() async throws {
        let player = try await TestOrigin.with(Self.routes(vod([]))) { origin in
            await play(origin, "/main.m3u8", until: 5) { $0.loadsSegments = true }
        }
        // 30 s ahead of the playhead at 5 s: the segments up to [30, 36).
        #expect(player.loadedTimeRanges == [s(0)..<s(36)])
    }

    @Test("quartile observers on the interstitial player fire at 25, 50, 75 and 100 % of the asset, in its time")
    func quartiles() async throws {
        let files = vod([Content.interstitial("brk", at: 12, "X-ASSET-URI=\"/c.m3u8\",X-RESUME-OFFSET=0")], ads)
        let fired = Recorder<String>()
        let player = try await TestOrigin.with(Self.routes(files)) { origin in
            await play(origin, "/main.m3u8", until: 30, configure: { $0.loadsSegments = true }) { player in
                let queue = player.interstitialPlayer
                _ = queue.addBoundaryTimeObserver(fractionsOfDuration: [0.25, 0.5, 0.75, 1]) { time in
                    let clock = MediaTime(player.clockTime)
                    let loaded = queue.loadedTimeRanges.map {
                        "\($0.lowerBound.formatted(fractionDigits: 0))-\($0.upperBound.formatted(fractionDigits: 0))"
                    }
                    fired.append(
                        "\(clock.formatted(fractionDigits: 1)) \(time.formatted(fractionDigits: 1)) \(loaded.joined(separator: ","))"
                    )
                }
            }
        }
        // The 100 % mark is reached as the asset ends: no item is current by the time it is reported.
        #expect(fired.value == ["13.5 1.5 0-6", "15.0 3.0 0-6", "16.5 4.5 0-6", "18.0 6.0 "])
        #expect(player.trace.first(.interstitialStarted, id: "brk")?.seconds == s(12))
    }

    @Test("a removed observer is not called")
    func removedObserver() async throws {
        let files = vod([Content.interstitial("brk", at: 12, "X-ASSET-URI=\"/c.m3u8\",X-RESUME-OFFSET=0")], ads)
        let fired = Recorder<MediaTime>()
        _ = try await TestOrigin.with(files: files) { origin in
            await play(
                origin, "/main.m3u8", until: 30,
                before: { player in
                    let queue = player.interstitialPlayer
                    let kept = queue.addBoundaryTimeObserver(forTimes: [s(1)]) { fired.append($0) }
                    let removed = queue.addBoundaryTimeObserver(forTimes: [s(2)]) { fired.append($0) }
                    #expect(kept != nil)
                    if let removed { queue.removeTimeObserver(removed) }
                })
        }
        #expect(fired.value == [s(1)])
    }

    @Test("the item template is set and read back; with rebinding, a seek back re-requests the asset list")
    func templateRebinding() async throws {
        let files = vod(
            [Content.interstitial("brk", at: 12, "X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")],
            ads.merging(["/list.json": Content.assetList([("{ORIGIN}/a.m3u8", 5)])]) { $1 })
        let templates = Recorder<InterstitialItemTemplate?>()
        let (lists, trace) = try await TestOrigin.with(files: files) { origin in
            let player = await play(
                origin, "/main.m3u8", until: 40,
                before: { player in
                    #expect(player.interstitialItemTemplate == InterstitialItemTemplate())
                    var template = player.interstitialItemTemplate
                    template.rebindsAssetLists = true
                    template.lookahead = s(4)
                    player.interstitialItemTemplate = template
                    #expect(player.interstitialItemTemplate == template)
                    let queue = player.interstitialPlayer
                    _ = queue.addBoundaryTimeObserver(forTimes: [s(1)]) { _ in
                        templates.append(queue.currentItem?.itemTemplate)
                    }
                }, script: [(25, .seek(s(5)))])
            return (origin.requests.filter { $0.path == "/list.json" }.count, player.trace)
        }
        #expect(lists == 2)
        // Each time the event plays, its item carries the template it was made with.
        let expected = InterstitialItemTemplate(lookahead: s(4), rebindsAssetLists: true)
        #expect(templates.value == [expected, expected])
        #expect(
            trace.lines([.assetListRequested, .assetListRebound]) == [
                "8.000 assetListRequested @8.000 id=brk", "32.000 assetListRebound @12.000 id=brk",
                "32.000 assetListRequested @12.000 id=brk",
            ])
    }

    @Test("a pinned variant plays from its first segment; the trace says so")
    func pinnedVariant() async throws {
        let multivariant = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=6000000
            hi.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=1000000
            lo.m3u8

            """
        let files = [
            "/master.m3u8": multivariant, "/hi.m3u8": Content.vod(segments: 10, prefix: "hi"),
            "/lo.m3u8": Content.vod(segments: 10, prefix: "lo"),
        ]
        let (trace, segments) = try await TestOrigin.with(Self.routes(files)) { origin in
            let player = await play(origin, "/master.m3u8", until: 20) {
                $0.loadsSegments = true
                $0.variantPolicy = VariantPolicy(pinnedVariant: 1)
            }
            return (player.trace, origin.requests.filter { $0.path.hasSuffix(".ts") }.map(\.path))
        }
        #expect(
            trace.lines([.variantSwitched], fields: ["from", "to", "bandwidth"]) == [
                "0.000 variantSwitched @0.000 from=0 to=1 bandwidth=1000000"
            ])
        #expect(!segments.isEmpty)
        #expect(segments.allSatisfy { $0.hasPrefix("/lo") })
    }

    @Test(
        "run() plays without being pumped: to the end, again after a seek back, until cancelled",
        .timeLimit(.minutes(10)))
    func runsItself() async throws {
        let ended = try await TestOrigin.with(files: vod([])) { origin in
            let player = Player(
                item: PlayerItem(url: origin.url("/main.m3u8")),
                configuration: .init(primaryID: "p", loadsSegments: false), clock: ManualClock())
            var events = player.traceEvents().makeAsyncIterator()
            player.play()
            let task = Task { try await player.run() }
            while let event = await events.next(), event.kind != .ended {}
            player.seek(to: s(50))
            player.play()
            while let event = await events.next(), event.kind != .ended {}
            task.cancel()
            try await task.value
            return player.trace.lines([.ended, .seekCompleted], fields: ["to"])
        }
        #expect(ended == ["60.000 ended @60.000", "60.000 seekCompleted @50.000 to=50.000", "70.000 ended @60.000"])
    }

    @Test(
        "a trace or notification stream asked for after the shutdown ends at once (hlsi play hung on one)",
        .timeLimit(.minutes(10)))
    func streamsAfterShutdown() async throws {
        let player = Player(
            item: PlayerItem(url: "http://127.0.0.1:9/main.m3u8"),
            configuration: .init(primaryID: "p", loadsSegments: false), clock: ManualClock())
        let before = player.traceEvents()
        await player.shutdown()
        var count = 0
        for await _ in before { count += 1 }
        for await _ in player.traceEvents() { count += 1 }
        #expect(count == 0)
    }

    @Test("the player is a Service: a ServiceGroup runs it and its graceful shutdown ends it", .timeLimit(.minutes(10)))
    func runsInServiceGroup() async throws {
        let lines = try await TestOrigin.with(files: vod([])) { origin in
            let player = Player(
                item: PlayerItem(url: origin.url("/main.m3u8")),
                configuration: .init(primaryID: "p", loadsSegments: false), clock: ManualClock())
            var events = player.traceEvents().makeAsyncIterator()
            player.play()
            let group = ServiceGroup(
                configuration: .init(services: [player], gracefulShutdownSignals: [], logger: Logger(label: "test")))
            let task = Task { try await group.run() }
            while let event = await events.next(), event.kind != .ended {}
            await group.triggerGracefulShutdown()
            try await task.value
            return player.trace.lines([.ended], fields: [])
        }
        #expect(lines == ["60.000 ended @60.000"])
    }
}
