import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// The VOD primary of most tests: six 10 s segments dated from 2025-01-01T00:00:00Z.
func dated(_ tags: String...) -> String {
    playlist(6, tags: ["#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z"] + tags, end: true)
}

/// The playback rules of the behavior profile, one or more tests each, on the machine directly.
@Suite("Playback rules on the engine")
struct PlaybackRuleTests {
    static let pair = #"{"ASSETS":[{"URI":"a4.m3u8","DURATION":4},{"URI":"a6.m3u8","DURATION":6}]}"#
    static let assets: [String: Double] = ["a.m3u8": 10, "a4.m3u8": 4, "a6.m3u8": 6, "b.m3u8": 5]

    @Test("R7: an empty asset list plays nothing and resumes at X-RESUME-OFFSET, or 0 without one")
    func emptyList() {
        // profile R7
        var harness = Harness(
            dated(
                event("e", at: 10, "X-ASSET-LIST=\"empty.json\",X-RESUME-OFFSET=5"),
                event("f", at: 30, "X-ASSET-LIST=\"empty.json\"")),
            lists: ["empty.json": #"{"ASSETS":[]}"#])
        harness.play(until: 70)
        #expect(harness.events(.assetStarted).isEmpty)
        #expect(
            harness.lines([.interstitialEnded], fields: ["id", "resumeTime"]) == [
                "10.0 interstitialEnded @10.0 id=e resumeTime=15.000",
                "25.0 interstitialEnded @30.0 id=f resumeTime=30.000",
            ])
    }

    @Test("R7, R20: a failed asset list fails the event with offset 0 and primary plays on")
    func failedList() {
        // profile R7, R20
        var harness = Harness(
            dated(event("e", at: 10, "DURATION=10,X-ASSET-LIST=\"gone.json\"")), assets: Self.assets)
        harness.failing = [Harness.base + "gone.json"]
        harness.play(until: 70)
        #expect(
            harness.lines([.interstitialEnded], fields: ["id", "reason", "resumeTime"]) == [
                "10.0 interstitialEnded @10.0 id=e reason=failed resumeTime=10.000"
            ])
        #expect(harness.events(.ended).first?.primaryTime == s(60))
        #expect(
            harness.notifications.contains(
                .assetListResponseStatusDidChange(
                    event: harness.machine.scheduledEvents[0], status: .unavailable,
                    error: "failed to load \(Harness.base)gone.json")))
    }

    @Test("R7: a failed asset is skipped and the rest play")
    func failedAsset() {
        // profile R7
        var harness = Harness(
            dated(event("e", at: 10, "X-ASSET-LIST=\"pair.json\",X-RESUME-OFFSET=0")), assets: Self.assets,
            lists: ["pair.json": Self.pair])
        harness.failing = [Harness.base + "a4.m3u8"]
        harness.play(until: 30)
        #expect(harness.lines([.assetStarted], fields: ["index"]) == ["10.0 assetStarted @10.0 index=1"])
        #expect(harness.lines([.primaryResumed]) == ["0.0 primaryResumed @0.0", "16.0 primaryResumed @10.0"])
    }

    @Test("R8: a negative offset replays primary without replaying the event")
    func negativeOffset() {
        // profile R8
        var harness = Harness(
            dated(event("e", at: 20, "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESUME-OFFSET=-10")), assets: Self.assets)
        harness.play(until: 80)
        #expect(harness.lines([.interstitialStarted]) == ["20.0 interstitialStarted @20.0 id=e"])
        #expect(harness.events(.ended).first?.seconds == s(80))
        // Moving back before it plays it again.
        harness.send(.seek(s(15)))
        harness.play(until: 90)
        #expect(harness.events(.interstitialStarted).count == 2)
    }

    @Test("R9: PRE plays before primary wherever it starts, POST after its end, ONCE only once")
    func cues() {
        // profile R9
        var harness = Harness(
            dated(
                event("pre", at: 0, "CUE=\"PRE\",DURATION=5,X-ASSET-URI=\"b.m3u8\""),
                event("once", at: 30, "CUE=\"ONCE\",DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESUME-OFFSET=0"),
                event("post", at: 0, "CUE=\"POST\",DURATION=5,X-ASSET-URI=\"b.m3u8\"")),
            assets: Self.assets, configure: { $0.startTime = s(20) })
        harness.play(until: 15)
        harness.send(.seek(s(25)))
        harness.run(until: 100)
        #expect(
            harness.lines([.interstitialStarted, .ended]) == [
                "0.0 interstitialStarted @20.0 id=pre", "10.0 interstitialStarted @30.0 id=once",
                "50.0 interstitialStarted @60.0 id=post", "55.0 ended @60.0",
            ])
    }

    @Test("R10: live, without X-RESUME-OFFSET primary resumes at the start plus the time played")
    func liveResume() {
        // profile R10
        var harness = Harness(
            live(6, event("e", at: 30, "DURATION=20,X-ASSET-URI=\"a.m3u8\",X-PLAYOUT-LIMIT=8")), assets: Self.assets,
            configure: { $0.startTime = .zero })
        harness.play(until: 45)
        #expect(
            harness.lines([.interstitialEnded], fields: ["id", "resumeTime"]) == [
                "38.0 interstitialEnded @30.0 id=e resumeTime=38.000"
            ])
    }

    @Test("R11: joining live inside a break plays it from the offset, earlier assets skipped")
    func liveJoin() {
        // profile R11
        var harness = Harness(
            live(6, event("e", at: 25, "DURATION=10,X-ASSET-LIST=\"pair.json\"")), assets: Self.assets,
            lists: ["pair.json": Self.pair])
        harness.play(until: 10)
        // Joined 3 target durations from the edge (30), 5 s into the break.
        let list = harness.requests.first { $0.key == .assetList("e") }
        #expect(list?.url == Harness.base + "pair.json?_HLS_primary_id=p&_HLS_start_offset=5.000")
        #expect(harness.events(.interstitialStarted).first?["startOffset"] == .time(s(5)))
        #expect(harness.lines([.assetStarted], fields: ["index"]) == ["0.0 assetStarted @30.0 index=1"])
        #expect(harness.lines([.primaryResumed]) == ["5.0 primaryResumed @35.0"])
    }

    @Test("R12: a reload adds X-PLAYOUT-LIMIT to a playing event (early return); changed values are ignored")
    func liveEarlyReturn() {
        // profile R12
        var harness = Harness(
            live(6, event("e", at: 30, "DURATION=20,X-ASSET-URI=\"a.m3u8\"")), assets: ["a.m3u8": 20],
            configure: { $0.startTime = .zero })
        harness.play(until: 33)
        harness.playlists[Harness.base + "main.m3u8"] = live(
            6, event("e", at: 30, "DURATION=15,X-ASSET-URI=\"a.m3u8\",X-PLAYOUT-LIMIT=10"))
        harness.run(until: 50)
        #expect(
            harness.lines([.interstitialEnded], fields: ["id", "reason", "resumeTime"]) == [
                "40.0 interstitialEnded @30.0 id=e reason=limit resumeTime=40.000"
            ])
        #expect(harness.events(.warning).contains { ($0["message"]?.description ?? "").contains("DURATION") })
    }

    @Test("R13: under SKIP, forward seeks and rates above 1 are refused; pause and seeking back are not")
    func skipRestriction() {
        // profile R13
        var harness = Harness(
            dated(event("e", at: 10, "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESTRICT=\"SKIP\",X-RESUME-OFFSET=0")),
            assets: Self.assets)
        harness.play(until: 14)
        #expect(
            harness.send(.seekInInterstitial(s(8))).refusal == .seek(.interstitial(s(8)), .skipRestricted(event: "e")))
        #expect(harness.send(.setRate(2)).refusal == .rate(2, .skipRestricted(event: "e")))
        #expect(harness.send(.pause).refusal == nil)
        #expect(harness.send(.seekInInterstitial(s(1))).refusal == nil)
        #expect(harness.events(.rateRefused).count == 1)
    }

    @Test("R14: a seek across JUMP events plays the last one crossed, then completes the seek")
    func jump() {
        // profile R14
        var harness = Harness(
            dated(
                event("j1", at: 20, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESTRICT=\"JUMP\",X-RESUME-OFFSET=0"),
                event("j2", at: 30, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESTRICT=\"JUMP\",X-RESUME-OFFSET=0"),
                event("free", at: 40, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESUME-OFFSET=0")),
            assets: Self.assets)
        harness.play(until: 5)
        harness.send(.seek(s(50)))
        harness.run(until: 12)
        #expect(
            harness.lines([.interstitialStarted, .seekCompleted], fields: ["id", "to"]) == [
                "5.0 interstitialStarted @30.0 id=j2", "10.0 seekCompleted @50.0 to=50.000",
            ])
    }

    @Test("R15: a seek into the resume window of an event with a positive offset starts the event")
    func resumeWindow() {
        // profile R15
        var harness = Harness(
            dated(event("e", at: 20, "DURATION=10,X-ASSET-URI=\"a.m3u8\"")), assets: Self.assets)
        harness.play(until: 5)
        harness.send(.seek(s(25)))
        harness.run(until: 20)
        #expect(harness.lines([.seekCompleted], fields: ["to"]) == ["5.0 seekCompleted @20.0 to=20.000"])
        #expect(
            harness.lines([.interstitialStarted, .primaryResumed]) == [
                "0.0 primaryResumed @0.0", "5.0 interstitialStarted @20.0 id=e", "15.0 primaryResumed @30.0",
            ])
    }

    @Test("R16: skip control opens a window from the start of the interstitial, even under SKIP")
    func skipControl() {
        // profile R16
        var harness = Harness(
            dated(
                event(
                    "e", at: 10,
                    "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESTRICT=\"SKIP\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=5,X-SKIP-CONTROL-DURATION=2"
                )),
            assets: Self.assets)
        harness.play(until: 12)
        #expect(
            harness.send(.skipCurrentEvent).refusal
                == .skip(.skipWindowNotOpen(event: "e", opensAt: s(5), now: s(2))))
        harness.run(until: 16)
        #expect(harness.send(.skipCurrentEvent).refusal == nil)
        #expect(
            harness.lines([.eventSkipped, .primaryResumed]) == [
                "0.0 primaryResumed @0.0", "16.0 eventSkipped @10.0 id=e", "16.0 primaryResumed @10.0",
            ])
    }

    @Test("R17: the application overrides an event's restrictions")
    func overrideRestrictions() {
        // profile R17
        var harness = Harness(
            dated(event("e", at: 10, "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESTRICT=\"SKIP\",X-RESUME-OFFSET=0")),
            assets: Self.assets)
        harness.send(.setRestrictions(eventID: "e", []))
        harness.play(until: 12)
        #expect(harness.send(.setRate(2)).refusal == nil)
        #expect(harness.send(.skipCurrentEvent).refusal == nil)
    }

    @Test("R18: the asset list is requested a look-ahead before the event, never when the playlist is read")
    func lateBinding() {
        // profile R18
        var harness = Harness(
            dated(event("e", at: 40, "DURATION=10,X-ASSET-LIST=\"pair.json\"")), assets: Self.assets,
            lists: ["pair.json": Self.pair])
        harness.play(until: 29)
        #expect(harness.events(.assetListRequested).isEmpty)
        harness.run(until: 31)
        #expect(harness.lines([.assetListRequested]) == ["30.0 assetListRequested @30.0 id=e"])
    }

    @Test("R19: asset lists and assets are requested with _HLS_primary_id")
    func primaryID() {
        // profile R19
        var harness = Harness(
            dated(event("e", at: 10, "DURATION=10,X-ASSET-LIST=\"pair.json\"")), assets: Self.assets,
            lists: ["pair.json": Self.pair])
        harness.play(until: 30)
        #expect(harness.requests.count == 4)
        #expect(harness.requests.allSatisfy { $0.url.hasSuffix("?_HLS_primary_id=p") })
    }

    @Test("R25: the date ranges of an interstitial asset's playlist are not events")
    func assetDateRanges() {
        // profile R25
        var harness = Harness(
            dated(event("e", at: 10, "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESUME-OFFSET=0")), assets: Self.assets)
        let nested =
            "#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n"
            + event("inner", at: 2, "DURATION=3,X-ASSET-URI=\"b.m3u8\"")
            + "\n#EXTINF:5,\nx.ts\n#EXTINF:5,\ny.ts\n#EXT-X-ENDLIST\n"
        harness.playlists[Harness.base + "a.m3u8"] = nested
        harness.play(until: 30)
        #expect(harness.lines([.interstitialStarted]) == ["10.0 interstitialStarted @10.0 id=e"])
        #expect(harness.machine.scheduledEvents.map(\.identifier) == ["e"])
    }

    @Test("R26: a VOD start inside an event plays it from there; an earlier event is not played")
    func startInside() {
        // profile R26
        var harness = Harness(
            dated(
                event("early", at: 5, "DURATION=5,X-ASSET-URI=\"b.m3u8\""),
                event("e", at: 20, "DURATION=10,X-ASSET-LIST=\"pair.json\"")),
            assets: Self.assets, lists: ["pair.json": Self.pair], configure: { $0.startTime = s(25) })
        harness.play(until: 10)
        #expect(
            harness.lines([.interstitialStarted, .primaryResumed]) == [
                "0.0 interstitialStarted @25.0 id=e", "5.0 primaryResumed @30.0",
            ])
        #expect(harness.requests.contains { $0.url.hasSuffix("_HLS_start_offset=5.000") })
    }
}
