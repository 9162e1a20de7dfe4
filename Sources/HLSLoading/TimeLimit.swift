/// The error ``withTimeLimit(_:_:)`` throws when its operation runs out of time.
public struct TimeLimitExceeded: Error, Hashable, Sendable, CustomStringConvertible {
    /// The time the operation had.
    public var limit: Duration

    /// Creates the error.
    public init(limit: Duration) { self.limit = limit }

    /// `not done within LIMIT`.
    public var description: String { "not done within \(limit)" }
}

/// Runs `operation` with a deadline: when it has not finished within `limit`, it is cancelled and
/// ``TimeLimitExceeded`` is thrown.
///
/// Use it around a whole HTTP exchange (request, response head and body) where a client's own
/// timeouts cover only a part, such as the response head. The operation must end soon after it
/// is cancelled.
public func withTimeLimit<Value: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimeLimitExceeded(limit: limit) }
        return value
    }
}
