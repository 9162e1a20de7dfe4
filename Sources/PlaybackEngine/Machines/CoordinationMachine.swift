import HLSPlaylist

extension PlaybackStateMachine {
    /// The player's part in a coordinated group (R24): following it, playing an interstitial
    /// group on its own, or holding at the resumption point for the others; and whether a local
    /// command changed what the group must be told.
    ///
    /// It changes only through its mutating methods, which return the signals for the group.
    package struct CoordinationMachine: Sendable {
        /// The player's part.
        package private(set) var role: Coordination = .off
        /// A local command changed where or how playback moves: the group is told once the input
        /// is handled.
        package private(set) var changed = false

        /// Not in a group.
        package init() {}

        /// The player joined (true) or left (false) a group.
        package mutating func join(_ on: Bool) {
            role = on ? (role == .off ? .following : role) : .off
        }

        /// A local command that changes timing was applied while following: the group is told.
        package mutating func commandApplied() { changed = true }

        /// The signal that a local command changed playback, once per input.
        package mutating func takeChange() -> Signal? {
            guard changed else { return nil }
            changed = false
            return .changed
        }

        /// The group placed playback (a coordinated state arrived): a held or lone player follows
        /// it again. `loaded`: whether the primary is loaded (before, only a hold is released).
        ///
        /// A player led away from a group it played on its own, at primary `position`, tells the
        /// group it arrived there: the others' barrier for that group must not wait for an arrival
        /// that will never come (two participants starting at once each propose a start, and the
        /// later one takes the other out of its pre-roll).
        package mutating func placed(loaded: Bool, at position: MediaTime) -> [Signal] {
            if role == .held { role = .following }
            guard loaded, case .alone(let key) = role else { return [] }
            role = .following
            return [.arrived(key, position)]
        }

        /// The interstitial group with key `current` plays on its own now (nil: none does), with
        /// primary at `position`: returns the signals for the group (a start, an end after which the
        /// player holds).
        package mutating func track(playingAlone current: String?, at position: MediaTime) -> [Signal] {
            guard role != .off else { return [] }
            var previous: String?
            if case .alone(let key) = role { previous = key }
            guard current != previous else { return [] }
            var signals: [Signal] = []
            if let finished = previous, current == nil {
                role = .held
                signals.append(.arrived(finished, position))
            }
            if let current {
                signals.append(.suspended(current))
                role = .alone(current)
            }
            return signals
        }
    }
}
