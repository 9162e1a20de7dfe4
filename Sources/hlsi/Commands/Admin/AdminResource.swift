import ArgumentParser
import Foundation

/// The resources of the admin API and the IDs and targets in their paths, as `hlsi admin` names them.
enum AdminResource {
    /// The path segment of a resource name: `schedule(s)`, `break(s)`, `ad(s)`, `inventory` or
    /// `content`.
    static func path(_ name: String) throws -> String {
        switch name {
        case "schedule", "schedules": return "schedules"
        case "break", "breaks": return "breaks"
        case "ad", "ads", "inventory": return "inventory"
        case "content": return "content"
        default: throw ValidationError("unknown resource \"\(name)\": use schedule, break or ad")
        }
    }

    /// An ID or target as it goes into a path: letters, digits and `-_./`, no `..`.
    static func key(_ text: String) throws -> String {
        guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "-_./".contains($0) }),
            !text.contains("..")
        else { throw ValidationError("\"\(text)\" is not an ID or target") }
        return text
    }

    /// `?target=TARGET`, percent-encoded, or nothing.
    static func query(target: String?) -> String {
        guard let target else { return "" }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./"))
        return "?target=" + (target.addingPercentEncoding(withAllowedCharacters: allowed) ?? target)
    }
}
