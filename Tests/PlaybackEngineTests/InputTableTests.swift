import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination
import Testing

@testable import PlaybackEngine

/// Every input in every state, as a table: each is taken (its effect shows), refused (a
/// ``PlaybackStateMachine/Refusal``) or ignored with a trace warning, and never silently applied.
@Suite("Engine: every input in every state")
struct InputTableTests {
    typealias Machine = PlaybackStateMachine

    /// Where playback is when the input arrives.
    enum Situation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case loading, primary, interstitial, ended
        /// Ended because the primary could not be loaded.
        case failed
        /// Handed off to another player while primary played.
        case handedOff

        var testDescription: String { rawValue }

        /// The mode the machine is in.
        var mode: Machine.Mode {
            switch self {
            case .loading: .loading
            case .primary: .primary
            case .interstitial: .interstitial
            case .ended, .failed, .handedOff: .ended
            }
        }

        /// A harness in this situation: a 60 s VOD primary with a 6 s interstitial at 10 s.
        func harness() -> Harness {
            var harness = Harness(
                dated(event("e", at: 10, "X-ASSET-URI=\"a6.m3u8\",X-RESUME-OFFSET=0")), assets: ["a6.m3u8": 6])
            switch self {
            case .loading: break
            case .primary: harness.play(until: 5)
            case .interstitial: harness.play(until: 12)
            case .ended: harness.play(until: 90)
            case .failed:
                harness.failing = [Harness.base + "main.m3u8"]
                harness.deliver()
            case .handedOff:
                harness.play(until: 5)
                harness.record(harness.machine.handle(.handedOff(to: "tv"), at: harness.now).actions)
            }
            harness.trace = []
            return harness
        }
    }

    /// What a state does with an input.
    enum Verdict: Sendable {
        /// Applied: its effect shows.
        case taken
        /// Refused by the command's rule: the outcome says why.
        case refused
        /// Not applied: a trace warning says the state cannot take it.
        case warned
    }

    /// One input of each kind (commands: one of each that depends on the state).
    enum Probe: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case play, pause, rate, seek, seekInInterstitial, skip, cancel, setEvents
        case primaryLoaded, assetListLoaded, assetLoaded, segmentLoaded, throughputMeasured, variantLoaded
        case scheduleLoaded, loadFailed, loadCancelled, setCoordinated, coordinate, restore, handedOff

        var testDescription: String { rawValue }

        /// The input, for `harness`.
        func input(_ harness: Harness) -> Machine.Input {
            switch self {
            case .play: .command(.play)
            case .pause: .command(.pause)
            case .rate: .command(.setRate(2))
            case .seek: .command(.seek(s(5)))
            case .seekInInterstitial: .command(.seekInInterstitial(s(1)))
            case .skip: .command(.skipCurrentEvent)
            case .cancel: .command(.cancelCurrentEvent(resumptionOffset: nil))
            case .setEvents: .command(.setEvents(nil))
            case .primaryLoaded: harness.primaryInput(Harness.base + "main.m3u8", key: .primary)
            case .assetListLoaded: .assetListLoaded("x", AssetList(assets: []))
            case .assetLoaded:
                .assetLoaded(
                    "x", 0,
                    AssetMedia(playlist: harness.mediaPlaylist(at: Harness.base + "a6.m3u8")!, url: "a6.m3u8"))
            case .segmentLoaded: .segmentLoaded("x.ts")
            case .throughputMeasured: .throughputMeasured(bytes: 1_000_000, duration: .seconds(1))
            case .variantLoaded:
                .variantLoaded(
                    1,
                    PrimaryPresentation(
                        media: harness.mediaPlaylist(at: Harness.base + "main.m3u8")!, mediaURL: "v1.m3u8"))
            case .scheduleLoaded:
                .scheduleLoaded(
                    DateRangeSchedule.Identity(identifier: "s", uri: "s.json"),
                    .failure(DateRangeScheduleError(code: .load, "gone")))
            case .loadFailed: .loadFailed(.segment("x.ts"), "gone")
            case .loadCancelled: .loadCancelled(.primary)
            case .setCoordinated: .setCoordinated(true)
            case .coordinate: .coordinate(.primary(s(5), after: nil), playing: true, rate: 1, anchor: nil)
            case .restore: .restore(harness.machine.session(url: Harness.base + "main.m3u8"))
            case .handedOff: .handedOff(to: "tv")
            }
        }

        /// Whether the input's effect shows in the machine or its outcome, once taken: an action for
        /// most; the bookkeeping inputs show in the machine.
        func showsEffect(_ machine: Machine, _ outcome: Machine.Outcome) -> Bool {
            switch self {
            case .primaryLoaded: return machine.timeline != nil
            case .assetLoaded:
                if case .loaded? = machine.loads.assets["x"]?[0] { return true }
                return false
            case .segmentLoaded: return machine.loads.loadedSegments.contains("x.ts")
            case .throughputMeasured: return machine.throughput.bitsPerSecond != nil
            case .loadCancelled: return !machine.loads.inFlight.contains(.primary)
            case .setCoordinated: return machine.coordination != .off
            case .coordinate, .restore:
                // Before the primary loads, the placement waits in the state.
                if case .loading(let placement) = machine.state { return placement != nil }
                return !outcome.actions.isEmpty
            default: return !outcome.actions.isEmpty
            }
        }
    }

    /// The table: what each state does with each input. Columns: loading, primary,
    /// interstitial, ended, failed, handed off.
    static let table: [Probe: [Verdict]] = [
        .play: [.taken, .taken, .taken, .taken, .taken, .warned],
        .pause: [.taken, .taken, .taken, .taken, .taken, .warned],
        .rate: [.taken, .taken, .taken, .taken, .taken, .warned],
        // A seek needs the primary; after the end it starts playback again, after a hand-off not.
        .seek: [.refused, .taken, .taken, .taken, .refused, .warned],
        .seekInInterstitial: [.refused, .refused, .taken, .refused, .refused, .warned],
        .skip: [.refused, .refused, .taken, .refused, .refused, .warned],
        .cancel: [.warned, .warned, .taken, .warned, .warned, .warned],
        .setEvents: [.taken, .taken, .taken, .taken, .taken, .warned],
        // Before the primary loads only the primary loads; once it failed, or after a hand-off,
        // no result is taken.
        .primaryLoaded: [.taken, .taken, .taken, .taken, .warned, .warned],
        .assetListLoaded: [.warned, .taken, .taken, .taken, .warned, .warned],
        .assetLoaded: [.warned, .taken, .taken, .taken, .warned, .warned],
        .segmentLoaded: [.warned, .taken, .taken, .taken, .warned, .warned],
        .throughputMeasured: [.taken, .taken, .taken, .taken, .taken, .taken],
        // The probe's variant is one this primary (a media playlist) does not offer.
        .variantLoaded: [.warned, .warned, .warned, .warned, .warned, .warned],
        .scheduleLoaded: [.warned, .taken, .taken, .taken, .warned, .warned],
        .loadFailed: [.warned, .taken, .taken, .taken, .warned, .warned],
        .loadCancelled: [.taken, .taken, .taken, .taken, .taken, .taken],
        .setCoordinated: [.taken, .taken, .taken, .taken, .taken, .taken],
        .coordinate: [.taken, .taken, .taken, .taken, .warned, .warned],
        // A handed-off session is continued only before the primary loads.
        .restore: [.taken, .warned, .warned, .warned, .warned, .warned],
        .handedOff: [.taken, .taken, .taken, .taken, .taken, .taken],
    ]

    /// The trace warnings' messages among `actions`.
    static func warnings(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { action in
            guard case .emit(let event) = action, event.kind == .warning, case .string(let message)? = event["message"]
            else { return nil }
            return message
        }
    }

    @Test("the table has a verdict for every probe in every situation")
    func complete() {
        #expect(Set(Self.table.keys) == Set(Probe.allCases))
        #expect(Self.table.values.allSatisfy { $0.count == Situation.allCases.count })
    }

    @Test(
        "an input in a state: taken (its effect shows), refused, or ignored with a warning",
        arguments: Situation.allCases, Probe.allCases)
    func input(in situation: Situation, probe: Probe) throws {
        var harness = situation.harness()
        try #require(harness.machine.mode == situation.mode)
        let verdict = try #require(Self.table[probe]?[Situation.allCases.firstIndex(of: situation)!])
        let outcome = harness.machine.handle(probe.input(harness), at: harness.now)
        let warnings = Self.warnings(outcome.actions)
        let ignored = warnings.filter { $0.contains("cannot be taken in mode \(situation.mode)") }
        let refusedChanges = warnings.filter { $0.contains("the change was refused") }
        #expect(refusedChanges.isEmpty, "no state change is refused: \(refusedChanges)")
        switch verdict {
        case .taken:
            #expect(outcome.refusal == nil)
            #expect(ignored.isEmpty, "taken, not ignored: \(ignored)")
            let shows = probe.showsEffect(harness.machine, outcome)
            #expect(shows, "its effect shows")
        case .refused:
            #expect(outcome.refusal != nil)
            #expect(ignored.isEmpty)
            #expect(harness.machine.mode == situation.mode, "a refused command moves nothing")
        case .warned:
            #expect(outcome.refusal == nil)
            #expect(ignored.count == 1, "one warning says the state cannot take it: \(warnings)")
            #expect(harness.machine.mode == situation.mode, "an ignored input moves nothing")
        }
    }
}
