import HLSPlaylist

/// A coordinated group as a value: the hub that participants talk to, over any transport.
///
/// It accepts proposals in order (each one a new ``GroupState`` with the next revision, sent to
/// everyone) and holds the barrier for interstitials whose content may vary: participants that play
/// such an event on their own report ``CoordinationMessage/suspend(group:)`` and
/// ``CoordinationMessage/arrive(group:resume:)``, and when every participant of the barrier has
/// arrived the group resumes together, at the earliest resumption point reported (nobody misses
/// primary content), from the reference time of the last arrival.
///
/// A participant that played an event nobody else did (a late joiner's pre-roll) is released alone
/// to the group's current state instead.
public struct CoordinationGroup: Sendable {
    /// What to send.
    public enum Output: Hashable, Sendable {
        /// To one participant.
        case send(to: String, CoordinationMessage)
        /// To every participant.
        case broadcast(CoordinationMessage)
    }

    struct Member: Sendable {
        var id: String
        var name: String
        /// The event group it plays on its own, if any.
        var suspended: String?
        /// Where it waits to resume, once it finished that group.
        var arrived: MediaTime?
    }

    /// The group's name.
    public let name: String
    /// The accepted state; nil until a participant proposed one (and again once everyone left).
    public private(set) var state: GroupState?
    private var members: [Member] = []
    private var nextID = 0

    /// Creates an empty group.
    public init(name: String) { self.name = name }

    /// The participants' IDs, in joining order.
    public var participants: [String] { members.map(\.id) }

    /// Adds a participant; returns its ID and what to send (its welcome, everyone's new list).
    public mutating func join(name: String) -> (id: String, outputs: [Output]) {
        nextID += 1
        let id = "p\(nextID)"
        members.append(Member(id: id, name: name))
        return (
            id,
            [
                .send(to: id, .welcome(participant: id, state: state, participants: participants)),
                .broadcast(.participants(participants)),
            ]
        )
    }

    /// Removes a participant; a barrier it held may complete.
    public mutating func leave(_ id: String, now: Int64) -> [Output] {
        guard let index = members.firstIndex(where: { $0.id == id }) else { return [] }
        let group = members[index].suspended
        members.remove(at: index)
        if members.isEmpty {
            state = nil
            return []
        }
        var outputs: [Output] = [.broadcast(.participants(participants))]
        if let group { outputs += checkBarrier(group, now: now) }
        return outputs
    }

    /// Handles a message from participant `id` at reference time `now` (nanoseconds).
    public mutating func receive(_ message: CoordinationMessage, from id: String, now: Int64) -> [Output] {
        guard let index = members.firstIndex(where: { $0.id == id }) else {
            return [.send(to: id, .error("not a participant of group \"\(name)\""))]
        }
        switch message {
        case .propose(var proposed):
            proposed.revision = (state?.revision ?? 0) + 1
            proposed.originator = id
            state = proposed
            return [.broadcast(.state(proposed))]
        case .suspend(let group):
            members[index].suspended = group
            members[index].arrived = nil
            return []
        case .arrive(let group, let resume):
            members[index].suspended = group
            members[index].arrived = resume
            return checkBarrier(group, now: now)
        case .ping(let sent):
            return [.send(to: id, .pong(sent: sent, time: now))]
        case .join:
            return [.send(to: id, .error("already in group \"\(name)\" as \(id)"))]
        case .welcome, .state, .release, .participants, .pong, .error:
            return [.send(to: id, .error("a participant cannot send a \(message.type) message"))]
        }
    }

    /// Releases the barrier of `group` once all its participants arrived.
    private mutating func checkBarrier(_ group: String, now: Int64) -> [Output] {
        let waiting = members.filter { $0.suspended == group }
        guard !waiting.isEmpty, waiting.allSatisfy({ $0.arrived != nil }) else { return [] }
        for index in members.indices where members[index].suspended == group {
            members[index].suspended = nil
            members[index].arrived = nil
        }
        if waiting.count < members.count, let state {
            // Out of step: only these participants played the event; they rejoin the group.
            return waiting.map { .send(to: $0.id, .release(group: group, state: state)) }
        }
        let resume = waiting.compactMap(\.arrived).min() ?? .zero
        let released = GroupState(
            revision: (state?.revision ?? 0) + 1, originator: "group", playing: state?.playing ?? true,
            rate: state?.rate ?? 1, location: .primary(resume, after: group), referenceTime: now)
        state = released
        return [.broadcast(.release(group: group, state: released))]
    }
}
