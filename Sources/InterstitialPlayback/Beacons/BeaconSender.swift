/// Sends ad tracking beacons for a ``Player`` (the URLs of SVTA2053-2 `X-AD-CREATIVE-SIGNALING`
/// tracking entries, macros filled).
///
/// The player calls it in a child task and never waits for it to go on playing; it bounds each
/// call with ``Player/Configuration/beaconTimeout`` and the calls in flight with
/// ``Player/Configuration/maximumBeaconsInFlight``. The default sends an HTTP GET with the player's
/// own HTTP loading (`HTTPBeaconSender`).
public protocol BeaconSender: Sendable {
    /// Requests `url`; returns the HTTP status when it is known (nil: a success whose status the
    /// sender does not know) or throws why it failed (a `LoadError` carries an HTTP status).
    func sendBeacon(to url: String) async throws -> Int?
}
