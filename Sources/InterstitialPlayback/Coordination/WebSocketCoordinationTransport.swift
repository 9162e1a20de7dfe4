import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import PlaybackCoordination

/// Reaches a coordinated group through the server's WebSocket endpoint (`ws://host/group/NAME`),
/// one JSON message per text frame.
///
/// The group's reference clock is the server's wall clock: on connecting, the transport sends
/// pings and keeps the offset measured with the shortest round trip (half the round trip is the
/// error bound), then joins.
public final class WebSocketCoordinationTransport: CoordinationTransport {
    struct State: Sendable {
        var outgoing: AsyncStream<CoordinationMessage>.Continuation?
        var offset: Int64 = 0
        var bestRoundTrip: Int64 = .max
        var connection: Task<Void, Never>?
        var joined: CheckedContinuation<Void, any Error>?
        var closing = false
    }

    /// The group's WebSocket URL.
    public let url: String
    let logger: Logger
    let state = NIOLockedValueBox(State())
    /// How many pings measure the clock offset.
    static let pings = 5

    /// Creates a transport for the group at `url` (`ws://host:port/group/NAME`).
    public init(url: String, logger: Logger = Logger(label: "hlsi.coordination")) {
        self.url = url
        self.logger = logger
    }

    public func referenceNow() -> Int64 { GroupState.wallClockNow() + state.withLockedValue { $0.offset } }

    public func send(_ message: CoordinationMessage) {
        _ = state.withLockedValue { $0.outgoing }?.yield(message)
    }

    public func connect(name: String, receive: @escaping @Sendable (CoordinationMessage) -> Void) async throws {
        let (outgoing, continuation) = AsyncStream.makeStream(of: CoordinationMessage.self)
        state.withLockedValue { $0.outgoing = continuation }
        for _ in 0..<Self.pings { continuation.yield(.ping(sent: GroupState.wallClockNow())) }
        continuation.yield(.join(name: name))
        try await withCheckedThrowingContinuation { (joined: CheckedContinuation<Void, any Error>) in
            state.withLockedValue { $0.joined = joined }
            let task = Task { [url, logger] in
                var failure: (any Error)?
                do {
                    try await WebSocketClient.connect(url: url, logger: logger) { inbound, outbound, _ in
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for await message in outgoing { try await outbound.write(.text(message.text)) }
                                try await outbound.close(.normalClosure, reason: nil)
                            }
                            for try await frame in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = frame else { continue }
                                self.handle(text, receive: receive)
                            }
                            group.cancelAll()
                        }
                    }
                } catch {
                    failure = error
                }
                let (waiting, closing) = self.state.withLockedValue { state in
                    defer { state.joined = nil }
                    return (state.joined, state.closing)
                }
                let reason = failure.map { "\($0)" } ?? "closed by the server"
                if let waiting {
                    waiting.resume(
                        throwing: CoordinationError(
                            code: .groupConnect, path: url, "could not join the group: \(reason)"))
                } else if !closing {
                    logger.warning("the group connection to \(url) ended: \(reason)")
                    receive(.error("the group connection ended: \(reason)"))
                }
            }
            state.withLockedValue { $0.connection = task }
        }
    }

    /// Reads one frame: pongs tune the clock offset, the welcome completes the join, everything
    /// goes to the coordinator.
    func handle(_ text: String, receive: @Sendable (CoordinationMessage) -> Void) {
        let message: CoordinationMessage
        do {
            message = try CoordinationMessage(text: text)
        } catch {
            logger.warning("ignored a group message: \(error)")
            return
        }
        switch message {
        case .pong(let sent, let time):
            let now = GroupState.wallClockNow()
            state.withLockedValue { state in
                let roundTrip = now - sent
                guard roundTrip >= 0, roundTrip < state.bestRoundTrip else { return }
                state.bestRoundTrip = roundTrip
                state.offset = time - (sent + roundTrip / 2)
            }
        case .welcome:
            let joined = state.withLockedValue { state in
                defer { state.joined = nil }
                return state.joined
            }
            receive(message)
            joined?.resume()
        default:
            receive(message)
        }
    }

    public func disconnect() async {
        let (outgoing, task) = state.withLockedValue { state in
            defer {
                state.outgoing = nil
                state.closing = true
            }
            return (state.outgoing, state.connection)
        }
        outgoing?.finish()
        await task?.value
    }
}
