import HLSPlaylist
import NIOConcurrencyHelpers

/// A ``ServerClock`` that moves only when told (``advance(by:)``), for tests: its sleepers wake
/// when the time they wait for is reached, never because the machine was slow.
final class ManualServerClock: ServerClock {
    private struct Sleeper {
        var until: MediaTime
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: MediaTime
        var wall: DateTime
        var sleepers: [Int: Sleeper] = [:]
        var next = 0
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

    /// How many sleepers wait (a test waits for its code to be asleep before it advances).
    var sleepers: Int { state.withLockedValue { $0.sleepers.count } }

    /// Moves both clocks on by `duration`, waking the sleepers whose time came.
    func advance(by duration: MediaTime) {
        let woken = state.withLockedValue { state in
            state.now = state.now + duration
            state.wall = state.wall + duration
            let due = state.sleepers.filter { $0.value.until <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits until the clock reaches now + `duration`; throws `CancellationError` when cancelled.
    func sleep(for duration: MediaTime) async throws {
        let id = state.withLockedValue { state in
            defer { state.next += 1 }
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = Task.isCancelled
                let ready = state.withLockedValue { state in
                    let until = state.now + duration
                    guard until > state.now, !cancelled else { return true }
                    state.sleepers[id] = Sleeper(until: until, continuation: continuation)
                    return false
                }
                guard ready else { return }
                if cancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(
                throwing: CancellationError())
        }
    }
}
