import HLSPlaylist

/// How long an ad server took to answer one request, measured as near the wire as the HTTP client
/// lets the server see: from when each hop (the request, then each redirect) is handed to the HTTP
/// client to when the client gives back its response head, on the server's clock.
///
/// It leaves out the time the request spent in this server before it was sent (in the gate's
/// queue, waiting for its task to run once admitted, resolving the host) and after its head came
/// back (the body, the document's parse on ``BlockingWorkPool``): under load those are the
/// server's own delays, and the rate learner (``AdServerRateLearner``) would read them as the ad
/// server queueing. What it still holds: the HTTP client's wait for a connection (connecting is the
/// ad server's; a wait for one of the pool's busy connections happens only past its 256 per host)
/// and how late the event loop and the task that reads the head run.
struct WireTiming: Sendable {
    /// The time the hops answered so far took.
    private(set) var answered = MediaTime.zero
    /// When the hop in flight was handed to the HTTP client; nil when none is.
    private(set) var sent: MediaTime?

    /// Nothing sent yet.
    init() {}

    /// A hop was handed to the HTTP client at `now` (a retry of the same hop keeps the first time:
    /// the ad server's connection failed it).
    mutating func send(at now: MediaTime) {
        if sent == nil { sent = now }
    }

    /// The hop in flight got its response head at `now`.
    mutating func answer(at now: MediaTime) {
        guard let start = sent else { return }
        answered += max(.zero, now - start)
        sent = nil
    }

    /// The latency at `now`: the hops answered, and the one in flight up to `now` (a request that
    /// timed out waiting for its head); zero for a request never handed to the client.
    func latency(now: MediaTime) -> MediaTime {
        answered + (sent.map { max(.zero, now - $0) } ?? .zero)
    }
}
