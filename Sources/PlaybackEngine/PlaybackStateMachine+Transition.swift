extension PlaybackStateMachine {
    /// Why the state changes: each cause allows the moves it makes and no other
    /// (``allows(from:to:)``); ``transition(to:because:)`` refuses the rest with a trace warning.
    package enum Cause: String, Sendable {
        /// The primary presentation loaded for the first time: loading to primary.
        case primaryLoaded = "the primary loaded"
        /// A placement asked for before the primary loaded: loading stays loading, with it.
        case placed = "a placement waits for the primary"
        /// An interstitial group starts: primary to interstitial.
        case groupStarted = "an interstitial group started"
        /// The group is over (or a seek left it): interstitial to primary.
        case resumed = "primary resumed"
        /// A seek or a placement after the end: ended to primary.
        case restarted = "playback restarted after the end"
        /// Primary reached its end, or the POST group ended: primary or interstitial to ended.
        case ended = "playback ended"
        /// The primary could not be loaded: loading to ended.
        case loadFailed = "the primary could not be loaded"
        /// The session went to another player: any state to ``State/handedOff(to:)`` (mode ended),
        /// which only another hand-off leaves.
        case handedOff = "the session was handed off"
        /// Primary playback or the group run changed in place: the same mode.
        case changed = "playback changed in place"
        /// The group run leaves the state while it changes, then comes back (postgres-nio's
        /// `.modifying`): interstitial to ended and back.
        case modifying = "the group run is changing"

        /// Whether this cause moves playback from `from` to `to`.
        package func allows(from: Mode, to: Mode) -> Bool {
            switch self {
            case .primaryLoaded: from == .loading && to == .primary
            case .placed: from == .loading && to == .loading
            case .groupStarted: from == .primary && to == .interstitial
            case .resumed: from == .interstitial && to == .primary
            case .restarted: from == .ended && to == .primary
            case .ended: (from == .primary || from == .interstitial) && to == .ended
            case .loadFailed: from == .loading && to == .ended
            case .handedOff: to == .ended
            case .changed: from == to && (from == .primary || from == .interstitial)
            case .modifying: (from == .interstitial && to == .ended) || (from == .ended && to == .interstitial)
            }
        }
    }
}

extension PlaybackStateMachine.State {
    /// Where playback is, without the data.
    package var mode: PlaybackStateMachine.Mode {
        switch self {
        case .loading: .loading
        case .primary: .primary
        case .interstitial: .interstitial
        case .ended, .handedOff: .ended
        }
    }
}
