import HLSInterstitials
import HLSPlaylist

/// The integrated timeline of a primary item and its events (`AVPlayerItemIntegratedTimeline`,
/// reference §2.5).
public final class IntegratedTimeline: Sendable {
    /// A registered observer; pass it to ``removeTimeObserver(_:)``.
    public struct Observer: Sendable, Hashable {
        let id: Int
    }

    let player: Player

    init(player: Player) { self.player = player }

    /// A snapshot now; nil before the primary loads.
    public var currentSnapshot: IntegratedTimelineSnapshot? { player.state.withLockedValue { $0.machine.snapshot } }

    /// The integrated time now; it does not move during a point event.
    public var currentTime: MediaTime { player.state.withLockedValue { $0.machine.integratedTime ?? .zero } }

    /// The date now, when the primary has dates.
    public var currentDate: DateTime? { player.currentDate }

    /// Seeks to an integrated time: primary segments map to primary time, an interstitial segment
    /// seeks to its event. False when refused.
    @discardableResult
    public func seek(to time: MediaTime) -> Bool {
        player.accepts(.seekIntegrated(time))
    }

    /// Seeks to a date. False when refused or the primary has no dates.
    @discardableResult
    public func seek(to date: DateTime) -> Bool { player.seek(to: date) }

    /// Calls `block` every `interval` of integrated time, and when the segment changes, time jumps,
    /// or playback starts or stops.
    public func addPeriodicTimeObserver(
        forInterval interval: MediaTime, using block: @escaping @Sendable (MediaTime) -> Void
    ) -> Observer {
        register { observers, id in
            observers.periodic[id] = TimelineObservers.Periodic(
                interval: max(interval, MediaTime(nanoseconds: 1_000_000)), block: block)
        }
    }

    /// Calls `block(true)` when integrated time reaches each offset into `segment`, and `block(false)`
    /// at once if the segment leaves the timeline.
    public func addBoundaryTimeObserver(
        for segment: IntegratedTimelineSnapshot.Segment, offsetsIntoSegment offsets: [MediaTime],
        using block: @escaping @Sendable (Bool) -> Void
    ) -> Observer {
        register { observers, id in
            observers.boundary[id] = TimelineObservers.Boundary(segment: segment, offsets: offsets, block: block)
        }
    }

    /// Removes an observer.
    public func removeTimeObserver(_ observer: Observer) {
        player.state.withLockedValue { state in
            state.observers.periodic.removeValue(forKey: observer.id)
            state.observers.boundary.removeValue(forKey: observer.id)
        }
    }

    /// The reasons snapshots go out of sync (`snapshotsOutOfSyncNotification`), from now on.
    public var snapshotsOutOfSync: AsyncStream<IntegratedTimelineSnapshot.Change> {
        let (stream, continuation) = AsyncStream.makeStream(of: IntegratedTimelineSnapshot.Change.self)
        let id = player.state.withLockedValue { state -> Int in
            state.observers.nextID += 1
            state.observers.outOfSync[state.observers.nextID] = continuation
            if state.observers.lastSnapshot == nil { state.observers.lastSnapshot = state.machine.snapshot }
            return state.observers.nextID
        }
        let player = self.player
        continuation.onTermination = { _ in
            _ = player.state.withLockedValue { $0.observers.outOfSync.removeValue(forKey: id) }
        }
        return stream
    }

    private func register(_ add: (inout TimelineObservers, Int) -> Void) -> Observer {
        var callbacks: [@Sendable () -> Void] = []
        let id = player.state.withLockedValue { state -> Int in
            state.observers.nextID += 1
            add(&state.observers, state.observers.nextID)
            state.observers.update(machine: state.machine, callbacks: &callbacks)
            state.machine.watch(integratedTimes: state.observers.watchedTimes)
            return state.observers.nextID
        }
        for callback in callbacks { callback() }
        player.wakeContinuation.yield()
        return Observer(id: id)
    }
}
