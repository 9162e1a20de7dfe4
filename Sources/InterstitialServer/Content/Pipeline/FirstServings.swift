import HLSInterstitials
import HLSPlaylist
import Logging

/// Decides the date ranges a playlist serves from its planner: the first serving of new ones is
/// claimed on the ``ServerState`` and recorded before it is answered, and the early returns and
/// withdrawals signalled are recorded (``SignalReader/recordOutcomes(_:withdrawals:target:)``) (``served(_:_:occupied:)``).
struct FirstServings: Sendable {
    /// The served values and the store they are recorded in.
    let state: ServerState
    /// How long a response waits for its new values to be recorded
    /// (``ServerLimits/servedRecordTimeout``).
    let recordTimeout: Duration
    /// Where a late record is logged.
    let logger: Logger
    /// Records the signalled early returns and withdrawals of what is served.
    let signals: SignalReader

    /// What ``served(_:_:occupied:)`` decided.
    struct Served: Sendable {
        /// The date ranges to serve.
        var planned: [BreakPlanner.Planned]
        /// The preload hints to serve.
        var hints: [BreakPlanner.Hint]
        /// Whether the date ranges are what the planner plans on its state with nothing decided or
        /// recorded on the way (no first serving, no early return, no withdrawal): a function of that
        /// state alone, which a cache may keep by the state's version.
        var isPure: Bool
    }

    /// The date ranges to serve from `planner` on `timeline`, with the first serving of new ones
    /// decided: a request that loses the race to another plans again with the values decided first.
    /// A value served for the first time is recorded before it is answered (at most
    /// ``ServerLimits/servedRecordTimeout``: a stuck database delays a new break, it does not stop
    /// playback).
    ///
    /// The preload hints (``BreakPlanner/hints(_:occupied:)``, none whose ID is in `occupied`) are
    /// decided and recorded with them.
    func served(
        _ planner: BreakPlanner, _ timeline: BreakPlanner.Timeline, occupied: Set<String> = []
    ) async -> Served {
        var planner = planner
        for attempt in 0..<4 {
            let planned = planner.plan(timeline)
            let hints = planner.hints(timeline, occupied: occupied)
            if attempt == 0, planned.allSatisfy({ $0.firstServing == nil && $0.earlyReturn == nil }),
                hints.allSatisfy({ $0.firstServing == nil }), planner.withdrawals(timeline).isEmpty
            {
                return Served(planned: planned, hints: hints, isPure: true)
            }
            let target = planner.target
            let entries =
                planned.compactMap { entry in
                    entry.firstServing.map { (ServedKey(target, entry.event.identifier), $0) }
                }
                + hints.compactMap { hint in hint.firstServing.map { (ServedKey(target, hint.identifier), $0) } }
            if let unsettled = state.claimServed(entries) {
                if !(await state.awaitRecorded(unsettled, timeout: recordTimeout)) {
                    logger.warning(
                        "served \(unsettled.count) new date ranges of \(target) before the store recorded them")
                } else if attempt < 3, !state.agrees(entries) {
                    // Another replica recorded its values first: serve those.
                    planner.state = state.snapshot
                    continue
                }
                await signals.recordOutcomes(planned, withdrawals: planner.withdrawals(timeline), target: target)
                return Served(planned: planned, hints: hints, isPure: false)
            }
            planner.state = state.snapshot
        }
        return Served(
            planned: planner.plan(timeline), hints: planner.hints(timeline, occupied: occupied), isPure: false)
    }
}
