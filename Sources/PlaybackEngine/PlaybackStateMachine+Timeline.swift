import HLSInterstitials
import HLSPlaylist

extension PlaybackStateMachine {
    /// The integrated-timeline time now (reference §2.5): primary items map their primary range;
    /// during a point event it stays where the event is; during a fill event it moves with it.
    package var integratedTime: MediaTime? {
        guard let schedule else { return nil }
        if mode == .interstitial, let run,
            let eventIndex = schedule.events.firstIndex(where: { $0.id == run.eventID }),
            let item = schedule.items.first(where: { $0.eventIndex == eventIndex })
        {
            let length = item.integrated.upperBound - item.integrated.lowerBound
            return item.integrated.lowerBound + (length > .zero ? min(run.elapsed, length) : .zero)
        }
        if let index = schedule.primaryItem(at: position) {
            let item = schedule.items[index]
            return item.integrated.lowerBound + (position - item.primary.start)
        }
        if let last = schedule.items.last, position >= last.primary.range.upperBound || mode == .ended {
            return schedule.integratedDuration ?? last.integrated.upperBound
        }
        return schedule.items.first { $0.kind == .primary && $0.primary.start >= position }?.integrated
            .lowerBound ?? .zero
    }

    /// Whether integrated time moves with the playhead now (not in a point event).
    var integratedAdvances: Bool {
        switch mode {
        case .primary: return true
        case .interstitial: return run?.event.timelineOccupancy == .fill
        default: return false
        }
    }

    /// A snapshot of the integrated timeline now.
    package var snapshot: IntegratedTimelineSnapshot? {
        guard let schedule else { return nil }
        return IntegratedTimelineSnapshot(
            schedule: schedule, primary: timeline?.playlist, currentTime: integratedTime ?? .zero)
    }

    /// The date at the primary position, when the primary has dates.
    package var currentDate: DateTime? { timeline?.playlist.date(at: position) }

    /// The current event.
    package var currentEvent: InterstitialEvent? { mode == .interstitial ? run?.event : nil }

    /// The current event's skippable state.
    package var currentSkippableState: SkippableEventState {
        guard mode == .interstitial, let run else { return .notSkippable }
        return run.skippableState
    }

    /// The current event's skip button label (`currentEventSkipControlLabel`): its label key looked
    /// up in ``skipControlLabels``, else the default label; nil when no event plays or it is not
    /// skippable.
    package var currentSkipControlLabel: String? {
        guard mode == .interstitial, let run else { return nil }
        return skipLabel(run.skippableState, labelID: run.skipControl.labelID)
    }

    /// The label that goes with a skippable state: nil when not skippable.
    func skipLabel(_ state: SkippableEventState, labelID: String?) -> String? {
        state == .notSkippable ? nil : skipControlLabels.label(for: labelID)
    }

    /// The events of the schedule, with their resolved asset lists.
    package var scheduledEvents: [InterstitialEvent] { schedule?.events.map(\.event) ?? activeEvents }

    /// Whether the primary is live.
    package var isLive: Bool { timeline?.isLive ?? false }
}
