/// Waits until `condition` holds, yielding between checks. The bound (10 minutes of real time) only
/// keeps a broken test from hanging the suite: a condition that holds returns at once, however
/// loaded the machine.
func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + .seconds(600)
    while ContinuousClock.now < end {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
