import Dispatch
import NIOConcurrencyHelpers

/// A few dedicated threads for blocking work (VAST parsing, host name lookups), so that none of it
/// runs on Swift concurrency's cooperative pool.
///
/// Work queues on the least busy of `threads` serial queues, at most `capacity` items each; a caller
/// whose task is cancelled stops waiting at once (work not yet started is skipped, work already
/// running finishes unobserved), so a deadline is never held up by a slow item.
final class BlockingWorkPool: Sendable {
    /// The pool for VAST documents and host name lookups of ad-server fetches.
    static let adServers = BlockingWorkPool(label: "hlsi.ad-servers", threads: 4, capacity: 256)

    private let queues: [DispatchQueue]
    private let capacity: Int
    private let queued: NIOLockedValueBox<[Int]>

    /// Creates a pool of `threads` serial queues holding at most `capacity` items each.
    init(label: String, threads: Int, capacity: Int) {
        queues = (0..<max(1, threads)).map { DispatchQueue(label: "\(label).\($0)") }
        self.capacity = max(1, capacity)
        queued = NIOLockedValueBox(Array(repeating: 0, count: max(1, threads)))
    }

    /// Runs `body` on one of the pool's threads and returns its result; nil when the calling task is
    /// cancelled first or every queue is full.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        let index: Int? = queued.withLockedValue { counts in
            guard let least = counts.indices.min(by: { counts[$0] < counts[$1] }), counts[least] < capacity else {
                return nil
            }
            counts[least] += 1
            return least
        }
        guard let index else { return nil }
        let ticket = Ticket<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                guard ticket.wait(continuation) else {
                    queued.withLockedValue { $0[index] -= 1 }
                    continuation.resume(returning: nil)
                    return
                }
                queues[index].async {
                    defer { self.queued.withLockedValue { $0[index] -= 1 } }
                    guard ticket.isWaiting else { return }
                    ticket.finish(body())
                }
            }
        } onCancel: {
            ticket.abandon()
        }
    }

    /// One item's hand-over: the continuation is resumed once, by the result or by cancellation.
    private final class Ticket<T: Sendable>: Sendable {
        private enum State {
            case initial
            case waiting(CheckedContinuation<T?, Never>)
            case over
        }

        private let state = NIOLockedValueBox(State.initial)

        /// Stores the continuation; false when the caller was cancelled already.
        func wait(_ continuation: CheckedContinuation<T?, Never>) -> Bool {
            state.withLockedValue { state in
                guard case .initial = state else { return false }
                state = .waiting(continuation)
                return true
            }
        }

        /// Whether someone still waits for the result.
        var isWaiting: Bool {
            state.withLockedValue { if case .waiting = $0 { true } else { false } }
        }

        func finish(_ value: T) { take()?.resume(returning: value) }

        func abandon() { take()?.resume(returning: nil) }

        private func take() -> CheckedContinuation<T?, Never>? {
            state.withLockedValue { state in
                defer { state = .over }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
        }
    }
}
