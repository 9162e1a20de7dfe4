import HLSPlaylist
import PlaybackEngine

extension QueuePlayer {
    /// A registered observer of the interstitial player; pass it to ``removeTimeObserver(_:)``.
    public struct TimeObserver: Sendable, Hashable {
        let id: Int
    }

    /// Calls `block` with the time each time playback of an interstitial item crosses one of
    /// `times` (from the item's start) or one of `fractions` of its duration, moving forward
    /// (AVFoundation's `addBoundaryTimeObserver(forTimes:queue:using:)` on the interstitial
    /// player). Fractions 0.25, 0.5, 0.75 and 1 are the quartiles ad tracking reports; an item's
    /// start is its ``Player`` trace's `assetStarted`. On a virtual clock playback stops at each
    /// time, so none is passed over.
    public func addBoundaryTimeObserver(
        forTimes times: [MediaTime] = [], fractionsOfDuration fractions: [Double] = [],
        using block: @escaping @Sendable (MediaTime) -> Void
    ) -> TimeObserver? {
        guard let player else { return nil }
        let id = player.state.withLockedValue { state -> Int in
            state.nextAssetObserver += 1
            state.assetObservers[state.nextAssetObserver] = block
            state.machine.watch(AssetTimeWatch(times: times, fractions: fractions), key: state.nextAssetObserver)
            return state.nextAssetObserver
        }
        player.wakeContinuation.yield()
        return TimeObserver(id: id)
    }

    /// Removes an observer.
    public func removeTimeObserver(_ observer: TimeObserver) {
        player?.state.withLockedValue { state in
            state.assetObservers.removeValue(forKey: observer.id)
            state.machine.unwatch(key: observer.id)
        }
    }

    /// The ranges of the current item (from its start) whose segments are loaded
    /// (`loadedTimeRanges`); empty when no item plays or segments are not loaded.
    public var loadedTimeRanges: [Range<MediaTime>] {
        player?.state.withLockedValue { $0.machine.loadedAssetRanges } ?? []
    }

    /// The duration of the current item; nil when no item plays.
    public var currentItemDuration: MediaTime? {
        player?.state.withLockedValue { $0.machine.mode == .interstitial ? $0.machine.run?.currentDuration : nil }
    }
}
