import HLSInterstitials

/// The `User-Agent` patterns that select the stitched form (`stitchedUserAgents` in the
/// configuration), so one URL serves every device: a request without an `ads` parameter whose user
/// agent contains one of them, compared without case, gets the stitched form.
///
/// Patterns are plain substrings, not regular expressions, so matching costs at most the user
/// agent's length times the patterns' (no backtracking): at most ``maximumCount`` patterns of 1 to
/// ``maximumBytes`` bytes of printable ASCII.
struct StitchedUserAgents: Sendable, Hashable {
    /// The most patterns.
    static let maximumCount = 64
    /// The longest pattern, in bytes.
    static let maximumBytes = 128

    /// The patterns, lowercased.
    private(set) var patterns: [String]

    /// No pattern: only `ads=stitched` selects the stitched form.
    static let none = StitchedUserAgents(checked: [])

    private init(checked: [String]) { patterns = checked }

    /// The patterns of `values`, checked.
    ///
    /// - Throws: the index and reason of the first pattern that is empty, too long or not
    ///   printable ASCII, or that there are too many.
    init(_ values: [String]) throws(StitchedUserAgents.Invalid) {
        guard values.count <= Self.maximumCount else {
            throw Invalid(index: nil, reason: "at most \(Self.maximumCount) patterns, found \(values.count)")
        }
        var patterns: [String] = []
        for (index, value) in values.enumerated() {
            guard !value.isEmpty, value.utf8.count <= Self.maximumBytes else {
                throw Invalid(index: index, reason: "a pattern has 1 to \(Self.maximumBytes) bytes")
            }
            guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw Invalid(index: index, reason: "a pattern is printable ASCII (a substring of the User-Agent)")
            }
            patterns.append(value.lowercased())
        }
        self.patterns = patterns
    }

    /// Why a list of patterns is refused.
    struct Invalid: Error, Sendable {
        /// The position of the pattern refused; nil for the list.
        var index: Int?
        /// Why.
        var reason: String
    }

    /// Whether `userAgent` contains one of the patterns, without case.
    func matches(_ userAgent: String?) -> Bool {
        guard !patterns.isEmpty, let userAgent, !userAgent.isEmpty else { return false }
        let lowered = userAgent.lowercased()
        return patterns.contains { lowered.contains($0) }
    }
}
