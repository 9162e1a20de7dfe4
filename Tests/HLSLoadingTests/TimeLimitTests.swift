import HLSLoading
import NIOConcurrencyHelpers
import Testing

/// The time limits of I/O: ``withTimeLimitAbandoning(_:sleep:_:)`` answers at its deadline even when the
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
        let timer = ManualTimer()
        let finished = NIOLockedValueBox(false)
        async let limited: Int = withTimeLimitAbandoning(.seconds(5), sleep: timer.sleep) {
            await gate.wait()
            finished.withLockedValue { $0 = true }
            return 1
        }
        let waiting = try await eventually { timer.sleepers == 1 }
        #expect(waiting, "the limit waits on the clock")
        timer.advance(by: .seconds(5))
        do {
            _ = try await limited
            Issue.record("no TimeLimitExceeded")
        } catch {
            #expect(error as? TimeLimitExceeded == TimeLimitExceeded(limit: .seconds(5)), "\(error)")
        }
        #expect(!finished.withLockedValue { $0 }, "answered before the operation ended")
        gate.open()
    }

    @Test("withTimeLimit waits on the clock it is given: its operation is cancelled when that clock passes the limit")
    func onItsClock() async throws {
        let timer = ManualTimer()
        async let limited: Int = withTimeLimit(.seconds(5), sleep: timer.sleep) {
            try await Task.sleep(for: .seconds(86_400))
            return 1
        }
        let waiting = try await eventually { timer.sleepers == 1 }
        #expect(waiting, "the limit waits on the clock")
        timer.advance(by: .seconds(4))
        #expect(timer.sleepers == 1, "not yet at the limit")
        timer.advance(by: .seconds(1))
        do {
            _ = try await limited
            Issue.record("no TimeLimitExceeded")
        } catch {
            #expect(error as? TimeLimitExceeded == TimeLimitExceeded(limit: .seconds(5)), "\(error)")
        }
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
