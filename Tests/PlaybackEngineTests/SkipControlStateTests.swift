import HLSInterstitials
import HLSPlaylist
import PlaybackEngine
import Testing

/// The skip control API of AVFoundation 26 on the engine, on a manual clock: the current event's
/// skippable state and label, and the skipped, unscheduled and finished notifications.
@Suite("Skip control state and notifications on the engine")
struct SkipControlStateTests {
    static let assets: [String: Double] = ["a.m3u8": 10, "a4.m3u8": 4, "a6.m3u8": 6]

    /// A 10 s interstitial at 10 s with a skip window [3, 7) and label key `skip-ad`.
    static func windowed(_ extra: String = "") -> String {
        dated(
            event(
                "e", at: 10,
                "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=3,X-SKIP-CONTROL-DURATION=4,X-SKIP-CONTROL-LABEL-ID=\"skip-ad\""
                    + extra))
    }

    /// The skippable state changes as `state label` (label `-` when none).
    static func changes(_ harness: Harness) -> [String] {
        harness.notifications.compactMap {
            guard case .currentEventSkippableStateDidChange(let event, let state, let label) = $0 else { return nil }
            return "\(event.identifier) \(state.rawValue) \(label ?? "-")"
        }
    }

    /// The finished notifications as `id playoutTime entire`.
    static func finishes(_ harness: Harness) -> [String] {
        harness.notifications.compactMap {
            guard case .eventDidFinish(let event, let time, let entire) = $0 else { return nil }
            return "\(event.identifier) \(time.formatted(fractionDigits: 1)) \(entire)"
        }
    }

    @Test("the window from the tag: not yet eligible, eligible, no longer eligible, then not skippable")
    func tagWindow() {
        // profile R16
        var harness = Harness(Self.windowed(), assets: Self.assets)
        harness.play(until: 9)
        #expect(harness.machine.currentSkippableState == .notSkippable)
        #expect(harness.machine.currentSkipControlLabel == nil)
        var seen: [(Double, SkippableEventState, String?)] = []
        for time in [11.0, 13.5, 17.5, 21] {
            harness.run(until: time)
            seen.append((time, harness.machine.currentSkippableState, harness.machine.currentSkipControlLabel))
        }
        #expect(seen.map(\.1) == [.notYetEligible, .eligible, .noLongerEligible, .notSkippable])
        // No table: every skippable state shows the default label.
        #expect(seen.map(\.2) == ["Skip", "Skip", "Skip", nil])
        #expect(
            harness.lines([.skippableStateChanged], fields: ["id", "state", "label"]) == [
                "10.0 skippableStateChanged @10.0 id=e state=notYetEligible label=Skip",
                "13.0 skippableStateChanged @10.0 id=e state=eligible label=Skip",
                "17.0 skippableStateChanged @10.0 id=e state=noLongerEligible label=Skip",
                "20.0 skippableStateChanged @10.0 id=e state=notSkippable",
            ])
        #expect(
            Self.changes(harness) == [
                "e notYetEligible Skip", "e eligible Skip", "e noLongerEligible Skip", "e notSkippable -",
            ])
    }

    @Test("the label comes from the application's table by X-SKIP-CONTROL-LABEL-ID, else the default label")
    func labels() {
        var harness = Harness(Self.windowed(), assets: Self.assets)
        harness.machine.use(
            SkipControlLabels(table: LocalizedStringsTable(["skip-ad": "Passer la pub"]), defaultLabel: "Skip"))
        harness.play(until: 14)
        #expect(harness.machine.currentSkipControlLabel == "Passer la pub")
        #expect(Self.changes(harness) == ["e notYetEligible Passer la pub", "e eligible Passer la pub"])

        var other = Harness(Self.windowed(), assets: Self.assets)
        other.machine.use(
            SkipControlLabels(table: LocalizedStringsTable(["another-key": "Other"]), defaultLabel: "Ignorer"))
        other.play(until: 14)
        #expect(other.machine.currentSkipControlLabel == "Ignorer")
    }

    @Test("the asset list's SKIP-CONTROL overrides the tag's window and label, field by field")
    func assetListOverride() {
        // profile R16
        let list =
            #"{"ASSETS":[{"URI":"a4.m3u8","DURATION":4},{"URI":"a6.m3u8","DURATION":6}],"SKIP-CONTROL":{"OFFSET":1,"LABEL-ID":"list-label"}}"#
        var harness = Harness(
            dated(
                event(
                    "e", at: 10,
                    "DURATION=10,X-ASSET-LIST=\"list.json\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=3,X-SKIP-CONTROL-DURATION=4,X-SKIP-CONTROL-LABEL-ID=\"tag-label\""
                )),
            assets: Self.assets, lists: ["list.json": list])
        harness.machine.use(
            SkipControlLabels(table: LocalizedStringsTable(["tag-label": "Tag", "list-label": "List"])))
        harness.play(until: 30)
        // OFFSET 1 from the list, DURATION 4 from the tag: the window is [1, 5), across both assets.
        #expect(
            harness.lines([.skippableStateChanged], fields: ["state", "label"]) == [
                "10.0 skippableStateChanged @10.0 state=notYetEligible label=List",
                "11.0 skippableStateChanged @10.0 state=eligible label=List",
                "15.0 skippableStateChanged @10.0 state=noLongerEligible label=List",
                "20.0 skippableStateChanged @10.0 state=notSkippable",
            ])
    }

    @Test("an event without skip control is never skippable and reports no change")
    func noSkipControl() {
        var harness = Harness(
            dated(event("e", at: 10, "DURATION=10,X-ASSET-URI=\"a.m3u8\",X-RESUME-OFFSET=0")), assets: Self.assets)
        harness.play(until: 15)
        #expect(harness.machine.mode == .interstitial)
        #expect(harness.machine.currentSkippableState == .notSkippable)
        #expect(harness.machine.currentSkipControlLabel == nil)
        harness.run(until: 30)
        #expect(Self.changes(harness).isEmpty)
    }

    @Test("seeks inside the interstitial move the state both ways; a skip then ends it, not played entirely")
    func seeksInside() {
        var harness = Harness(Self.windowed(), assets: Self.assets)
        harness.play(until: 12)
        #expect(harness.machine.currentSkippableState == .notYetEligible)
        #expect(harness.send(.seekInInterstitial(s(8))).refusal == nil)
        #expect(harness.machine.currentSkippableState == .noLongerEligible)
        #expect(harness.send(.seekInInterstitial(s(4))).refusal == nil)
        #expect(harness.machine.currentSkippableState == .eligible)
        #expect(harness.send(.skipCurrentEvent).refusal == nil)
        #expect(harness.machine.currentSkippableState == .notSkippable)
        #expect(
            Self.changes(harness) == [
                "e notYetEligible Skip", "e noLongerEligible Skip", "e eligible Skip", "e notSkippable -",
            ])
        let skipped = harness.notifications.compactMap {
            if case .currentEventSkipped(let event) = $0 { event.identifier } else { nil }
        }
        #expect(skipped == ["e"])
        #expect(Self.finishes(harness) == ["e 4.0 false"])
    }

    @Test("a group's second member without skip control starts not skippable after a skippable first")
    func groupMembers() {
        var harness = Harness(
            dated(
                event("a", at: 10, "DURATION=4,X-ASSET-URI=\"a4.m3u8\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=0"),
                event("b", at: 10, "DURATION=6,X-ASSET-URI=\"a6.m3u8\",X-RESUME-OFFSET=0")),
            assets: Self.assets)
        harness.play(until: 12)
        #expect(harness.machine.currentEvent?.identifier == "a")
        #expect(harness.machine.currentSkippableState == .eligible)
        harness.run(until: 16)
        #expect(harness.machine.currentEvent?.identifier == "b")
        #expect(harness.machine.currentSkippableState == .notSkippable)
        #expect(Self.changes(harness) == ["a eligible Skip", "a notSkippable -"])
    }

    @Test("finished: played entirely only when it played from its start to its end")
    func finishedPayloads() {
        // Played through.
        var whole = Harness(Self.windowed(), assets: Self.assets)
        whole.play(until: 30)
        #expect(Self.finishes(whole) == ["e 10.0 true"])
        #expect(
            whole.lines([.interstitialEnded], fields: ["playedDuration", "playedEntirely"]) == [
                "20.0 interstitialEnded @10.0 playedDuration=10.000 playedEntirely=true"
            ])

        // Skipped inside the window.
        var skipped = Harness(Self.windowed(), assets: Self.assets)
        skipped.play(until: 14)
        skipped.send(.skipCurrentEvent)
        #expect(Self.finishes(skipped) == ["e 4.0 false"])

        // Cut by its playout limit.
        var limited = Harness(Self.windowed(",X-PLAYOUT-LIMIT=6"), assets: Self.assets)
        limited.play(until: 30)
        #expect(Self.finishes(limited) == ["e 6.0 false"])
        #expect(
            limited.lines([.interstitialEnded], fields: ["reason", "playedEntirely"]) == [
                "16.0 interstitialEnded @10.0 reason=limit playedEntirely=false"
            ])

        // Left by a seek in primary.
        var seekOut = Harness(Self.windowed(), assets: Self.assets)
        seekOut.play(until: 12)
        seekOut.send(.seek(s(40)))
        #expect(Self.finishes(seekOut) == ["e 2.0 false"])

        // Cancelled by the controller.
        var cancelled = Harness(Self.windowed(), assets: Self.assets)
        cancelled.play(until: 15)
        cancelled.send(.cancelCurrentEvent(resumptionOffset: nil))
        #expect(Self.finishes(cancelled) == ["e 5.0 false"])

        // Moved past part of it, then played to its end.
        var jumped = Harness(Self.windowed(), assets: Self.assets)
        jumped.play(until: 12)
        jumped.send(.seekInInterstitial(s(8)))
        jumped.run(until: 30)
        #expect(Self.finishes(jumped) == ["e 10.0 false"])
    }

    @Test("a failed asset of a list is passed over: the event did not play entirely")
    func failedAsset() {
        var harness = Harness(
            dated(event("e", at: 10, "X-ASSET-LIST=\"list.json\",X-RESUME-OFFSET=0")), assets: Self.assets,
            lists: [
                "list.json": #"{"ASSETS":[{"URI":"missing.m3u8","DURATION":4},{"URI":"a6.m3u8","DURATION":6}]}"#
            ])
        harness.play(until: 30)
        #expect(Self.finishes(harness) == ["e 6.0 false"])
    }

    @Test("an unscheduled event whose content failed carries the error in the trace and the notification")
    func unscheduledWithError() {
        let later = event("later", at: 50, "DURATION=10,X-ASSET-URI=\"a.m3u8\"")
        var harness = Harness(live(8, later), configure: { $0.startTime = .zero })
        harness.play(until: 41)
        harness.playlists[Harness.base + "main.m3u8"] = live(8)
        harness.run(until: 60)
        #expect(
            harness.lines([.eventUnscheduled], fields: ["id", "error"]).map { $0.drop { $0 != " " } } == [
                " eventUnscheduled @45.0 id=later error=no asset at \(Harness.base)a.m3u8"
            ])
        let unscheduled = harness.notifications.compactMap { notification -> String? in
            guard case .eventWasUnscheduled(let event, let error) = notification else { return nil }
            return "\(event.identifier) \(error ?? "no error")"
        }
        #expect(unscheduled == ["later no asset at \(Harness.base)a.m3u8"])
    }
}
