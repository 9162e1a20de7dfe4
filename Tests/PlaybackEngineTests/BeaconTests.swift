import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// `X-AD-CREATIVE-SIGNALING` values for the tests: every URL is `https://ads.example/NAME/TYPE`.
enum Signaling {
    static let linear = [
        "impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "skip", "pause",
    ]

    /// The tracking entries of `name`, one per type.
    static func tracking(_ name: String, _ types: [String]) -> String {
        "[" + types.map { #"{"type":"\#($0)","urls":["https://ads.example/\#(name)/\#($0)"]}"# }.joined(separator: ",")
            + "]"
    }

    /// A slot object.
    static func slotObject(_ name: String, duration: Double, types: [String] = linear) -> String {
        #"{"type":"linear","start":0,"duration":\#(duration),"tracking":\#(tracking(name, types))}"#
    }

    /// Slot-level signaling, as an asset carries it.
    static func slot(_ name: String, duration: Double, types: [String] = linear) -> String {
        #"{"version":2,"type":"slot","payload":[\#(slotObject(name, duration: duration, types: types))]}"#
    }

    /// Pod-level signaling, as an asset list carries it.
    static func pod(_ name: String, slots: [String] = [], types: [String] = ["breakStart", "breakEnd"]) -> String {
        #"{"version":2,"type":"pod","payload":[{"start":0,"duration":0,"slots":[\#(slots.joined(separator: ","))],"tracking":\#(tracking(name, types))}]}"#
    }

    /// An asset list of `(uri, duration, slot signaling or nil)` with pod signaling.
    static func list(_ assets: [(String, Double, String?)], pod: String? = nil) -> String {
        let items = assets.map { asset in
            #"{"URI":"\#(asset.0)","DURATION":\#(asset.1)"#
                + (asset.2.map { #","X-AD-CREATIVE-SIGNALING":\#($0)"# } ?? "") + "}"
        }
        return #"{"ASSETS":[\#(items.joined(separator: ","))]"#
            + (pod.map { #","X-AD-CREATIVE-SIGNALING":\#($0)"# } ?? "")
            + "}"
    }
}

extension Harness {
    /// The beacons as `t type url-path adPlayhead`, in the order the machine fired them.
    var beaconLines: [String] {
        beacons.map { beacon in
            let path = beacon.url.replacingOccurrences(of: "https://ads.example/", with: "")
            let head = beacon.adPlayhead.map { " @" + $0.formatted(fractionDigits: 1) } ?? ""
            return "\(PlaybackEvent.seconds(of: beacon.time).formatted(fractionDigits: 1)) \(path)\(head)"
        }
    }
}

/// Ad tracking on the engine: which beacon is due when, on a manual clock.
@Suite("Ad tracking beacons on the engine")
struct BeaconTests {
    static let assets: [String: Double] = ["a8.m3u8": 8, "b4.m3u8": 4]

    /// A break at 10 s of the two ads: `a8` with its own signaling, `b4` with the pod's slot.
    static func harness(_ attributes: String = "X-RESUME-OFFSET=0") -> Harness {
        let list = Signaling.list(
            [("a8.m3u8", 8, Signaling.slot("a", duration: 8)), ("b4.m3u8", 4, nil)],
            pod: Signaling.pod(
                "pod",
                slots: [
                    Signaling.slotObject("unused", duration: 8),
                    Signaling.slotObject("b", duration: 4, types: ["impression", "start", "midpoint", "complete"]),
                ]))
        return Harness(
            dated(event("e", at: 10, "X-ASSET-LIST=\"ads.json\",\(attributes)")), assets: assets,
            lists: ["ads.json": list])
    }

    @Test("A full play fires impression, start, the quartiles and complete once each, at their times")
    func fullPlay() {
        var harness = Self.harness()
        harness.play(until: 80)
        #expect(
            harness.beaconLines == [
                "10.0 pod/breakStart",
                "10.0 a/impression @0.0", "10.0 a/start @0.0", "12.0 a/firstQuartile @2.0",
                "14.0 a/midpoint @4.0", "16.0 a/thirdQuartile @6.0", "18.0 a/complete @8.0",
                // The second asset has no signaling of its own: the pod's slot at its index.
                "18.0 b/impression @0.0", "18.0 b/start @0.0", "20.0 b/midpoint @2.0", "22.0 b/complete @4.0",
                "22.0 pod/breakEnd",
            ])
        // Each at the primary position where the break suspended it, for [MEDIAPLAYHEAD].
        #expect(harness.beacons.allSatisfy { $0.mediaPlayhead == s(10) && $0.eventID == "e" })
        #expect(harness.beacons.filter { $0.assetIndex == nil }.map(\.type) == ["breakStart", "breakEnd"])
        #expect(harness.events(.ended).first?.seconds == s(72))
    }

    @Test("A skip fires skip and nothing after it but the pod's end")
    func skip() {
        var harness = Self.harness()
        harness.play(until: 15)
        harness.send(.skipCurrentEvent)
        harness.run(until: 80)
        #expect(
            harness.beaconLines == [
                "10.0 pod/breakStart",
                "10.0 a/impression @0.0", "10.0 a/start @0.0", "12.0 a/firstQuartile @2.0",
                "14.0 a/midpoint @4.0", "15.0 a/skip @5.0", "15.0 pod/breakEnd",
            ])
    }

    @Test("Seeking back in the ad, and the break playing again, fire nothing twice")
    func noRefire() {
        var harness = Self.harness()
        harness.play(until: 15)
        #expect(harness.send(.seekInInterstitial(s(1))).refusal == nil)
        harness.run(until: 40)
        let once = [
            "10.0 pod/breakStart",
            "10.0 a/impression @0.0", "10.0 a/start @0.0", "12.0 a/firstQuartile @2.0",
            "14.0 a/midpoint @4.0", "20.0 a/thirdQuartile @6.0", "22.0 a/complete @8.0",
            "22.0 b/impression @0.0", "22.0 b/start @0.0", "24.0 b/midpoint @2.0", "26.0 b/complete @4.0",
            "26.0 pod/breakEnd",
        ]
        #expect(harness.beaconLines == once)
        // Back before the break: it plays again (it is not ONCE) and fires nothing new.
        harness.send(.seek(s(5)))
        harness.run(until: 70)
        #expect(harness.events(.interstitialStarted).count == 2)
        #expect(harness.beaconLines == once)
    }

    @Test("A rebound asset list is a new decision: the break playing again fires its beacons again")
    func rebindTracksAfresh() {
        var harness = Self.harness()
        harness.machine.use(harness.machine.template.with(\.rebindsAssetLists, true))
        harness.play(until: 40)
        let first = harness.beacons.count
        #expect(first == 12)
        harness.send(.seek(s(5)))
        harness.run(until: 70)
        #expect(harness.events(.assetListRebound).count == 1)
        #expect(harness.beacons.count == 2 * first)
        #expect(harness.beacons.suffix(first).map(\.type) == harness.beacons.prefix(first).map(\.type))
        #expect(harness.beacons.last.map { PlaybackEvent.seconds(of: $0.time) } == s(57))
    }

    @Test("A seek forward in the ad passes over the quartiles it skips; complete still fires at the end")
    func seekForward() {
        var harness = Self.harness()
        harness.play(until: 11)
        #expect(harness.send(.seekInInterstitial(s(7))).refusal == nil)
        harness.run(until: 13)
        #expect(
            harness.beaconLines.prefix(5) == [
                "10.0 pod/breakStart", "10.0 a/impression @0.0", "10.0 a/start @0.0", "12.0 a/complete @8.0",
                "12.0 b/impression @0.0",
            ])
    }

    @Test("X-PLAYOUT-LIMIT cuts the ad: quartiles and complete of the duration that plays")
    func playoutLimit() {
        var harness = Self.harness("X-RESUME-OFFSET=0,X-PLAYOUT-LIMIT=4")
        harness.play(until: 40)
        #expect(
            harness.beaconLines == [
                "10.0 pod/breakStart",
                "10.0 a/impression @0.0", "10.0 a/start @0.0", "11.0 a/firstQuartile @1.0",
                "12.0 a/midpoint @2.0", "13.0 a/thirdQuartile @3.0", "14.0 a/complete @4.0", "14.0 pod/breakEnd",
            ])
        #expect(
            harness.lines([.assetEnded], fields: ["index", "reason"]) == ["14.0 assetEnded @10.0 index=0 reason=limit"])
    }

    @Test("Signaling that cannot be read is a warning; the break plays as without it")
    func badSignaling() {
        let list = Signaling.list([("a8.m3u8", 8, #"{"version":2,"type":"banner","payload":[]}"#)])
        var harness = Harness(
            dated(event("e", at: 10, "X-ASSET-LIST=\"ads.json\",X-RESUME-OFFSET=0")), assets: Self.assets,
            lists: ["ads.json": list])
        harness.play(until: 80)
        #expect(harness.beacons.isEmpty)
        #expect(
            harness.events(.warning).contains {
                ($0["message"]?.description ?? "").contains("ASSETS[0].X-AD-CREATIVE-SIGNALING.type")
            })
        #expect(harness.events(.ended).first?.seconds == s(68))
    }
}
