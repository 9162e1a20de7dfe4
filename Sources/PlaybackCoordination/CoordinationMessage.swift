import HLSInterstitials
import HLSPlaylist

/// A message between a participant and its group, as sent over a transport (one JSON object per
/// WebSocket text frame: `{"type":"propose","state":{…}}`).
public enum CoordinationMessage: Hashable, Sendable {
    // Participant to group.
    /// Asks to join; the group answers ``welcome(participant:state:participants:)``.
    case join(name: String)
    /// Proposes a new state after a local command (play, pause, rate, seek…).
    case propose(GroupState)
    /// The participant started an interstitial group whose content may vary: it plays on its own.
    case suspend(group: String)
    /// The participant finished that group and waits at `resume` for the others.
    case arrive(group: String, resume: MediaTime)
    /// Asks for the reference clock; `sent` is the participant's own clock, echoed back.
    case ping(sent: Int64)

    // Group to participant.
    /// The participant's ID, the group's state (nil while nobody proposed one) and who is in.
    case welcome(participant: String, state: GroupState?, participants: [String])
    /// The group accepted a state.
    case state(GroupState)
    /// Every participant that played `group` on its own finished it: all resume together.
    case release(group: String, state: GroupState)
    /// Who is in the group now.
    case participants([String])
    /// The answer to a ping: the echoed `sent` and the reference clock's time.
    case pong(sent: Int64, time: Int64)
    /// A message could not be used.
    case error(String)

    /// The `type` member.
    public var type: String {
        switch self {
        case .join: "join"
        case .propose: "propose"
        case .suspend: "suspend"
        case .arrive: "arrive"
        case .ping: "ping"
        case .welcome: "welcome"
        case .state: "state"
        case .release: "release"
        case .participants: "participants"
        case .pong: "pong"
        case .error: "error"
        }
    }

    /// The JSON form.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["type": .string(type)]
        switch self {
        case .join(let name): members["name"] = .string(name)
        case .propose(let state), .state(let state): members["state"] = state.jsonValue
        case .suspend(let group): members["group"] = .string(group)
        case .arrive(let group, let resume):
            members["group"] = .string(group)
            members["resume"] = resume.json
        case .ping(let sent): members["sent"] = .integer(sent)
        case .welcome(let participant, let state, let participants):
            members["participant"] = .string(participant)
            members["state"] = state?.jsonValue ?? .null
            members["participants"] = .array(participants.map(JSONValue.string))
        case .release(let group, let state):
            members["group"] = .string(group)
            members["state"] = state.jsonValue
        case .participants(let participants): members["participants"] = .array(participants.map(JSONValue.string))
        case .pong(let sent, let time):
            members["sent"] = .integer(sent)
            members["time"] = .integer(time)
        case .error(let message): members["message"] = .string(message)
        }
        return .object(members)
    }

    /// The JSON text.
    public var text: String { jsonValue.description }

    /// Reads a message from JSON text.
    ///
    /// - Throws: ``CoordinationError`` with code `coordination-json` or `coordination-schema` and
    ///   the path of the problem.
    public init(text: some StringProtocol) throws(CoordinationError) {
        let code = CoordinationErrorCode.coordinationSchema
        var reader = try CoordinationReader(
            JSONValue.parse(Array(text.utf8), code: .coordinationJSON, as: CoordinationError.self), path: "",
            code: code)
        func state(_ key: String) throws(CoordinationError) -> GroupState {
            guard let value = reader.take(key) else { throw reader.error(key, "missing") }
            return try GroupState(json: value, path: key, code: code)
        }
        func names(_ key: String) throws(CoordinationError) -> [String] {
            var names: [String] = []
            for (index, item) in (try reader.array(key) ?? []).enumerated() {
                guard case .string(let name) = item else {
                    throw reader.error("\(key)[\(index)]", "expected a string, found \(item.typeName)")
                }
                names.append(name)
            }
            return names
        }
        let type = try reader.requiredString("type")
        switch type {
        case "join": self = .join(name: try reader.string("name") ?? "")
        case "propose": self = .propose(try state("state"))
        case "state": self = .state(try state("state"))
        case "suspend": self = .suspend(group: try reader.requiredString("group"))
        case "arrive":
            self = .arrive(group: try reader.requiredString("group"), resume: try reader.requiredSeconds("resume"))
        case "ping":
            guard let sent = try reader.integer("sent") else { throw reader.error("sent", "missing") }
            self = .ping(sent: sent)
        case "welcome":
            let participant = try reader.requiredString("participant")
            var current: GroupState?
            if let value = reader.take("state") { current = try GroupState(json: value, path: "state", code: code) }
            self = .welcome(participant: participant, state: current, participants: try names("participants"))
        case "release": self = .release(group: try reader.requiredString("group"), state: try state("state"))
        case "participants": self = .participants(try names("participants"))
        case "pong":
            guard let sent = try reader.integer("sent"), let time = try reader.integer("time") else {
                throw reader.error("time", "missing")
            }
            self = .pong(sent: sent, time: time)
        case "error": self = .error(try reader.string("message") ?? "")
        default:
            throw reader.error(
                "type",
                "unknown message type \"\(type)\" (join, propose, suspend, arrive, ping, welcome, state, release, participants, pong, error)"
            )
        }
        try reader.finish(known: "the members of a \(type) message")
    }
}
