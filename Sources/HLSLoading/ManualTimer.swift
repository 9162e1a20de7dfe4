import NIOConcurrencyHelpers

/// A clock for time limits that moves only when a test says (``advance(by:)``): a deadline on it
/// passes because the test moved it, never because the machine was slow. Its ``sleep`` is a
/// ``TimeLimitSleep`` for ``withTimeLimit(_:sleep:_:)``, a loader
/// (`PlaylistLoader(configuration:logger:sleep:)`) or a player's time limits.
///
/// A test waits for its code to be waiting for the deadline it means (``sleepers``,
/// ``untilWaiting(for:)``), then moves the clock past it.
package final class ManualTimer: Sendable {
    private struct State {
        var now: Duration = .zero
        var sleepers: [Int: (until: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
        /// Sleeps and watches cancelled before they waited.
        var cancelled: Set<Int> = []
        /// Tests waiting for a sleeper to wait until a time (``untilWaiting(for:)``).
        var watchers: [Int: (until: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var next = 0

        mutating func nextID() -> Int {
            defer { next += 1 }
            return next
        }

        /// Removes and returns the watchers of a sleeper that waits until `until`.
        mutating func takeWatchers(until: Duration) -> [CheckedContinuation<Void, any Error>] {
            let due = watchers.filter { $0.value.until == until }
            for id in due.keys { watchers[id] = nil }
            return due.values.map(\.continuation)
        }
    }

    private let state = NIOLockedValueBox(State())

    /// Creates a clock at zero.
    package init() {}

    /// How many wait on the clock now.
    package var sleepers: Int { state.withLockedValue { $0.sleepers.count } }

    /// Returns once something waits for `duration` from now (at once if something does): a test
    /// awaits its code's deadline as a condition, without polling. Throws `CancellationError` when
    /// cancelled (a test's time limit, its hang guard).
    package func untilWaiting(for duration: Duration) async throws {
        let id = state.withLockedValue { $0.nextID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case watches, waiting, cancelled }
                let outcome = state.withLockedValue { state -> Outcome in
                    if state.cancelled.remove(id) != nil { return .cancelled }
                    let until = state.now + duration
                    if state.sleepers.values.contains(where: { $0.until == until }) { return .waiting }
                    state.watchers[id] = (until, continuation)
                    return .watches
                }
                switch outcome {
                case .watches: break
                case .waiting: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            ManualTimer.cancel(id, in: \.watchers, of: state)
        }
    }

    /// Sleeps until the clock has moved on by `duration`; throws `CancellationError` when cancelled.
    package var sleep: TimeLimitSleep {
        { [state] duration in
            let id = state.withLockedValue { $0.nextID() }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    enum Outcome { case waits([CheckedContinuation<Void, any Error>]), due, cancelled }
                    let outcome = state.withLockedValue { state -> Outcome in
                        if state.cancelled.remove(id) != nil { return .cancelled }
                        guard duration > .zero else { return .due }
                        let until = state.now + duration
                        state.sleepers[id] = (until, continuation)
                        return .waits(state.takeWatchers(until: until))
                    }
                    switch outcome {
                    case .waits(let watchers): for watcher in watchers { watcher.resume() }
                    case .due: continuation.resume()
                    case .cancelled: continuation.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                ManualTimer.cancel(id, in: \.sleepers, of: state)
            }
        }
    }

    /// Ends a cancelled sleep or watch: resumed with `CancellationError` if it waits, else marked
    /// so that it does not start waiting.
    private static func cancel(
        _ id: Int,
        in table: WritableKeyPath<State, [Int: (until: Duration, continuation: CheckedContinuation<Void, any Error>)]>
            & Sendable,
        of state: NIOLockedValueBox<State>
    ) {
        let waiting = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
            guard let entry = state[keyPath: table].removeValue(forKey: id) else {
                state.cancelled.insert(id)
                return nil
            }
            return entry.continuation
        }
        waiting?.resume(throwing: CancellationError())
    }

    /// Moves the clock on by `duration`, waking the sleepers whose time came.
    package func advance(by duration: Duration) {
        let due = state.withLockedValue { state in
            state.now += duration
            let due = state.sleepers.filter { $0.value.until <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}
