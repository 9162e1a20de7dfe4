import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// The machine's loop limits: a loop that reaches its limit stops with a trace warning instead of
/// stopping silently.
@Suite("Loop limits")
struct LoopLimitTests {
    static let primary = vod(6, event("pre", at: 0, "CUE=\"PRE\",DURATION=5,X-ASSET-URI=\"a.m3u8\""))

    /// The messages of the warnings among `actions`.
    static func warnings(_ actions: [PlaybackStateMachine.Action]) -> [String] {
        actions.compactMap { action in
            guard case .emit(let event) = action, event.kind == .warning, case .string(let message)? = event["message"]
            else { return nil }
            return message
        }
    }

    @Test("the transitions at one clock time stop at the limit with a warning")
    func transitions() {
        var harness = Harness(Self.primary, assets: ["a.m3u8": 5]) { $0.transitionLimit = 1 }
        let outcome = harness.send(.play)
        #expect(
            Self.warnings(outcome.actions) == [
                "playback stopped after 1 transitions at one clock time: the limit was reached"
            ])
    }

    @Test("the steps of time of one input stop at the limit with a warning; the clock reaches the input's time")
    func steps() {
        var harness = Harness(Self.primary, assets: ["a.m3u8": 5]) { $0.stepLimit = 1 }
        _ = harness.send(.play)
        #expect(harness.machine.mode == .interstitial)
        let outcome = harness.machine.advance(to: clock(30))
        #expect(
            Self.warnings(outcome.actions) == [
                "playback stopped after 1 steps of time in one input: the limit was reached"
            ])
        #expect(harness.machine.clock == clock(30))
    }

    @Test("within the limits nothing is warned")
    func quiet() {
        var harness = Harness(Self.primary, assets: ["a.m3u8": 5])
        harness.play(until: 30)
        #expect(harness.events(.warning).isEmpty)
    }
}
