/// A wake-up set on a ``ServerClock`` (``ServerClock/wake(at:on:_:)``): cancelled on its event
/// loop, its body does not run.
struct ServerClockAlarm: Sendable {
    private let stop: @Sendable () -> Void

    /// An alarm that `cancel` stops.
    init(cancel: @escaping @Sendable () -> Void) {
        stop = cancel
    }

    /// Stops the alarm: its body does not run, unless it already did.
    func cancel() {
        stop()
    }
}
