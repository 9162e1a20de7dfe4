import HLSPlaylist
import NIOCore

/// The one conversion between the server's clock and `NIODeadline`, the uptime clock that
/// async-http-client and NIO time their requests out on.
///
/// The server decides on ``ServerClock/now``; a request handed to an HTTP client needs a
/// `NIODeadline`. These two functions are the only place the server reads `NIODeadline.now()`
/// (``SystemServerClock`` aside): a deadline keeps the time left on the server's clock, so with a
/// ``ManualServerClock`` a test's deadline is where the test put it, and the client's own
/// timeout is that much real time from when the request is made.
extension ServerClock {
    /// The `NIODeadline` at which this clock reaches `time`: the time left until then (none when
    /// it passed) from the uptime clock's now.
    func deadline(at time: MediaTime) -> NIODeadline {
        let left = time - now
        guard left > .zero else { return .now() }
        guard left < MediaTime(seconds: 100 * 365 * 86_400) else { return .distantFuture }
        return .now() + .nanoseconds(left.nanoseconds)
    }

    /// The `NIODeadline` `duration` from now on this clock (``deadline(at:)``).
    func deadline(after duration: MediaTime) -> NIODeadline {
        deadline(at: now + duration)
    }

    /// This clock's time at `deadline`: now plus what is left until it on the uptime clock
    /// (negative when it passed); the inverse of ``deadline(at:)``.
    func time(of deadline: NIODeadline) -> MediaTime {
        let nanoseconds = Int64(clamping: deadline.uptimeNanoseconds)
        let uptime = Int64(clamping: NIODeadline.now().uptimeNanoseconds)
        return now + (MediaTime(nanoseconds: nanoseconds) - MediaTime(nanoseconds: uptime))
    }
}
