import NIOConcurrencyHelpers

/// The error ``withTimeLimit(_:sleep:_:)`` throws when its operation runs out of time.
public struct TimeLimitExceeded: Error, Hashable, Sendable, CustomStringConvertible {
    /// The time the operation had.
    public var limit: Duration

    /// Creates the error.
    public init(limit: Duration) { self.limit = limit }

    /// `not done within LIMIT`.
    public var description: String { "not done within \(limit)" }
}

/// How a time limit waits for its deadline: sleeps the given duration on the caller's clock (the
/// continuous clock by default; a test's manual clock, which moves only when the test says), and
/// throws when cancelled.
public typealias TimeLimitSleep = @Sendable (_ duration: Duration) async throws -> Void

/// Runs `operation` with a deadline: when it has not finished within `limit` (as `sleep` counts
/// it), it is cancelled and ``TimeLimitExceeded`` is thrown.
///
/// Use it around a whole HTTP exchange (request, response head and body) where a client's own
/// timeouts cover only a part, such as the response head. The operation must end soon after it
/// is cancelled.
public func withTimeLimit<Value: Sendable>(
    _ limit: Duration, sleep: @escaping TimeLimitSleep = { try await Task.sleep(for: $0) },
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await sleep(limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimeLimitExceeded(limit: limit) }
        return value
    }
}

/// Runs `operation` with a deadline, without waiting for it to stop: when it has not finished
/// within `limit` (as `sleep` counts it), it is cancelled, left to end on its own, and
/// ``TimeLimitExceeded`` is thrown at once.
///
/// Use it around an operation that may not stop when cancelled (a database query waiting for a
/// connection to a server that is down), where the caller must not wait past its deadline. A
/// cancelled caller cancels the operation too.
public func withTimeLimitAbandoning<Value: Sendable>(
    _ limit: Duration, sleep: @escaping TimeLimitSleep = { try await Task.sleep(for: $0) },
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let waiting = NIOLockedValueBox<CheckedContinuation<Value, any Error>?>(nil)
    let work = NIOLockedValueBox<Task<Void, Never>?>(nil)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            let timer = Task {
                try? await sleep(limit)
                guard !Task.isCancelled, let continuation = waiting.withLockedValue({ $0.take() }) else { return }
                work.withLockedValue { $0 }?.cancel()
                continuation.resume(throwing: TimeLimitExceeded(limit: limit))
            }
            let task = Task {
                let result: Result<Value, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                timer.cancel()
                waiting.withLockedValue { $0.take() }?.resume(with: result)
            }
            work.withLockedValue { $0 = task }
        }
    } onCancel: {
        work.withLockedValue { $0 }?.cancel()
    }
}
