/// A relative path from a URL, checked so that it cannot leave the directory it is resolved in.
struct SafePath: Hashable, Sendable {
    /// The checked components.
    let components: [Substring]

    /// Refuses empty, `.` and `..` components, percent escapes, backslashes and control characters.
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Substring($0) }
        guard !parts.isEmpty, parts.count <= 16 else { return nil }
        for part in parts {
            guard !part.isEmpty, part != ".", part != "..", part.utf8.count <= 255,
                part.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != 0x25 && $0 != 0x5C })
            else { return nil }
        }
        components = parts
    }

    /// `components` joined with `/`.
    var text: String { components.joined(separator: "/") }

    /// The folder part, ending with `/` (empty for a bare name), to resolve relative references.
    var directory: String { components.dropLast().map { $0 + "/" }.joined() }

    /// The file under `directory`.
    func file(in directory: String) -> String { directory + "/" + text }
}
