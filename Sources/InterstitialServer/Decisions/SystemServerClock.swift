import Foundation
import HLSPlaylist
import NIOCore

/// The server's clock in production: ``now`` is the system's uptime clock (NIO's, so that the
/// deadlines handed to the HTTP client agree with it), ``wall`` the system's date unless another is
/// given (a test's fixed date), ``sleep(for:)`` `Task.sleep`, and ``wake(at:on:_:)`` a task the
/// event loop schedules.
struct SystemServerClock: ServerClock {
    /// The wall clock.
    var date: @Sendable () -> DateTime = { DateTime(Date()) }

    /// The uptime clock's time.
    var now: MediaTime { MediaTime(nanoseconds: Int64(clamping: NIODeadline.now().uptimeNanoseconds)) }

    /// The date now.
    var wall: DateTime { date() }

    /// `Task.sleep` for `duration` (nothing for a duration not above zero).
    func sleep(for duration: MediaTime) async throws {
        guard duration > .zero else { return }
        try await Task.sleep(nanoseconds: UInt64(duration.nanoseconds))
    }

    /// `body`, scheduled on `eventLoop` at `time` (``now`` is the event loop's uptime clock).
    func wake(
        at time: MediaTime, on eventLoop: any EventLoop, _ body: @escaping @Sendable () -> Void
    ) -> ServerClockAlarm {
        let deadline = NIODeadline.uptimeNanoseconds(UInt64(max(0, time.nanoseconds)))
        let scheduled = eventLoop.scheduleTask(deadline: deadline) { body() }
        return ServerClockAlarm { scheduled.cancel() }
    }
}
