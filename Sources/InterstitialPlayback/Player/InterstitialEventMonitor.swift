import HLSInterstitials
import HLSPlaylist
import PlaybackEngine

/// Observes a player's interstitial schedule and playback (`AVPlayerInterstitialEventMonitor`,
/// reference §2.2).
public class InterstitialEventMonitor: @unchecked Sendable {
    // Immutable after init; all state lives in the player.

    /// The primary player.
    public let primaryPlayer: Player

    /// Creates a monitor of `primaryPlayer`.
    public init(primaryPlayer: Player) { self.primaryPlayer = primaryPlayer }

    /// The interstitial player (a queue player).
    public var interstitialPlayer: QueuePlayer { primaryPlayer.interstitialPlayer }

    /// The current schedule: the controller's events, or the server's; with their resolved asset
    /// lists once loaded.
    public var events: [InterstitialEvent] {
        primaryPlayer.state.withLockedValue { $0.machine.scheduledEvents }
    }

    /// The event playing; nil while primary plays.
    public var currentEvent: InterstitialEvent? { primaryPlayer.state.withLockedValue { $0.machine.currentEvent } }

    /// Whether the current event can be skipped now (R16); `.notSkippable` without a current event.
    public var currentEventSkippableState: SkippableEventState {
        primaryPlayer.state.withLockedValue { $0.machine.currentSkippableState }
    }

    /// The current event's skip button label (`currentEventSkipControlLabel`): its
    /// X-SKIP-CONTROL-LABEL-ID (or its asset list's SKIP-CONTROL LABEL-ID) looked up in the
    /// player's ``Player/skipControlLabels``, else their default label; nil without a current event
    /// or when it is not skippable.
    public var currentEventSkipControlLabel: String? {
        primaryPlayer.state.withLockedValue { $0.machine.currentSkipControlLabel }
    }

    /// Every notification, from now on.
    public var notifications: AsyncStream<InterstitialEventNotification> { primaryPlayer.notifications() }

    /// Posted when the schedule changes.
    public var eventsDidChange: AsyncStream<Void> { filtered { if case .eventsDidChange = $0 { () } else { nil } } }

    /// Posted when the current event changes, with the new one (nil: primary).
    public var currentEventDidChange: AsyncStream<InterstitialEvent?> {
        filtered { if case .currentEventDidChange(let event) = $0 { .some(event) } else { nil } }
    }

    /// Posted when an asset list arrives, is cleared or fails.
    public var assetListResponseStatusDidChange:
        AsyncStream<(event: InterstitialEvent, status: AssetListResponseStatus, error: String?)>
    {
        filtered {
            if case .assetListResponseStatusDidChange(let event, let status, let error) = $0 {
                (event, status, error)
            } else {
                nil
            }
        }
    }

    /// Posted when the current event's skippable state changes, with the skip button's label (nil
    /// when not skippable); an event that was skippable goes back to not skippable when it ends.
    public var currentEventSkippableStateDidChange:
        AsyncStream<(event: InterstitialEvent, state: SkippableEventState, label: String?)>
    {
        filtered {
            if case .currentEventSkippableStateDidChange(let event, let state, let label) = $0 {
                (event, state, label)
            } else {
                nil
            }
        }
    }

    /// Posted when the current event is skipped.
    public var currentEventSkipped: AsyncStream<InterstitialEvent> {
        filtered { if case .currentEventSkipped(let event) = $0 { event } else { nil } }
    }

    /// Posted when an event with loaded assets (or a failed load) is unscheduled before it plays.
    public var eventWasUnscheduled: AsyncStream<(event: InterstitialEvent, error: String?)> {
        filtered { if case .eventWasUnscheduled(let event, let error) = $0 { (event, error) } else { nil } }
    }

    /// Posted when an event finishes, or is cancelled after it began.
    public var eventDidFinish: AsyncStream<(event: InterstitialEvent, playoutTime: MediaTime, didPlayEntireEvent: Bool)>
    {
        filtered {
            if case .eventDidFinish(let event, let time, let entire) = $0 { (event, time, entire) } else { nil }
        }
    }

    /// Posted when a Date Range Schedule's document request completes, with the schedule's ID and
    /// the document read or the error (`AVPlayerInterstitialEventMonitorScheduleRequestCompletedNotification`,
    /// profile R27). A failed or malformed document adds no events.
    public var scheduleRequestCompleted:
        AsyncStream<(identifier: String, response: DateRangeScheduleDocument?, error: DateRangeScheduleError?)>
    {
        filtered {
            if case .scheduleRequestCompleted(let identifier, let response, let error) = $0 {
                (identifier, response, error)
            } else {
                nil
            }
        }
    }

    private func filtered<Element: Sendable>(
        _ transform: @escaping @Sendable (InterstitialEventNotification) -> Element?
    ) -> AsyncStream<Element> {
        let source = primaryPlayer.notifications()
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let task = Task {
            for await notification in source {
                if let element = transform(notification) { continuation.yield(element) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// Schedules and controls interstitial events (`AVPlayerInterstitialEventController`, reference §2.3).
public final class InterstitialEventController: InterstitialEventMonitor, @unchecked Sendable {
    /// Creates a controller of `primaryPlayer`.
    public override init(primaryPlayer: Player) { super.init(primaryPlayer: primaryPlayer) }

    /// The schedule. Setting it cancels and overrides all future events, the server's included
    /// (events are copied: change a copy and set it again); a current event not in the new set runs
    /// to completion. ``setEvents(_:)`` with nil restores the server's schedule.
    public override var events: [InterstitialEvent] {
        get { super.events }
        set { setEvents(newValue) }
    }

    /// Sets the schedule; nil restores the current item's (server) events.
    public func setEvents(_ events: [InterstitialEvent]?) { primaryPlayer.perform(.setEvents(events)) }

    /// Abandons the current interstitial, coinciding events included, and resumes primary at
    /// `resumptionOffset` from where the group was scheduled: `.indefinite` matches the wall-clock
    /// time elapsed, nil (`kCMTimeInvalid`) the projected resumption point. No effect without a
    /// current event.
    public func cancelCurrentEvent(resumptionOffset: ResumptionOffset?) {
        primaryPlayer.perform(.cancelCurrentEvent(resumptionOffset: resumptionOffset))
    }

    /// The strings table skip button labels are looked up in (Apple's `localizedStringsBundle` and
    /// `localizedStringsTableName`); nil: none, every label is the default one. Read one with
    /// `LocalizedStringsTable.load(contentsOf:languages:)`.
    public var localizedStrings: LocalizedStringsTable? {
        get { primaryPlayer.skipControlLabels.table }
        set { primaryPlayer.skipControlLabels.table = newValue }
    }

    /// Abandons the current event only (coinciding events still play), when skipping is allowed
    /// (R16); returns false when it was refused or no event plays.
    @discardableResult
    public func skipCurrentEvent() -> Bool {
        primaryPlayer.accepts(.skipCurrentEvent)
    }
}
