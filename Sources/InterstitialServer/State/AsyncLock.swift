import NIOConcurrencyHelpers

/// A lock for async code: one holder at a time, the others suspend (no thread blocks) and get it
/// in the order they asked.
final class AsyncLock: Sendable {
    private struct State {
        var isLocked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Whether someone holds the lock.
    var isLocked: Bool { state.withLockedValue { $0.isLocked } }

    /// Runs `body` holding the lock.
    func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }

    private func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLockedValue { state in
                if state.isLocked {
                    state.waiters.append(continuation)
                    return false
                }
                state.isLocked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    private func unlock() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.isLocked = false
            return nil
        }
        next?.resume()
    }
}
