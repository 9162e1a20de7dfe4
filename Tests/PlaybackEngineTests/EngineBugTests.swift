import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// Rules the engine once broke (found by differential testing against the peers), each
/// reproduced directly on the machine: file URLs, integrated seeks, live breaks, refusals.
@Suite("Engine: file URLs, integrated seeks, live breaks and refusals")
struct EngineBugTests {
    @Test("R19: a local file is loaded as given, without _HLS_primary_id; an http(s) URL is tagged")
    func fileIsNotTagged() {
        // profile R19
        for path in ["./local.m3u8", "/tmp/local.m3u8", "file:///tmp/local.m3u8"] {
            var machine = PlaybackStateMachine(url: path, configuration: .init(primaryID: "p"))
            let loads = machine.start().actions.compactMap { action -> String? in
                if case .load(let request) = action { return request.url }
                return nil
            }
            #expect(loads == [path])
        }
        var machine = PlaybackStateMachine(url: "https://example.com/main.m3u8", configuration: .init(primaryID: "p"))
        let loads = machine.start().actions.compactMap { action -> String? in
            if case .load(let request) = action { return request.url }
            return nil
        }
        #expect(loads == ["https://example.com/main.m3u8?_HLS_primary_id=p"])
    }

    @Test("R11: a seek on the integrated timeline into a RANGE interstitial starts it at that offset")
    func integratedSeekIntoRange() {
        // profile R11
        let json =
            #"{"ASSETS":[{"URI":"a0.m3u8","DURATION":10},{"URI":"a1.m3u8","DURATION":10},"#
            + #"{"URI":"a2.m3u8","DURATION":10}]}"#
        var harness = Harness(
            vod(
                6, "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z",
                event(
                    "ad", at: 20,
                    "DURATION=30,X-ASSET-LIST=\"ads.json\",X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\"")),
            assets: ["a0.m3u8": 10, "a1.m3u8": 10, "a2.m3u8": 10], lists: ["ads.json": json],
            configure: { $0.lookahead = .zero })
        harness.play(until: 1)
        // Integrated 35 is 15 s into the ad (primary 0–20 comes first).
        let outcome = harness.send(.seekIntegrated(s(35)))
        #expect(outcome.refusal == nil)
        harness.run(until: 20)
        let list = harness.requests.first { $0.key == .assetList("ad") }
        #expect(list?.url.contains("_HLS_start_offset=15.000") == true)
        #expect(harness.events(.interstitialStarted).first?["startOffset"] == .time(s(15)))
        // The first asset is wholly before the offset: it is skipped; the second starts 5 s in.
        #expect(
            harness.lines([.assetStarted], fields: ["id", "index"]) == [
                "1.0 assetStarted @20.0 id=ad index=1", "6.0 assetStarted @20.0 id=ad index=2",
            ])
        #expect(
            harness.lines([.interstitialEnded], fields: ["id", "playedDuration"]) == [
                "16.0 interstitialEnded @20.0 id=ad playedDuration=15.000"
            ])
    }

    @Test("R12: a live break added while another plays, starting where primary resumes, plays next")
    func breakAddedAtResumption() {
        // profile R12
        let first = event("a", at: 30, "DURATION=10,X-ASSET-URI=\"a.m3u8\"")
        var harness = Harness(
            live(6, first), assets: ["a.m3u8": 10, "b.m3u8": 10], configure: { $0.startTime = .zero })
        harness.play(until: 35)
        #expect(harness.machine.mode == .interstitial)
        // The break-now: a reload adds "b" where primary resumes after "a".
        harness.playlists[Harness.base + "main.m3u8"] = live(
            7, first, event("b", at: 40, "DURATION=10,X-ASSET-URI=\"b.m3u8\""))
        harness.run(until: 60)
        #expect(
            harness.lines([.interstitialStarted, .interstitialEnded, .primaryResumed]) == [
                "0.0 primaryResumed @0.0",
                "30.0 interstitialStarted @30.0 id=a",
                "40.0 interstitialEnded @30.0 id=a",
                "40.0 primaryResumed @40.0",
                "40.0 interstitialStarted @40.0 id=b",
                "50.0 interstitialEnded @40.0 id=b",
                "50.0 primaryResumed @50.0",
            ])
    }

    @Test("R13: a refused command's outcome carries the reason as a value")
    func refusalIsTyped() {
        // profile R13
        var harness = Harness(
            vod(
                6, "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z",
                event("ad", at: 10, "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESTRICT=\"SKIP\"")),
            assets: ["a.m3u8": 10])
        harness.play(until: 12)
        #expect(harness.send(.seek(s(50))).refusal == .seek(.primary(s(50)), .skipRestricted(event: "ad")))
        #expect(harness.send(.setRate(2)).refusal == .rate(2, .skipRestricted(event: "ad")))
        #expect(harness.send(.skipCurrentEvent).refusal == .skip(.noSkipControl(event: "ad")))
        #expect(harness.send(.seek(s(5))).refusal == nil)
    }
}
