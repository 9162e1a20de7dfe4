/// The peer cases whose assertions differ from the toolkit's results for a documented reason: the
/// peer's own rule (from the case's `source.txt` and the corpus README) or a rule of
/// docs/behavior-profile.md. ``PeerCorpusTests`` fails on a difference that is not listed here, and
/// on a listed case that agrees.
enum PeerDifferences {
    /// Reasons by case (`peer/case`).
    static let documented: [String: String] = [:]
}
