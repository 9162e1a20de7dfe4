import HLSPlaylist
import Logging
import NIOConcurrencyHelpers

/// The viewer requests a replica counted at once (``ServerState/attemptHere(viewer:target:id:logger:)``)
/// on their way to a shared store, so that the other replicas see them: written in batches
/// (``ServerStore/countViewerRequests(_:expiry:)``), each batch every request counted while the
/// previous one was being written. A herd of requests (a break's cue, thousands of viewers within
/// seconds) then costs the database a few statements, not one each.
///
/// Bounded: at most ``maximumPending`` distinct requests wait, and a request past that bound is
/// counted by this replica alone (as when the store fails). One batch is written at a time, at most
/// ``maximumBatch`` requests, within the store timeout given (``ServerLimits/viewerStoreTimeout``)
/// on the server's clock; a batch the store did not take in time is not sent again.
final class BackgroundViewerCounts: Sendable {
    /// The most distinct requests waiting to be written.
    static let maximumPending = 10_000
    /// The most distinct requests in one batch.
    static let maximumBatch = 1_000

    private struct State {
        var pending: [ViewerRequestKey: Int] = [:]
        /// Whether a task is writing batches.
        var writing = false
    }

    private let state = NIOLockedValueBox(State())
    private let store: any ServerStore
    private let clock: any ServerClock
    private let expiry: Duration
    private let timeout: MediaTime
    private let logger: Logger?

    /// Counts for `store`, each count kept for `expiry`, each batch written within `timeout` on
    /// `clock`.
    init(store: any ServerStore, expiry: Duration, timeout: MediaTime, clock: any ServerClock, logger: Logger? = nil) {
        self.store = store
        self.expiry = expiry
        self.timeout = timeout
        self.clock = clock
        self.logger = logger
    }

    /// Adds one request to the next batch (and starts writing when nothing is being written);
    /// false when ``maximumPending`` leaves no room: it is not written.
    @discardableResult
    func add(_ key: ViewerRequestKey) -> Bool {
        let start = state.withLockedValue { state -> Bool? in
            guard state.pending[key] != nil || state.pending.count < Self.maximumPending else { return nil }
            state.pending[key, default: 0] += 1
            defer { state.writing = true }
            return !state.writing
        }
        guard let start else { return false }
        if start { Task { await self.write() } }
        return true
    }

    /// How many distinct requests wait to be written.
    var pending: Int { state.withLockedValue { $0.pending.count } }

    /// Writes batches until none is left.
    private func write() async {
        while true {
            let batch = state.withLockedValue { state -> [ViewerRequestKey: Int] in
                guard !state.pending.isEmpty else {
                    state.writing = false
                    return [:]
                }
                guard state.pending.count > Self.maximumBatch else {
                    defer { state.pending = [:] }
                    return state.pending
                }
                var batch: [ViewerRequestKey: Int] = [:]
                for key in Array(state.pending.keys.prefix(Self.maximumBatch)) {
                    batch[key] = state.pending.removeValue(forKey: key)
                }
                return batch
            }
            guard !batch.isEmpty else { return }
            let (store, expiry) = (store, expiry)
            let written: Void? = await clock.within(timeout) {
                try await store.countViewerRequests(batch, expiry: expiry)
            }
            if written == nil {
                logger?.debug("the store did not count \(batch.count) viewer requests in time (counted here)")
            }
        }
    }
}
