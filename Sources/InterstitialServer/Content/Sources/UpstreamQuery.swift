/// Which of a viewer's query parameters an upstream request carries.
///
/// - A playlist request carries only the LL-HLS delivery directives an upstream origin needs
///   (`_HLS_msn`, `_HLS_part`, `_HLS_skip`), with well-formed values; everything else a viewer adds
///   (`?r=<random>`, tokens, cache busters) is dropped. The upstream URL, and so the sharing of its
///   fetch between viewers (``UpstreamPlaylistShare``), is keyed by what this keeps: a random query
///   cannot make each request a fetch of its own and take the origin's request slots from the
///   channel's viewers (issue 42, item 5).
/// - A media file request (a segment, an init section, a key) carries the viewer's query as it
///   came: such URIs are the upstream's own, often with its CDN's token, and each is one fetch
///   whatever its query (none is shared). A request with a query counts as the viewer's
///   (``UpstreamClient/fetch(_:playlist:viewerQuery:)``): it cannot take the slots kept for the
///   channel's own playlists.
enum UpstreamQuery {
    /// The parameters forwarded, each with the rule its value must meet.
    static let directives: [String: @Sendable (Substring) -> Bool] = [
        "_HLS_msn": isNumber, "_HLS_part": isNumber, "_HLS_skip": { $0 == "YES" || $0 == "v2" },
    ]

    /// The most digits of a media sequence or part number forwarded (an `UInt64` has at most 20).
    static let numberDigits = 19

    /// The parameters of `query` an upstream request for `path` carries: for a playlist, the LL-HLS
    /// directives with valid values (a directive with a bad value is dropped, not forwarded); for a
    /// media file, all of them.
    static func forwarded(_ query: [String: String], path: SafePath) -> [String: String] {
        guard isPlaylist(path) else { return query }
        return query.filter { key, value in directives[key].map { $0(Substring(value)) } ?? false }
    }

    /// Whether `path` names a playlist (`.m3u8`), whose fetches are shared between viewers.
    static func isPlaylist(_ path: SafePath) -> Bool { path.text.hasSuffix(".m3u8") }

    /// Whether `text` is a decimal number of 1 to ``numberDigits`` digits.
    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= numberDigits && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
