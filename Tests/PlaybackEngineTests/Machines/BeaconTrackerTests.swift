import HLSInterstitials
import HLSPlaylist
import Testing

@testable import PlaybackEngine

/// The beacon tracker on its own: which beacons of an asset are due as it plays, once each.
@Suite("Beacon tracker")
struct BeaconTrackerTests {
    /// Starts asset 0 of event `e` with slot signaling for `duration` seconds, read as the machine
    /// reads it, at `position`.
    static func start(
        _ tracker: inout BeaconTracker, duration: Double, at position: MediaTime = .zero, playing: Double? = nil
    ) -> [BeaconTracker.Firing] {
        var machine = PlaybackStateMachine(url: "https://x/main.m3u8", configuration: .init(primaryID: "p"))
        let text = Signaling.slot("ad", duration: duration)
        guard let value = try? JSONValue.parse(Array(text.utf8), code: .json) else { return [] }
        let slot = machine.signaling(value, path: "X", eventID: "e", warns: false)?.slots.first
        return tracker.assetStarted(
            eventID: "e", assetIndex: 0, slot: slot, pod: [], at: position, playing: s(playing ?? duration))
    }

    @Test("the first frame fires impression and start; quartiles fire as playback passes them, once")
    func quartiles() {
        var tracker = BeaconTracker()
        #expect(Self.start(&tracker, duration: 8).map(\.type).sorted() == ["impression", "start"])
        #expect(tracker.nextDistance(eventID: "e", assetIndex: 0, from: .zero) == s(2))
        #expect(tracker.advanced(eventID: "e", assetIndex: 0, to: s(4)).map(\.type) == ["firstQuartile", "midpoint"])
        tracker.moved(to: s(1))
        #expect(tracker.advanced(eventID: "e", assetIndex: 0, to: s(4)).isEmpty, "a seek back fires nothing again")
        #expect(tracker.advanced(eventID: "e", assetIndex: 0, to: s(8)).map(\.type) == ["thirdQuartile", "complete"])
        #expect(tracker.nextDistance(eventID: "e", assetIndex: 0, from: s(8)) == nil)
    }

    @Test("a skip fires skip and nothing more; another cut fires nothing")
    func cuts() {
        var tracker = BeaconTracker()
        _ = Self.start(&tracker, duration: 8)
        let skip = tracker.assetCut(skipped: true, at: s(3))
        #expect(skip.map(\.type) == ["skip"] && skip.first?.adPlayhead == s(3))
        #expect(tracker.advanced(eventID: "e", assetIndex: 0, to: s(8)).isEmpty)
        var other = BeaconTracker()
        _ = Self.start(&other, duration: 8)
        #expect(other.assetCut(skipped: false, at: s(3)).isEmpty)
    }

    @Test("an asset played again does not fire again until its event is forgotten (a new decision)")
    func forget() {
        var tracker = BeaconTracker()
        _ = Self.start(&tracker, duration: 8)
        _ = tracker.eventEnded("e")
        #expect(Self.start(&tracker, duration: 8).isEmpty)
        tracker.forget(eventID: "e")
        #expect(Self.start(&tracker, duration: 8).map(\.type).sorted() == ["impression", "start"])
    }
}
