import HLSLoading
import NIOConcurrencyHelpers

/// A clock for time limits that moves only when the test says (``advance(by:)``): a deadline on it
/// passes because the test moved it, never because the machine was slow. Its ``sleep`` is a
/// ``TimeLimitSleep``.
final class ManualTimer: Sendable {
    private struct State {
        var now: Duration = .zero
        var sleepers: [Int: (until: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
        /// Sleeps cancelled before they waited.
        var cancelled: Set<Int> = []
        var next = 0
    }

    private let state = NIOLockedValueBox(State())

    /// How many wait on the clock now: a test waits for its code to be waiting for the deadline
    /// before it moves the clock.
    var sleepers: Int { state.withLockedValue { $0.sleepers.count } }

    /// Sleeps until the clock has moved on by `duration`; throws `CancellationError` when cancelled.
    var sleep: TimeLimitSleep {
        { [state] duration in
            let id = state.withLockedValue { state in
                defer { state.next += 1 }
                return state.next
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    enum Outcome { case waits, due, cancelled }
                    let outcome = state.withLockedValue { state -> Outcome in
                        if state.cancelled.remove(id) != nil { return .cancelled }
                        guard duration > .zero else { return .due }
                        state.sleepers[id] = (state.now + duration, continuation)
                        return .waits
                    }
                    switch outcome {
                    case .waits: break
                    case .due: continuation.resume()
                    case .cancelled: continuation.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                let waiting = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
                    guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                        state.cancelled.insert(id)
                        return nil
                    }
                    return sleeper.continuation
                }
                waiting?.resume(throwing: CancellationError())
            }
        }
    }

    /// Moves the clock on by `duration`, waking the sleepers whose time came.
    func advance(by duration: Duration) {
        let due = state.withLockedValue { state in
            state.now += duration
            let due = state.sleepers.filter { $0.value.until <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}

/// Waits until `condition` holds, yielding between checks. The bound (10 minutes of real time) only
/// keeps a broken test from hanging the suite: a condition that holds returns at once, however
/// loaded the machine.
func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + .seconds(600)
    while ContinuousClock.now < end {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
