import HLSPlaylist
import Logging

/// Follows a shared store for a ``ServerState``: reads its change count every `pollInterval`
/// (``ServerState/refresh()``, which loads the store again only when the count moved) and drops its
/// expired viewer counts every ``pruneInterval`` (``ServerState/pruneViewers(logger:)``), on the
/// state's injected ``ServerClock``. A store that only this server writes is not followed.
struct StoreFollower: Sendable {
    /// The state that follows its store.
    let state: ServerState
    /// Where the time between reads and prunings is read and waited.
    let clock: any ServerClock
    /// How often the store's change count is read.
    let pollInterval: Duration

    /// How often a shared store's expired viewer counts are dropped.
    static let pruneInterval = MediaTime(seconds: 60)

    /// When the viewer counts are dropped next: a value that takes the clock's time.
    struct PruneSchedule: Sendable, Equatable {
        /// When they were last dropped (or the following started).
        private(set) var last: MediaTime

        /// Whether they are due at `now`; when they are, `now` becomes the last time.
        mutating func isDue(at now: MediaTime) -> Bool {
            guard now - last >= StoreFollower.pruneInterval else { return false }
            last = now
            return true
        }
    }

    /// Follows until cancelled; a failing store is logged once and tried again.
    func run(logger: Logger) async {
        guard state.store.isShared else { return }
        var failing = false
        var prune = PruneSchedule(last: clock.now)
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: MediaTime(pollInterval))
            } catch {
                return
            }
            if prune.isDue(at: clock.now) {
                await state.pruneViewers(logger: logger)
            }
            do {
                try await state.refresh()
                if failing { logger.info("the store answers again; following its changes") }
                failing = false
            } catch {
                if !failing { logger.error("cannot read the store's changes (serving what is known): \(error)") }
                failing = true
            }
        }
    }
}
