import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers
import NIOCore

/// The server's one source of time: a monotonic ``now`` (``MediaTime`` on an arbitrary origin, for
/// deadlines and durations), the wall clock (``wall``, for dates in playlists and ad tags), and a
/// way to wait (``sleep(for:)``).
///
/// Every service is given one (``SystemServerClock`` in the server, ``ManualServerClock`` in tests),
/// so that a deadline is decided by the clock's inputs rather than by how loaded the machine is.
protocol ServerClock: Sendable {
    /// The monotonic time now.
    var now: MediaTime { get }
    /// The wall-clock date now.
    var wall: DateTime { get }
    /// Waits `duration` of this clock's time; throws when cancelled.
    func sleep(for duration: MediaTime) async throws
    /// Runs `body` on `eventLoop` once this clock reaches `time` (soon, when it has), unless the
    /// alarm returned is cancelled first (on that event loop). What is due is decided on ``now``
    /// when `body` runs; the event loop only wakes it (a connection's timeouts, ``RequestGuard``).
    func wake(
        at time: MediaTime, on eventLoop: any EventLoop, _ body: @escaping @Sendable () -> Void
    ) -> ServerClockAlarm
}

extension ServerClock {
    /// `operation`'s result, or nil when it fails or this clock's `limit` passes first. The
    /// operation is not waited for once the limit passed (an operation that does not stop when
    /// cancelled, a ledger whose database is down, is cancelled and abandoned).
    func within<T: Sendable>(_ limit: MediaTime, _ operation: @escaping @Sendable () async throws -> T) async -> T? {
        guard limit > .zero else { return nil }
        let waiting = NIOLockedValueBox<CheckedContinuation<T?, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            waiting.withLockedValue { $0 = continuation }
            let timer = Task {
                try? await sleep(for: limit)
                waiting.withLockedValue { $0.take() }?.resume(returning: nil)
            }
            Task {
                let value = try? await operation()
                timer.cancel()
                waiting.withLockedValue { $0.take() }?.resume(returning: value)
            }
        }
    }
}
