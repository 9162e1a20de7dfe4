import HLSInterstitials
import HLSPlaylist

/// A notification of an `InterstitialEventMonitor` (the `AVPlayerInterstitialEventMonitor`
/// notifications, reference §2.2), delivered through `AsyncSequence`s.
public enum InterstitialEventNotification: Sendable, Hashable {
    /// The schedule changed (`eventsDidChangeNotification`).
    case eventsDidChange
    /// The current event changed; nil when primary plays (`currentEventDidChangeNotification`).
    case currentEventDidChange(InterstitialEvent?)
    /// An asset list response arrived, was cleared or failed (`assetListResponseStatusDidChange`).
    case assetListResponseStatusDidChange(event: InterstitialEvent, status: AssetListResponseStatus, error: String?)
    /// The current event's skippable state changed (`currentEventSkippableStateDidChange`), with
    /// the skip button's label (Apple's `SkipControlLabelKey`; nil when the state is not skippable).
    /// When an event that was skippable ends, its state goes back to not skippable.
    case currentEventSkippableStateDidChange(event: InterstitialEvent, state: SkippableEventState, label: String?)
    /// The current event was skipped (`currentEventSkippedNotification`).
    case currentEventSkipped(InterstitialEvent)
    /// An event with loaded assets, or one whose load failed, was unscheduled before it played
    /// (`interstitialEventWasUnscheduledNotification`).
    case eventWasUnscheduled(InterstitialEvent, error: String?)
    /// An event finished or was cancelled after it began (`interstitialEventDidFinishNotification`):
    /// `playoutTime` is the interstitial time played; `didPlayEntireEvent` is false when it was
    /// skipped, cancelled, cut by a playout limit, left by a seek, joined or moved past part of it,
    /// or lost an asset that failed.
    case eventDidFinish(InterstitialEvent, playoutTime: MediaTime, didPlayEntireEvent: Bool)
    /// A Date Range Schedule's document was loaded and read (`response`), or failed (`error`), for
    /// the schedule with this ID (`AVPlayerInterstitialEventMonitorScheduleRequestCompletedNotification`,
    /// profile R27).
    case scheduleRequestCompleted(
        identifier: String, response: DateRangeScheduleDocument?, error: DateRangeScheduleError?)
}

/// The state of an event's asset list (`AVPlayerInterstitialEventAssetListResponseStatus`).
public enum AssetListResponseStatus: String, Sendable, Hashable, Codable {
    /// The response arrived and was read.
    case available
    /// The response was reverted to nil.
    case cleared
    /// The read failed.
    case unavailable
}

/// Whether the current event can be skipped now (`AVPlayerInterstitialEvent.SkippableEventState`).
public enum SkippableEventState: String, Sendable, Hashable, Codable {
    /// No skip control, or no current event.
    case notSkippable
    /// The skip control window has not opened yet.
    case notYetEligible
    /// Inside the skip control window.
    case eligible
    /// The window has closed.
    case noLongerEligible
}
