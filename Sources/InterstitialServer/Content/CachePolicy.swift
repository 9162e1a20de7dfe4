/// The `Cache-Control` of each kind of response: how long a player or a CDN may reuse it.
///
/// Live media playlists change every segment, so they are kept for half a target duration (a
/// reload never sees a window older than that). VOD playlists and media segments do not change
/// while served, so they are kept for long; an operator who edits a VOD's breaks sees players pick
/// them up within ``vodPlaylist``'s age (players that revalidate with `If-None-Match` get `304`
/// while nothing changed). Asset lists are decided per request and never stored.
///
/// Every `Cache-Control` the server sends is one of these (`docs/http.md`, "Caching"); an answer
/// that names none is never stored (``HTTPSemanticsMiddleware``).
enum CachePolicy {
    /// Media segments, init sections and ad media: a day.
    static let media = "public, max-age=86400"
    /// VOD playlists (multivariant and media): an hour.
    static let vodPlaylist = "public, max-age=3600"
    /// Asset lists and API answers: never stored.
    static let noStore = "no-store"
    /// Pages and documents that change with the server's state: stored, but revalidated each time.
    static let revalidate = "no-cache"
    /// A published Date Range Schedule's document by ID (`schedule.json?id=…`): its ID is derived
    /// from its bytes, so it never changes; a day.
    static let publishedSchedule = "public, max-age=86400"
    /// Media passed through from an upstream origin: a minute (the origin may change it).
    static let proxiedMedia = "public, max-age=60"

    /// A live playlist: half its target duration, at least one second.
    static func livePlaylist(targetDuration: UInt64?) -> String {
        "public, max-age=\(max(1, (targetDuration ?? 2) / 2))"
    }
}
