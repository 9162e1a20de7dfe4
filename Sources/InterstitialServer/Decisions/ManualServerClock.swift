import HLSPlaylist
import NIOConcurrencyHelpers
import NIOCore

/// A ``ServerClock`` that moves only when told (``advance(by:)``), for tests: its sleepers wake
/// when the time they wait for is reached, never because the machine was slow, and so do its
/// alarms (``wake(at:on:_:)``: a connection's timeouts), whose bodies ``advance(by:)`` hands to
/// their event loops.
final class ManualServerClock: ServerClock {
    /// What waits for a time: a sleeping task, or an alarm's body to run on its event loop.
    private enum Waiter {
        case sleeper(CheckedContinuation<Void, any Error>)
        case alarm(any EventLoop, @Sendable () -> Void)
    }

    private struct State {
        var now: MediaTime
        var wall: DateTime
        var waiting: [Int: (until: MediaTime, waiter: Waiter)] = [:]
        var next = 0

        mutating func nextID() -> Int {
            defer { next += 1 }
            return next
        }
    }

    private let state: NIOLockedValueBox<State>

    /// A clock at `now` (monotonic) and `wall`.
    init(now: MediaTime = MediaTime(seconds: 1000), wall: DateTime) {
        state = NIOLockedValueBox(State(now: now, wall: wall))
    }

    /// The monotonic time now.
    var now: MediaTime { state.withLockedValue { $0.now } }

    /// The wall-clock date now.
    var wall: DateTime { state.withLockedValue { $0.wall } }

    /// How many tasks sleep on the clock (alarms aside).
    var sleepers: Int {
        state.withLockedValue { state in
            state.waiting.values.count { if case .sleeper = $0.waiter { true } else { false } }
        }
    }

    /// How many sleepers and alarms wait for `duration` from now: a test waits for its code to
    /// be waiting for the deadline it means before it advances, whatever else waits on the clock.
    func waiting(for duration: MediaTime) -> Int {
        state.withLockedValue { state in
            let until = state.now + duration
            return state.waiting.values.count { $0.until == until }
        }
    }

    /// Moves both clocks on by `duration`, waking the sleepers and alarms whose time came.
    func advance(by duration: MediaTime) {
        let due = state.withLockedValue { state in
            state.now = state.now + duration
            state.wall = state.wall + duration
            let due = state.waiting.filter { $0.value.until <= state.now }
            for id in due.keys { state.waiting[id] = nil }
            return due.values.map(\.waiter)
        }
        for waiter in due {
            switch waiter {
            case .sleeper(let continuation): continuation.resume()
            case .alarm(let eventLoop, let body): eventLoop.execute(body)
            }
        }
    }

    /// Waits until the clock reaches now + `duration`; throws `CancellationError` when cancelled.
    func sleep(for duration: MediaTime) async throws {
        let id = state.withLockedValue { $0.nextID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = Task.isCancelled
                let ready = state.withLockedValue { state in
                    let until = state.now + duration
                    guard until > state.now, !cancelled else { return true }
                    state.waiting[id] = (until, .sleeper(continuation))
                    return false
                }
                guard ready else { return }
                if cancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
            }
        } onCancel: {
            let removed = state.withLockedValue { $0.waiting.removeValue(forKey: id) }
            if case .sleeper(let continuation)? = removed?.waiter {
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Runs `body` on `eventLoop` once ``advance(by:)`` reaches `time` (at once when it has).
    func wake(
        at time: MediaTime, on eventLoop: any EventLoop, _ body: @escaping @Sendable () -> Void
    ) -> ServerClockAlarm {
        // Cancelled after it was handed to the event loop, but before it ran there: it does not run.
        let cancelled = NIOLockedValueBox(false)
        let guarded: @Sendable () -> Void = { if !cancelled.withLockedValue({ $0 }) { body() } }
        let id = state.withLockedValue { state -> Int? in
            guard time > state.now else { return nil }
            let id = state.nextID()
            state.waiting[id] = (time, .alarm(eventLoop, guarded))
            return id
        }
        guard let id else {
            eventLoop.execute(guarded)
            return ServerClockAlarm { cancelled.withLockedValue { $0 = true } }
        }
        return ServerClockAlarm { [state] in
            cancelled.withLockedValue { $0 = true }
            state.withLockedValue { _ = $0.waiting.removeValue(forKey: id) }
        }
    }
}
