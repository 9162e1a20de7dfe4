import HLSInterstitials
import HLSPlaylist

/// Where a participant is on the item, in terms every participant understands: a primary time, or
/// a point inside an interstitial event.
public enum CoordinatedLocation: Hashable, Sendable, CustomStringConvertible {
    /// Primary at `time`; `after` names an event group that starts at `time` and has already
    /// played there, so it does not fire again.
    case primary(MediaTime, after: String? = nil)
    /// Inside the interstitial group that starts with event `group`: its member `event`, `offset`
    /// into it; `resume` is where primary resumes instead of the group's own resumption point (a
    /// JUMP seek's target or a cancel's offset).
    case interstitial(group: String, event: String, offset: MediaTime, resume: MediaTime?)

    /// The primary time, or nil inside an interstitial.
    public var primaryTime: MediaTime? {
        if case .primary(let time, _) = self { return time }
        return nil
    }

    /// How far apart two locations are: between primary times, or between offsets in the same
    /// event; nil when they are not comparable (primary and an interstitial, or two events).
    public func distance(to other: CoordinatedLocation) -> MediaTime? {
        switch (self, other) {
        case (.primary(let a, _), .primary(let b, _)): return a > b ? a - b : b - a
        case (.interstitial(_, let e1, let a, _), .interstitial(_, let e2, let b, _)) where e1 == e2:
            return a > b ? a - b : b - a
        default: return nil
        }
    }

    /// `primary 12.000` or `interstitial midroll-1 +1.500`.
    public var description: String {
        switch self {
        case .primary(let time, _): "primary \(time.formatted(fractionDigits: 3))"
        case .interstitial(_, let event, let offset, _): "interstitial \(event) +\(offset.formatted(fractionDigits: 3))"
        }
    }

    /// The JSON form: `{"primary": 12}` (with `"after"`), or
    /// `{"group": "midroll-1", "event": "midroll-1", "offset": 1.5}` (with `"resume"`).
    public var jsonValue: JSONValue {
        switch self {
        case .primary(let time, let after):
            var members: [String: JSONValue] = ["primary": time.json]
            if let after { members["after"] = .string(after) }
            return .object(members)
        case .interstitial(let group, let event, let offset, let resume):
            var members: [String: JSONValue] = [
                "group": .string(group), "event": .string(event), "offset": offset.json,
            ]
            if let resume { members["resume"] = resume.json }
            return .object(members)
        }
    }

    /// Reads the JSON form at `path`.
    init(json: JSONValue, path: String, code: CoordinationErrorCode) throws(CoordinationError) {
        var reader = try CoordinationReader(json, path: path, code: code)
        if let time = try reader.seconds("primary") {
            let after = try reader.string("after")
            try reader.finish(known: "primary, after")
            self = .primary(time, after: after)
            return
        }
        let group = try reader.requiredString("group")
        let event = try reader.requiredString("event")
        let offset = try reader.requiredSeconds("offset")
        let resume = try reader.seconds("resume")
        try reader.finish(known: "primary and after, or group, event, offset and resume")
        self = .interstitial(group: group, event: event, offset: offset, resume: resume)
    }
}
