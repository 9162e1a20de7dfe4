import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// What the players expose on the machine: loaded time ranges, watched asset times, and the
/// unscheduling of X-ASSET-URI events.
@Suite("Observation on the engine")
struct ObservationTests {
    @Test("the primary's loaded time ranges are its loaded segments, merged; they grow with the forward buffer")
    func primaryRanges() {
        var harness = Harness(vod(6)) { $0.loadsSegments = true }
        harness.deliver()
        // Buffering starts before play: the forward buffer from the start.
        #expect(harness.machine.loadedPrimaryRanges == [s(0)..<s(30)])
        harness.play(until: 5)
        #expect(harness.machine.loadedPrimaryRanges == [s(0)..<s(40)])
        harness.run(until: 25)
        #expect(harness.machine.loadedPrimaryRanges == [s(0)..<s(60)])
    }

    @Test("a segment that failed leaves a hole in the loaded ranges")
    func hole() {
        var harness = Harness(vod(6)) { $0.loadsSegments = true }
        harness.failing = [Harness.base + "seg1.ts"]
        harness.play(until: 5)
        #expect(harness.machine.loadedPrimaryRanges == [s(0)..<s(10), s(20)..<s(40)])
    }

    @Test("the interstitial asset's loaded ranges are in its own time; none between assets or in primary")
    func assetRanges() {
        var harness = Harness(
            dated(event("e", at: 10, "X-ASSET-URI=\"a6.m3u8\",X-RESUME-OFFSET=0")), assets: ["a6.m3u8": 6]
        ) { $0.loadsSegments = true }
        harness.play(until: 9)
        #expect(harness.machine.loadedAssetRanges.isEmpty)
        harness.run(until: 12)
        #expect(harness.machine.mode == .interstitial)
        #expect(harness.machine.loadedAssetRanges == [s(0)..<s(6)])
    }

    @Test("watched asset times (quartiles) stop playback at each and are reported once, in asset time")
    func quartiles() {
        var harness = Harness(
            dated(
                event("e", at: 10, "X-ASSET-URI=\"a6.m3u8\",X-RESUME-OFFSET=0"),
                event("f", at: 30, "X-ASSET-URI=\"a4.m3u8\",X-RESUME-OFFSET=0")),
            assets: ["a6.m3u8": 6, "a4.m3u8": 4])
        harness.machine.watch(AssetTimeWatch(fractions: [0.25, 0.5, 0.75, 1]), key: 7)
        harness.machine.watch(AssetTimeWatch(times: [s(2)]), key: 8)
        harness.play(until: 10)
        #expect(harness.machine.mode == .interstitial)
        #expect(harness.machine.nextDeadline == clock(11.5))
        harness.run(until: 20)
        let first = harness.machine.takeCrossedAssetTimes()
        #expect(first.map(\.key) == [7, 8, 7, 7, 7])
        #expect(first.map(\.time) == [s(1.5), s(2), s(3), s(4.5), s(6)])
        #expect(first.allSatisfy { $0.eventID == "e" && $0.assetIndex == 0 })
        harness.run(until: 40)
        #expect(harness.machine.crossedAssetTimes.isEmpty == false)
        let second = harness.machine.takeCrossedAssetTimes()
        #expect(second.map(\.time) == [s(1), s(2), s(2), s(3), s(4)])
        #expect(second.allSatisfy { $0.eventID == "f" })
        #expect(harness.machine.crossedAssetTimes.isEmpty)
    }

    @Test("an X-ASSET-URI event whose asset loaded is unscheduled with a notification when a reload drops it")
    func unscheduledAssetURI() {
        let later = event("later", at: 50, "DURATION=10,X-ASSET-URI=\"a.m3u8\"")
        var harness = Harness(live(8, later), assets: ["a.m3u8": 10], configure: { $0.startTime = .zero })
        harness.play(until: 41)
        #expect(harness.requests.contains { $0.key == .asset("later", 0) })
        harness.playlists[Harness.base + "main.m3u8"] = live(8)
        harness.run(until: 60)
        #expect(harness.lines([.eventUnscheduled]).count == 1)
        let unscheduled = harness.notifications.compactMap { notification -> String? in
            guard case .eventWasUnscheduled(let event, let error) = notification else { return nil }
            return "\(event.identifier) \(error ?? "no error")"
        }
        #expect(unscheduled == ["later no error"])
    }

    @Test("an X-ASSET-URI event whose asset failed is unscheduled with the error")
    func unscheduledFailedAssetURI() {
        let later = event("later", at: 50, "DURATION=10,X-ASSET-URI=\"a.m3u8\"")
        var harness = Harness(live(8, later), configure: { $0.startTime = .zero })
        harness.play(until: 41)
        harness.playlists[Harness.base + "main.m3u8"] = live(8)
        harness.run(until: 60)
        let unscheduled = harness.notifications.compactMap { notification -> String? in
            guard case .eventWasUnscheduled(let event, let error) = notification else { return nil }
            return "\(event.identifier) \(error ?? "no error")"
        }
        #expect(unscheduled == ["later no asset at \(Harness.base)a.m3u8"])
    }
}
