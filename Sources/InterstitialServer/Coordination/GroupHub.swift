import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import PlaybackCoordination

/// The server's coordinated groups: one ``CoordinationGroup`` per name, reached over WebSocket at
/// `/group/NAME`, with the server's wall clock (nanoseconds since 1970) as the reference clock.
final class GroupHub: Sendable {
    struct Room: Sendable {
        var group: CoordinationGroup
        var connections: [String: AsyncStream<CoordinationMessage>.Continuation] = [:]
    }

    private let rooms = NIOLockedValueBox<[String: Room]>([:])
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Serves one WebSocket connection of group `name` until it closes.
    func serve(
        name: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        let (outgoing, continuation) = AsyncStream.makeStream(of: CoordinationMessage.self)
        var participant: String?
        defer {
            continuation.finish()
            if let participant { leave(name: name, participant) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in outgoing { try await outbound.write(.text(message.text)) }
            }
            for try await frame in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = frame else {
                    continuation.yield(.error("send JSON text frames"))
                    continue
                }
                let message: CoordinationMessage
                do throws(CoordinationError) {
                    message = try CoordinationMessage(text: text)
                } catch {
                    continuation.yield(.error(error.rendered(source: "message")))
                    continue
                }
                if case .ping(let sent) = message {
                    continuation.yield(.pong(sent: sent, time: GroupState.wallClockNow()))
                } else if let participant {
                    deliver(name: name) { $0.receive(message, from: participant, now: GroupState.wallClockNow()) }
                } else if case .join(let who) = message {
                    participant = join(name: name, who: who, connection: continuation)
                } else {
                    continuation.yield(.error("send a join message first"))
                }
            }
            group.cancelAll()
        }
    }

    private func join(
        name: String, who: String, connection: AsyncStream<CoordinationMessage>.Continuation
    ) -> String {
        var id = ""
        deliver(name: name) { group in
            let joined = group.join(name: who)
            id = joined.id
            return joined.outputs
        } register: { room in
            room.connections[id] = connection
        }
        logger.info("group \(name): \(id) (\(who)) joined")
        return id
    }

    private func leave(name: String, _ id: String) {
        deliver(name: name) {
            $0.leave(id, now: GroupState.wallClockNow())
        } register: {
            $0.connections.removeValue(forKey: id)
        }
        rooms.withLockedValue { rooms in
            if rooms[name]?.connections.isEmpty == true { rooms.removeValue(forKey: name) }
        }
        logger.info("group \(name): \(id) left")
    }

    /// Runs `change` on the room's group and queues its outputs on the connections, in order, under
    /// one lock (so every participant sees the group's order).
    private func deliver(
        name: String, _ change: (inout CoordinationGroup) -> [CoordinationGroup.Output],
        register: (inout Room) -> Void = { _ in }
    ) {
        rooms.withLockedValue { rooms in
            var room = rooms[name] ?? Room(group: CoordinationGroup(name: name))
            let outputs = change(&room.group)
            register(&room)
            for output in outputs {
                switch output {
                case .send(let to, let message): room.connections[to]?.yield(message)
                case .broadcast(let message): for connection in room.connections.values { connection.yield(message) }
                }
            }
            rooms[name] = room
        }
    }
}
