import HLSPlaylist
import PlaybackCoordination
import PlaybackEngine
import Testing

/// The interstitial item template on the machine: client rebinding, lookahead and limits.
@Suite("Interstitial item template")
struct ItemTemplateTests {
    static let pair = #"{"ASSETS":[{"URI":"a4.m3u8","DURATION":4},{"URI":"a6.m3u8","DURATION":6}]}"#
    static let single = #"{"ASSETS":[{"URI":"a6.m3u8","DURATION":6}]}"#
    static let assets: [String: Double] = ["a4.m3u8": 4, "a6.m3u8": 6]

    /// A VOD primary with an event at 10 s from `list.json`, resuming at its start.
    static func harness(rebinds: Bool, restrictions: String = "") -> Harness {
        var harness = Harness(
            dated(event("e", at: 10, "X-ASSET-LIST=\"list.json\",X-RESUME-OFFSET=0\(restrictions)")),
            assets: Self.assets, lists: ["list.json": Self.pair])
        harness.machine.use(harness.machine.template.with(\.rebindsAssetLists, rebinds))
        return harness
    }

    static func listRequests(_ harness: Harness) -> Int {
        harness.requests.filter { $0.key == .assetList("e") }.count
    }

    @Test("rebinding is off by default: playing an event again after a seek back plays the list it had")
    func offByDefault() {
        var harness = Self.harness(rebinds: false)
        #expect(harness.machine.template.rebindsAssetLists == false)
        harness.play(until: 25)
        harness.assetLists[Harness.base + "list.json"] = Self.single
        harness.send(.seek(s(5)))
        harness.run(until: 50)
        #expect(Self.listRequests(harness) == 1)
        #expect(harness.events(.interstitialStarted).count == 2)
        #expect(harness.events(.assetListRebound).isEmpty)
        #expect(
            harness.lines([.assetStarted], fields: ["uri"]).map { $0.hasSuffix("a4.m3u8") }.filter { $0 }.count == 2)
    }

    @Test("with rebinding, a seek back before a played event requests its asset list again when it plays again")
    func seekBack() {
        var harness = Self.harness(rebinds: true)
        harness.play(until: 25)
        #expect(Self.listRequests(harness) == 1)
        harness.assetLists[Harness.base + "list.json"] = Self.single
        harness.send(.seek(s(5)))
        harness.run(until: 50)
        #expect(Self.listRequests(harness) == 2)
        #expect(harness.lines([.assetListRebound]) == ["30.0 assetListRebound @10.0 id=e"])
        // The second decision has one asset: the event plays 6 s and primary resumes at 10.
        #expect(
            harness.lines([.assetStarted], fields: ["uri"]) == [
                "10.0 assetStarted @10.0 uri=a4.m3u8", "14.0 assetStarted @10.0 uri=a6.m3u8",
                "30.0 assetStarted @10.0 uri=a6.m3u8",
            ])
        #expect(harness.lines([.primaryResumed]).last == "36.0 primaryResumed @10.0")
    }

    @Test("with rebinding, a JUMP event that plays again as a seek crosses it requests its list again")
    func jumpReplay() {
        var harness = Self.harness(rebinds: true, restrictions: ",X-RESTRICT=\"JUMP\"")
        harness.play(until: 25)
        harness.send(.seek(s(0)))
        harness.send(.seek(s(40)))
        harness.run(until: 60)
        #expect(Self.listRequests(harness) == 2)
        #expect(
            harness.lines([.assetListRebound, .interstitialStarted, .seekCompleted]) == [
                "10.0 interstitialStarted @10.0 id=e", "25.0 seekCompleted @0.0",
                "25.0 assetListRebound @10.0 id=e", "25.0 interstitialStarted @10.0 id=e",
                "35.0 seekCompleted @40.0",
            ])
    }

    @Test("the template's lookahead decides when an asset list is requested")
    func lookahead() {
        var harness = Self.harness(rebinds: false)
        harness.machine.use(harness.machine.template.with(\.lookahead, s(3)))
        harness.play(until: 25)
        #expect(harness.lines([.assetListRequested]) == ["7.0 assetListRequested @7.0 id=e"])
    }

    @Test("the template's limits: at most one asset, and a playout cap smaller than the event's own")
    func limits() {
        var harness = Self.harness(rebinds: false)
        harness.machine.use(harness.machine.template.with(\.maximumAssetCount, 1))
        harness.play(until: 25)
        #expect(harness.lines([.assetStarted], fields: ["index"]) == ["10.0 assetStarted @10.0 index=0"])
        var capped = Self.harness(rebinds: false)
        capped.machine.use(capped.machine.template.with(\.maximumPlayoutDuration, s(5)))
        capped.play(until: 25)
        #expect(
            capped.lines([.interstitialEnded], fields: ["playedDuration", "reason"]) == [
                "15.0 interstitialEnded @10.0 playedDuration=5.000 reason=limit"
            ])
    }

    @Test("the template's preferred tracks, when set, are what assets match instead of the primary's")
    func preferredTracks() {
        var harness = Self.harness(rebinds: false)
        #expect(harness.machine.assetTracks == harness.machine.tracks)
        let french = TrackSelection(audio: MediaOption(language: "fr"))
        harness.machine.use(harness.machine.template.with(\.preferredTracks, french))
        #expect(harness.machine.assetTracks == french)
    }
}
