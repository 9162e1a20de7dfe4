import HLSPlaylist
import NIOConcurrencyHelpers
import PlaybackCoordination
import PlaybackEngine

/// A coordinated group whose participants live in this process, delivering messages synchronously
/// and in order: with players on one ``ManualClock`` a group plays deterministically (tests, or
/// several views of one stream in an application).
public final class InProcessCoordinationGroup: Sendable {
    struct State: Sendable {
        var group: CoordinationGroup
        var receivers: [String: @Sendable (CoordinationMessage) -> Void] = [:]
        var queue: [(to: String?, message: CoordinationMessage)] = []
        var delivering = false
    }

    private let state: NIOLockedValueBox<State>
    private let now: @Sendable () -> Int64

    /// Creates a group whose reference clock is `clock` (the players' ``ManualClock`` in a test).
    public init<C: Clock>(name: String = "local", clock: C) where C.Duration == Duration {
        state = NIOLockedValueBox(State(group: CoordinationGroup(name: name)))
        let origin = clock.now
        now = { origin.duration(to: clock.now).wholeNanoseconds }
    }

    /// A transport for one participant.
    public func transport() -> some CoordinationTransport { Transport(group: self, id: NIOLockedValueBox(nil)) }

    /// The participants' IDs.
    public var participants: [String] { state.withLockedValue { $0.group.participants } }

    func referenceNow() -> Int64 { now() }

    func join(name: String, receive: @escaping @Sendable (CoordinationMessage) -> Void) -> String {
        let id = state.withLockedValue { state -> String in
            let (id, outputs) = state.group.join(name: name)
            state.receivers[id] = receive
            enqueue(outputs, in: &state)
            return id
        }
        deliver()
        return id
    }

    func send(_ message: CoordinationMessage, from id: String) {
        let time = now()
        state.withLockedValue { state in enqueue(state.group.receive(message, from: id, now: time), in: &state) }
        deliver()
    }

    func leave(_ id: String) {
        let time = now()
        state.withLockedValue { state in
            state.receivers.removeValue(forKey: id)
            enqueue(state.group.leave(id, now: time), in: &state)
        }
        deliver()
    }

    private func enqueue(_ outputs: [CoordinationGroup.Output], in state: inout State) {
        for output in outputs {
            switch output {
            case .send(let to, let message): state.queue.append((to, message))
            case .broadcast(let message): state.queue.append((nil, message))
            }
        }
    }

    /// Delivers queued messages outside the lock, first in first out; a message sent while
    /// delivering is queued behind the others, so every participant sees the group's order.
    private func deliver() {
        let claimed = state.withLockedValue { state -> Bool in
            if state.delivering { return false }
            state.delivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let next = state.withLockedValue { state -> [@Sendable () -> Void]? in
                guard !state.queue.isEmpty else {
                    state.delivering = false
                    return nil
                }
                let (to, message) = state.queue.removeFirst()
                let targets = to.map { [state.receivers[$0]].compactMap { $0 } } ?? Array(state.receivers.values)
                return targets.map { receive in { receive(message) } }
            }
            guard let next else { return }
            for call in next { call() }
        }
    }

    struct Transport: CoordinationTransport {
        let group: InProcessCoordinationGroup
        let id: NIOLockedValueBox<String?>

        func connect(name: String, receive: @escaping @Sendable (CoordinationMessage) -> Void) async throws {
            // The ID is known before the welcome is handled: messages the welcome triggers need it.
            let joined = group.join(name: name) { message in
                if case .welcome(let participant, _, _) = message { id.withLockedValue { $0 = participant } }
                receive(message)
            }
            id.withLockedValue { $0 = joined }
        }

        func send(_ message: CoordinationMessage) {
            guard let participant = id.withLockedValue({ $0 }) else { return }
            group.send(message, from: participant)
        }

        func referenceNow() -> Int64 { group.referenceNow() }

        func disconnect() async {
            guard let participant = id.withLockedValue({ $0 }) else { return }
            id.withLockedValue { $0 = nil }
            group.leave(participant)
        }
    }
}
