import HLSInterstitials

/// Why a coordination message or a hand-off session could not be read, or a hand-off or a group
/// could not be reached: a stable code, the JSON path (or the URL) and what is wrong.
///
/// The project's one located error type (`LocatedJSONError`), rendered as every JSON error of the
/// project (`JSONPathError`): `events[1].tag: expected a string, found a number`, and
/// `session.json: error: [session-schema] events[1].tag: …` on a command line.
public typealias CoordinationError = LocatedJSONError<CoordinationErrorCode>

/// The stable codes of ``CoordinationError``.
public enum CoordinationErrorCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A coordination message is not JSON.
    case coordinationJSON = "coordination-json"
    /// A coordination message is JSON of the wrong shape.
    case coordinationSchema = "coordination-schema"
    /// A hand-off session is not JSON.
    case sessionJSON = "session-json"
    /// A hand-off session is JSON of the wrong shape.
    case sessionSchema = "session-schema"
    /// A session could not be handed off (the server could not be reached, or refused it).
    case handoffSend = "handoff-send"
    /// No session could be received from a hand-off (unreachable, refused, or none in time).
    case handoffReceive = "handoff-receive"
    /// The player could not join its coordination group.
    case groupConnect = "group-connect"

    /// The code as written.
    public var description: String { rawValue }
}
