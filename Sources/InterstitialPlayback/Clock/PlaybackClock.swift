/// The clock a player runs on, as two closures over time since the player was created.
///
/// Any `Clock` with `Duration` steps works; a ``ManualClock`` makes the player virtual: it advances
/// the clock itself, from one deadline to the next, once no load is in flight.
struct PlaybackClock: Sendable {
    /// Time since the player's origin.
    let now: @Sendable () -> Duration
    /// Sleeps until a time since the origin.
    let sleep: @Sendable (Duration) async throws -> Void
    /// The manual clock, when the player is virtual.
    let manual: ManualClock?
    /// The manual clock's ``ManualClock/elapsed`` when the player was created (0 on other clocks).
    let origin: Duration

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        if let manual = clock as? ManualClock {
            let origin = manual.now
            self.now = { origin.duration(to: manual.now) }
            self.sleep = { try await manual.sleep(until: origin.advanced(by: $0)) }
            self.manual = manual
            self.origin = origin.offset
            return
        }
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        self.sleep = { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
        self.manual = nil
        self.origin = .zero
    }

    /// Moves a manual clock to `time` since the origin.
    func advance(to time: Duration) {
        guard let manual else { return }
        let current = now()
        if time > current { manual.advance(by: time - current) }
    }
}
