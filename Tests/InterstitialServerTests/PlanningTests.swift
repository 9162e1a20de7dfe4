import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

@Suite("Planning: live loop, breaks, ad decisions (pure)")
struct PlanningTests {
    let epoch = ServerConfiguration.defaultEpoch

    @Test("A looped live window slides by segment, with PDT and a discontinuity at each loop start")
    func liveLoopWindow() throws {
        let video = try demoMedia("video/main.m3u8")
        let loop = try #require(
            LiveLoop(source: video, loopDuration: MediaTime(seconds: 40), epoch: epoch, windowSegments: 6))
        // 100.5 s in: segments are 2 s, so the last available one ends at 100 s (sequence 49).
        let inLoop = loop.window(at: epoch + MediaTime(seconds: 100.5))
        #expect(inLoop.mediaSequence == 44)
        #expect(inLoop.start == epoch + MediaTime(seconds: 88))
        #expect(inLoop.end == epoch + MediaTime(seconds: 100))
        #expect(inLoop.text.contains("#EXT-X-MEDIA-SEQUENCE:44\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n"))
        #expect(!inLoop.text.contains("#EXT-X-DISCONTINUITY\n"))
        #expect(!inLoop.text.contains("#EXT-X-ENDLIST"))
        // 83 s in: the window crosses the start of loop 2 at 80 s.
        let crossing = loop.window(at: epoch + MediaTime(seconds: 83))
        #expect(crossing.mediaSequence == 35)
        #expect(crossing.text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        #expect(
            crossing.text.contains(
                "#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init_0.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:20.000Z\n#EXTINF:2.000000,\nseg000.m4s\n"
            ))
        let parsed = PlaylistParser.parse(crossing.text)
        #expect(!parsed.hasErrors, "\(parsed.diagnostics)")
        guard case .media(let playlist) = parsed.playlist else { Issue.record("not a media playlist"); return }
        #expect(playlist.segments.count == 6)
        #expect(playlist.segments.map(\.mediaSequence) == Array(35...40))
        #expect(playlist.segments.last?.date == epoch + MediaTime(seconds: 80))
        // A second later nothing new is available: the same window.
        #expect(loop.window(at: epoch + MediaTime(seconds: 83.9)).text == crossing.text)
    }

    @Test("Every rendition loops with the same length, so their dates agree (audio segments end where video's do)")
    func renditionsShareLoopDates() throws {
        let audio = try demoMedia("audio-fr/main.m3u8")
        // 1875 AAC frames: exactly 40 s, in segments of 2.005333 and 1.984 s.
        #expect(audio.segments.count == 20)
        #expect(abs((audio.segments.last?.endTime.seconds ?? 0) - 40) < 0.001)
        let loop = try #require(
            LiveLoop(source: audio, loopDuration: MediaTime(seconds: 40), epoch: epoch, windowSegments: 6))
        #expect(loop.segments.count == 20)
        let window = loop.window(at: epoch + MediaTime(seconds: 83))
        #expect(window.text.contains("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:20.000Z\n"))
    }

    @Test("fMP4 loops run their timestamps on: no discontinuity, each later loop's segments ask to be moved")
    func liveLoopContinuousTimestamps() throws {
        let video = try demoMedia("video/main.m3u8")
        let loop = try #require(
            LiveLoop(
                source: video, loopDuration: MediaTime(seconds: 40), epoch: epoch, windowSegments: 6,
                timescale: 12_800))
        // 83 s in: loop 1's last segments, then loop 2 from 80 s.
        let crossing = loop.window(at: epoch + MediaTime(seconds: 83))
        #expect(!crossing.text.contains("DISCONTINUITY"))
        #expect(crossing.text.components(separatedBy: "#EXT-X-MAP:").count == 2)
        #expect(crossing.text.contains("seg019.m4s?shift=512000\n"))  // loop 1: 40 s × 12800
        #expect(
            crossing.text.contains(
                "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:20.000Z\n#EXTINF:2.000000,\nseg000.m4s?shift=1024000\n"))
        let parsed = PlaylistParser.parse(crossing.text)
        #expect(!parsed.hasErrors, "\(parsed.diagnostics)")
        // Loop 0 is served as it is.
        #expect(loop.window(at: epoch + MediaTime(seconds: 13)).text.contains("seg000.m4s\n"))
        // A loop that is not a whole number of ticks keeps its discontinuities.
        let uneven = try #require(
            LiveLoop(
                source: video, loopDuration: MediaTime(seconds: 39.99), epoch: epoch, windowSegments: 6, timescale: 7))
        #expect(uneven.window(at: epoch + MediaTime(seconds: 83)).text.contains("#EXT-X-DISCONTINUITY\n"))
    }

    func liveState(cadence: BreakSchedule.Cadence) -> StoredState {
        var state = StoredState()
        let target = Target(.live, "demo")
        state.schedules[target] = BreakSchedule(target: target, cadence: cadence)
        return state
    }

    @Test("Cadence breaks are announced within the lookahead and kept while their range is in the window")
    func cadenceBreaks() {
        let state = liveState(
            cadence: .init(
                every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30)))
        let planner = BreakPlanner(
            target: Target(.live, "demo"), state: state, assetListURI: "/live/list.json", adURI: { $0.uri })
        func ids(windowEnd seconds: Double) -> [String] {
            let end = epoch + MediaTime(seconds: seconds)
            return planner.plan(
                .live(epoch: epoch, window: (end - MediaTime(seconds: 12))..<end, lookahead: MediaTime(seconds: 20))
            )
            .map(\.event.identifier)
        }
        let first = "break-\(epoch.nanosecondsSinceEpoch / 1_000_000_000 + 30)"
        #expect(ids(windowEnd: 5).isEmpty)
        #expect(ids(windowEnd: 12) == [first])  // 30 s is within 20 s of the live edge
        #expect(ids(windowEnd: 50) == [first])  // [30, 40) overlaps [38, 50)
        #expect(ids(windowEnd: 60).isEmpty)  // gone from the window, next one not yet announced
        let event = planner.plan(
            .live(epoch: epoch, window: epoch..<(epoch + MediaTime(seconds: 40)), lookahead: .zero))[0].event
        #expect(event.date == epoch + MediaTime(seconds: 30))
        #expect(event.plannedDuration == MediaTime(seconds: 10))
        #expect(event.duration == nil)
        #expect(event.assetListURI == "/live/list.json?_HLS_interstitial_id=\(first)")
        #expect(planner.lookup(id: first, .live(epoch: epoch, window: epoch..<epoch, lookahead: .zero)) != nil)
        #expect(
            planner.lookup(
                id: "break-\(epoch.nanosecondsSinceEpoch / 1_000_000_000 + 31)",
                .live(epoch: epoch, window: epoch..<epoch, lookahead: .zero)) == nil)
    }

    @Test("Served values never change; an early return adds X-PLAYOUT-LIMIT, DURATION and END-DATE under the same ID")
    func servedValuesAreFrozen() throws {
        var state = liveState(
            cadence: .init(
                every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30)))
        let target = Target(.live, "demo")
        let timeline = BreakPlanner.Timeline.live(
            epoch: epoch, window: epoch..<(epoch + MediaTime(seconds: 40)), lookahead: .zero)
        let first = BreakPlanner(target: target, state: state, assetListURI: "/l.json", adURI: { $0.uri }).plan(
            timeline)[0]
        let served = try #require(first.firstServing)
        state.served[ServedKey(target, first.event.identifier)] = served
        // The operator changes the cadence's duration: the served break keeps its values.
        state.schedules[target]?.cadence?.duration = MediaTime(seconds: 20)
        let again = BreakPlanner(target: target, state: state, assetListURI: "/other.json", adURI: { $0.uri }).plan(
            timeline)[0]
        #expect(again.firstServing == nil)
        #expect(try again.event.dateRangeTag.description == first.event.dateRangeTag.description)
        // Early return 4.5 s in.
        state.earlyReturns[ServedKey(target, first.event.identifier)] = MediaTime(seconds: 4.5)
        let returned = BreakPlanner(target: target, state: state, assetListURI: "/l.json", adURI: { $0.uri }).plan(
            timeline)[0]
        let before = try first.event.dateRangeTag.description
        let after = try returned.event.dateRangeTag.description
        #expect(after.hasPrefix(before))
        #expect(after.hasSuffix(",END-DATE=\"2026-01-01T00:00:34.500Z\",DURATION=4.5,X-PLAYOUT-LIMIT=4.5"))
        // Even with its schedule gone, a served break in the window stays.
        state.schedules[target] = nil
        let orphan = BreakPlanner(target: target, state: state, assetListURI: "/l.json", adURI: { $0.uri }).plan(
            timeline)
        #expect(orphan.map(\.event.identifier) == [first.event.identifier])
    }

    @Test("VOD: PRE at the start, POST at the end, mid-rolls by time, fixed ads as absolute X-ASSET-URI")
    func vodBreaks() throws {
        let configuration = try ServerConfiguration.demo()
        var state = StoredState()
        for ad in configuration.seed.inventory { state.ads[ad.id] = ad }
        for item in configuration.seed.breaks { state.breaks[item.id] = item }
        let video = try demoMedia("video/main.m3u8")
        let (timeline, _) = PlaylistRenderer.vodTimeline(video)
        let planner = BreakPlanner(
            target: Target(.vod, "demo"), state: state, assetListURI: "/demo/vod/asset-list.json",
            adURI: { "http://example.com" + $0.uri })
        let events = planner.plan(timeline).map(\.event)
        #expect(events.map(\.identifier) == ["preroll", "midroll-1", "midroll-2", "postroll"])
        let base = InterstitialInserter.defaultEpoch
        #expect(
            events.map(\.date) == [
                base, base + MediaTime(seconds: 12), base + MediaTime(seconds: 26), base + MediaTime(seconds: 40),
            ])
        #expect(events[0].cue == .join && events[0].willPlayOnce)
        #expect(events[1].assetURI == "http://example.com/ads/ad2/master.m3u8?_HLS_interstitial_id=midroll-1")
        #expect(events[1].restrictions == [.skip, .jump])
        #expect(events[2].assetListURI == "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2")
        #expect(events[3].cue == .leave)
    }

    @Test("Ad decisions fill the break, are deterministic, and change with each request of the same viewer")
    func adDecisions() {
        let ads = [
            Ad(id: "a", uri: "/a.m3u8", duration: MediaTime(seconds: 6)),
            Ad(id: "b", uri: "/b.m3u8", duration: MediaTime(seconds: 4)),
            Ad(id: "c", uri: "/c.m3u8", duration: MediaTime(seconds: 6)),
        ]
        let ten = MediaTime(seconds: 10)
        let first = AdDecision.fill(duration: ten, ads: ads, viewer: "v", breakID: "x", attempt: 0)
        #expect(first.reduce(.zero) { $0 + $1.duration } <= ten + AdDecision.slack)
        #expect(!first.isEmpty)
        #expect(AdDecision.fill(duration: ten, ads: ads.reversed(), viewer: "v", breakID: "x", attempt: 0) == first)
        let attempts = (0..<3).map {
            AdDecision.fill(duration: ten, ads: ads, viewer: "v", breakID: "x", attempt: $0).map(\.id)
        }
        #expect(Set(attempts).count == 3, "\(attempts)")
        #expect(
            AdDecision.fill(duration: MediaTime(seconds: 2), ads: ads, viewer: "v", breakID: "x", attempt: 0).isEmpty)
        #expect(AdDecision.fill(duration: ten, ads: [], viewer: "v", breakID: "x", attempt: 0).isEmpty)
        // Joining 3 s in (R11): a 3 s entry the player skips, then whole ads for the remaining 7 s.
        let late = AdDecision.assetList(
            duration: ten, startOffset: MediaTime(seconds: 3), ads: ads, viewer: "v", breakID: "x", attempt: 0,
            skipControl: nil, url: { $0.uri })
        #expect(late.assets.first?.duration == MediaTime(seconds: 3))
        #expect(late.assets.dropFirst().reduce(.zero) { $0 + $1.duration } <= MediaTime(seconds: 7) + AdDecision.slack)
        #expect(late.startPosition(at: MediaTime(seconds: 3))?.index == 1)
        #expect(late.startPosition(at: MediaTime(seconds: 3))?.offset == .zero)
    }

    @Test(
        "A live break stays in the window for its effective duration, min(X-PLAYOUT-LIMIT, D), not for a longer limit (R3)"
    )
    func liveWindowUsesEffectiveDuration() throws {
        let channel = try ServerConfiguration.demo().live[0]
        let target = Target(.live, channel.id)
        let start = DateTime(iso8601: "2026-03-01T12:00:00Z")!
        var state = StoredState()
        for (id, limit) in [("short", 100.0), ("long", 60.0)] {
            var request = InsertionRequest(id: id)
            request.date = start
            request.duration = MediaTime(seconds: id == "short" ? 10 : 120)
            request.playoutLimit = MediaTime(seconds: limit)
            state.breaks[id] = Break(target: target, interstitial: request)
        }
        let planner = BreakPlanner(target: target, state: state, assetListURI: "asset-list.json", adURI: { $0.uri })
        // A window from 50 s after the start: "short" ended at 10 s (its limit of 100 s is longer than
        // it); "long" plays until its limit, 60 s.
        let window = (start + MediaTime(seconds: 50))..<(start + MediaTime(seconds: 80))
        let planned = planner.plan(.live(epoch: channel.epoch, window: window, lookahead: .zero))
        #expect(planned.map(\.event.identifier) == ["long"])
    }
}
