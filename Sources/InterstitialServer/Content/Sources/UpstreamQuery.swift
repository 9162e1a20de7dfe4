/// Which of a viewer's query parameters an upstream request carries: only the LL-HLS delivery
/// directives an upstream origin needs (`_HLS_msn`, `_HLS_part`, `_HLS_skip`), with well-formed
/// values; everything else a viewer adds (`?r=<random>`, tokens, cache busters) is dropped.
///
/// The upstream URL, and so the sharing of its fetch between viewers (``UpstreamPlaylistShare``),
/// is keyed by what this keeps: a random query cannot make each request a fetch of its own and
/// take the origin's request slots from the channel's viewers (issue 42, item 5).
enum UpstreamQuery {
    /// The parameters forwarded, each with the rule its value must meet.
    static let directives: [String: @Sendable (Substring) -> Bool] = [
        "_HLS_msn": isNumber, "_HLS_part": isNumber, "_HLS_skip": { $0 == "YES" || $0 == "v2" },
    ]

    /// The most digits of a media sequence or part number forwarded (an `UInt64` has at most 20).
    static let numberDigits = 19

    /// The parameters of `query` an upstream request carries: the LL-HLS directives with valid
    /// values (a directive with a bad value is dropped, not forwarded).
    static func forwarded(_ query: [String: String]) -> [String: String] {
        query.filter { key, value in directives[key].map { $0(Substring(value)) } ?? false }
    }

    /// Whether `text` is a decimal number of 1 to ``numberDigits`` digits.
    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= numberDigits && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
