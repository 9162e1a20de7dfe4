import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// The engine agreeing with the peers' test suites and with draft-22: start points, coinciding
/// events, the schema, preload hints, PRE lengths, joins, the POST's asset list, failures. Each test
/// failed before its fix.
@Suite("Engine: agreement with the peers and draft-22")
struct PeerAgreementEngineTests {
    static let assets: [String: Double] = ["p.m3u8": 15, "a4.m3u8": 4, "a6.m3u8": 6, "b.m3u8": 5, "t.m3u8": 10]
    static let pair = #"{"ASSETS":[{"URI":"a4.m3u8","DURATION":4},{"URI":"a6.m3u8","DURATION":6}]}"#

    /// The IDs of the events that started, in order.
    static func started(_ harness: Harness) -> [String] {
        harness.events(.interstitialStarted).compactMap { $0["id"]?.description }
    }

    @Test("R9, R26: after a PRE, a mid-roll that covers the start point plays from there")
    func preThenCoveringMidRoll() {
        var harness = Harness(
            dated(
                event("pre", at: 0, "CUE=\"PRE,ONCE\",DURATION=15,X-ASSET-URI=\"p.m3u8\""),
                event("mid", at: 24, "DURATION=10,X-ASSET-LIST=\"pair.json\",X-TIMELINE-OCCUPIES=\"RANGE\"")),
            assets: Self.assets, lists: ["pair.json": Self.pair], configure: { $0.startTime = s(30) })
        harness.play(until: 60)
        #expect(Self.started(harness) == ["pre", "mid"])
        let list = harness.requests.first { $0.key == .assetList("mid") }
        #expect(list?.url == Harness.base + "pair.json?_HLS_primary_id=p&_HLS_start_offset=6.000")
        #expect(harness.lines([.primaryResumed]) == ["19.0 primaryResumed @34.0"])
    }

    @Test("R5: coinciding events play in tag order, a PRE included")
    func preInTagOrder() {
        let attributes = "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESUME-OFFSET=0"
        var harness = Harness(
            dated(
                event("a", at: 0, attributes), event("b", at: 0, attributes),
                event("c", at: 0, "CUE=\"PRE\"," + attributes)),
            assets: Self.assets)
        harness.play(until: 30)
        #expect(Self.started(harness) == ["a", "b", "c"])
    }

    @Test("the engine never plays an event the schema forbids")
    func forbiddenEventsDoNotPlay() {
        var harness = Harness(
            dated(
                event("both", at: 10, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-ASSET-LIST=\"pair.json\""),
                event("none", at: 20, "DURATION=5"),
                event("prepost", at: 30, "CUE=\"PRE,POST\",DURATION=5,X-ASSET-URI=\"b.m3u8\"")),
            assets: Self.assets, lists: ["pair.json": Self.pair])
        harness.play(until: 70)
        #expect(Self.started(harness).isEmpty)
        #expect(harness.requests.allSatisfy { $0.key != .assetList("both") })
    }

    /// A `com.apple.hls.preload` date range over [10, 40) of the dated primary, as App. F writes it.
    static func preload(
        uri: String = "pair.json", target: String = "e", targetClass: String = "com.apple.hls.interstitial",
        extra: String = ""
    ) -> String {
        "#EXT-X-DATERANGE:ID=\"hint\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2025-01-01T00:00:10.000Z\",DURATION=30,X-URI=\"\(uri)\",X-TARGET-ID=\"\(target)\",X-TARGET-CLASS=\"\(targetClass)\"\(extra)"
    }

    static let target = event("e", at: 50, "DURATION=10,X-ASSET-LIST=\"pair.json\"")

    /// When the asset list of `e` was asked for, as `clock @primary`.
    static func requested(_ harness: Harness) -> [String] {
        harness.lines([.assetListRequested], fields: []).map {
            $0.replacingOccurrences(of: " assetListRequested", with: "")
        }
    }

    /// A live harness from the start of the window, with a preload source that draws half the range.
    static func liveHarness(_ tags: String...) -> Harness {
        Harness(
            playlist(6, tags: tags, end: false, dated: true), assets: Self.assets, lists: ["pair.json": Self.pair],
            configure: {
                $0.startTime = .zero
                $0.random = { $0 / 2 }
            })
    }

    @Test("R18: a conformant preload hint loads its target's asset list at a random point of its range")
    func preloadAtRandomPoint() {
        var harness = Self.liveHarness(Self.preload(), Self.target)
        harness.play(until: 45)
        // [10, 40) clamped to end at the normal request time (50 − 10 s look-ahead): the midpoint, 25.
        #expect(Self.requested(harness) == ["25.0 @25.0"])
        // Without the hint: the look-ahead, 40.
        var plain = Self.liveHarness(Self.target)
        plain.play(until: 45)
        #expect(Self.requested(plain) == ["40.0 @40.0"])
    }

    @Test("a hint whose X-URI or X-TARGET-CLASS does not match its target, or that is malformed, loads nothing")
    func preloadMismatch() {
        let hints = [
            Self.preload(uri: "other.json"),
            Self.preload(targetClass: "com.example.other"),
            Self.preload(extra: ",CUE=\"ONCE\""),
            // The old, wrong form: X-ASSET-LIST on the Preload tag instead of X-URI.
            "#EXT-X-DATERANGE:ID=\"hint\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2025-01-01T00:00:10.000Z\",DURATION=30,X-ASSET-LIST=\"pair.json\"",
        ]
        for hint in hints {
            var harness = Self.liveHarness(hint, Self.target)
            harness.play(until: 45)
            #expect(Self.requested(harness) == ["40.0 @40.0"], "\(hint)")
        }
    }

    @Test("hints are ignored on an ENDLIST playlist")
    func preloadIgnoredOnVOD() {
        var harness = Harness(
            dated(Self.preload(), Self.target), assets: Self.assets, lists: ["pair.json": Self.pair],
            configure: { $0.random = { $0 / 2 } })
        harness.play(until: 45)
        #expect(Self.requested(harness) == ["40.0 @40.0"])
    }

    @Test("what a removed hint preloaded is discarded and loaded again when due")
    func preloadRemoved() {
        var harness = Self.liveHarness(Self.preload(), Self.target)
        harness.play(until: 27)
        #expect(Self.requested(harness) == ["25.0 @25.0"])
        harness.playlists[Harness.base + "main.m3u8"] = playlist(6, tags: [Self.target], end: false, dated: true)
        harness.run(until: 45)
        #expect(Self.requested(harness) == ["25.0 @25.0", "40.0 @40.0"])
    }

    @Test("R3, R5: a PRE whose length is known only once played does not swallow a mid-roll it skips over")
    func preOfUnknownLength() {
        var harness = Harness(
            dated(
                event("pre", at: 0, "CUE=\"PRE\",X-ASSET-URI=\"t.m3u8\""),
                event("mid", at: 5, "DURATION=5,X-ASSET-URI=\"b.m3u8\",X-RESUME-OFFSET=0")),
            assets: Self.assets)
        // Play is asked for before anything loads, as a player does: the PRE starts before its
        // asset's playlist (and so its length) is known.
        harness.record(harness.machine.handle(.command(.play), at: .zero).actions)
        harness.run(until: 40)
        #expect(Self.started(harness) == ["pre", "mid"])
        #expect(harness.lines([.primaryResumed]) == ["15.0 primaryResumed @10.0"])
    }

    @Test("R11, R26: joining inside an event whose only duration is X-PLAYOUT-LIMIT plays it from there")
    func joinInsidePlayoutLimit() {
        var harness = Harness(
            live(6, event("e", at: 25, "X-ASSET-URI=\"t.m3u8\",X-PLAYOUT-LIMIT=10")), assets: Self.assets)
        harness.play(until: 20)
        // Joined at 30 (three target durations from the edge), 5 s into the event.
        #expect(harness.events(.interstitialStarted).first?["startOffset"] == .time(s(5)))
        #expect(harness.lines([.assetStarted], fields: ["index"]) == ["0.0 assetStarted @30.0 index=0"])
        #expect(harness.lines([.primaryResumed]) == ["5.0 primaryResumed @35.0"])
    }

    @Test("R18: the POST's asset list is requested the look-ahead before the end")
    func postLookahead() {
        var harness = Harness(
            dated(event("post", at: 0, "CUE=\"POST\",DURATION=10,X-ASSET-LIST=\"pair.json\"")),
            assets: Self.assets, lists: ["pair.json": Self.pair])
        harness.play(until: 80)
        #expect(Self.requested(harness) == ["50.0 @50.0"])
        #expect(Self.started(harness) == ["post"])
    }

    @Test("R7: a failed asset list of a live event joined part way resumes at the join point, not before it")
    func failedJoinKeepsLiveDelay() {
        var harness = Harness(
            live(6, event("e", at: 25, "DURATION=10,X-ASSET-LIST=\"gone.json\"")), assets: Self.assets)
        harness.failing = [Harness.base + "gone.json"]
        harness.play(until: 20)
        #expect(
            harness.lines([.interstitialEnded], fields: ["id", "reason", "resumeTime"]) == [
                "0.0 interstitialEnded @30.0 id=e reason=failed resumeTime=30.000"
            ])
        #expect(harness.lines([.primaryResumed]) == ["0.0 primaryResumed @30.0"])
    }

    @Test("R7, R10: in a live group joined part way, a later member that fails adds 0 (issue 46)")
    func failedLaterMemberOfJoinedGroup() {
        var harness = Harness(
            live(
                6, event("a", at: 25, "DURATION=10,X-ASSET-URI=\"t.m3u8\""),
                event("b", at: 25, "DURATION=10,X-ASSET-LIST=\"gone.json\"")),
            assets: Self.assets)
        harness.failing = [Harness.base + "gone.json"]
        harness.play(until: 20)
        // Joined at 30, 5 s into a: a plays its last 5 s, b fails, primary resumes at 25 + 10 + 0.
        #expect(Self.started(harness) == ["a", "b"])
        #expect(harness.lines([.primaryResumed]) == ["5.0 primaryResumed @35.0"])
    }
}
