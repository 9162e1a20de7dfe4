import HLSLoading
import NIOConcurrencyHelpers
import Testing

/// The time limits of I/O: ``withTimeLimitAbandoning(_:_:)`` answers at its deadline even when the
/// operation does not stop when cancelled.
@Suite("Time limits")
struct TimeLimitTests {
    /// A gate an operation waits at, ignoring cancellation, until it is opened.
    final class Gate: Sendable {
        private let waiting = NIOLockedValueBox<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = waiting.withLockedValue { state in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiters = waiting.withLockedValue { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    @Test("an operation that ignores cancellation: the caller gets TimeLimitExceeded while it still runs")
    func abandons() async throws {
        let gate = Gate()
        let finished = NIOLockedValueBox(false)
        await #expect(throws: TimeLimitExceeded.self) {
            try await withTimeLimitAbandoning(.milliseconds(50)) {
                await gate.wait()
                finished.withLockedValue { $0 = true }
                return 1
            }
        }
        #expect(!finished.withLockedValue { $0 }, "answered before the operation ended")
        gate.open()
    }

    @Test("an operation that finishes in time gives its value, or its error")
    func inTime() async throws {
        #expect(try await withTimeLimitAbandoning(.seconds(60)) { 42 } == 42)
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await withTimeLimitAbandoning(.seconds(60)) { () async throws -> Int in throw Failure() }
        }
    }
}
