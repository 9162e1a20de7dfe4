import HLSPlaylist

/// What the server has seen of one viewer session's requests on a live channel (its media
/// playlists and asset lists), and the rule, in this one place, for whether that session is
/// **playing**: whether the ad server's budget is spent on it ahead of a break (pure).
///
/// A player reloads a live media playlist about every target duration, at least half of one apart
/// (RFC 8216 §6.3.4), for as long as it plays; a made-up session ID named on one request does not.
/// So a session plays once its requests of the run it is in span at least the operator's
/// `prefetchPlayingSpan` (6 s by default, one target duration of the usual 6 s segments; 2 s
/// segments take three reloads, 10 s ones two): at least two requests, that far apart. A run
/// starts again when a request comes ``ViewerSessions/Limits/idle`` or longer after the one before
/// (the session had been forgotten). A span of zero makes every session seen a playing one.
///
/// Segment requests are not counted: most deployments serve segments from a CDN or the upstream
/// origin, players on other origins name their session on playlists only, and a segment request
/// costs a made-up session no more than a playlist request.
struct ViewerActivity: Hashable, Sendable {
    /// When the first request of the current run came.
    var since: MediaTime
    /// When the last request came.
    var last: MediaTime

    /// The activity of a session whose first request came at `now`.
    init(at now: MediaTime) {
        since = now
        last = now
    }

    /// The activity of a session first seen at `since` and last at `last`.
    init(since: MediaTime, last: MediaTime) {
        self.since = since
        self.last = last
    }

    /// This activity after a request at `now`: the run goes on, or starts again when the last request
    /// was `idle` or longer before. A request read from the clock a little before one recorded already
    /// (two threads) leaves the last request's time as it is.
    func requested(at now: MediaTime, idle: MediaTime) -> ViewerActivity {
        if now - last >= idle { return ViewerActivity(at: now) }
        return ViewerActivity(since: since, last: max(last, now))
    }

    /// Whether the session is playing: its requests of this run span at least `span`.
    func isPlaying(span: MediaTime) -> Bool {
        last - since >= span
    }
}
