import PlaybackCoordination

/// How a ``PlaybackCoordinator`` reaches its group: in process (``InProcessCoordinationGroup``) or
/// over a WebSocket through the server (``WebSocketCoordinationTransport``).
public protocol CoordinationTransport: Sendable {
    /// Joins the group as `name`; the group's messages go to `receive`, in order, starting with
    /// the welcome. Returns once joined.
    func connect(name: String, receive: @escaping @Sendable (CoordinationMessage) -> Void) async throws
    /// Sends a message to the group.
    func send(_ message: CoordinationMessage)
    /// The group's reference clock now, in nanoseconds (an estimate when the group is remote).
    func referenceNow() -> Int64
    /// Leaves the group.
    func disconnect() async
}
