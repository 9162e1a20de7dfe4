import HLSPlaylist

/// What a schedule is computed from: the primary media playlist, the events, and what playback has
/// learned so far (resolved asset lists, failed loads, played durations).
public struct ScheduleInput: Sendable {
    /// The primary media playlist: its segments map dates to times (profile R1) and give its length.
    public var primary: MediaPlaylist
    /// The other media playlists that contribute to playback (audio, subtitles), for X-SNAP (R6).
    public var otherPlaylists: [MediaPlaylist]
    /// The events in tag order (server) or array order (a controller's events).
    public var events: [InterstitialEvent]
    /// IDs of events whose asset list or X-ASSET-URI failed to load: they play nothing and resume
    /// with offset 0 (R7).
    public var failedEvents: Set<String>
    /// The time each event actually played, once known (R3, R10).
    public var playedDurations: [String: MediaTime]
    /// Whether the primary is live (R23); by default, whether it lacks EXT-X-ENDLIST.
    public var isLive: Bool
    /// Where playback starts on the primary timeline (a VOD start position, a live join); nil: the
    /// start of the primary. An event that starts before it plays only if it covers it, from that
    /// offset (R26); CUE=PRE events play there (R9).
    public var playbackStart: MediaTime?

    /// Creates an input.
    public init(
        primary: MediaPlaylist, otherPlaylists: [MediaPlaylist] = [], events: [InterstitialEvent],
        failedEvents: Set<String> = [], playedDurations: [String: MediaTime] = [:], isLive: Bool? = nil,
        playbackStart: MediaTime? = nil
    ) {
        self.playbackStart = playbackStart
        self.primary = primary
        self.otherPlaylists = otherPlaylists
        self.events = events
        self.failedEvents = failedEvents
        self.playedDurations = playedDurations
        self.isLive = isLive ?? primary.isLive
    }

    /// The interstitial events of a playlist's date ranges, in tag order.
    ///
    /// An interstitial asset's own interstitials are never scheduled: "Interstitials scheduled inside
    /// other interstitials MUST be ignored by clients" (App. D.1; profile R25).
    public static func events(of playlist: MediaPlaylist, isInterstitialAsset: Bool = false) -> [InterstitialEvent] {
        isInterstitialAsset ? [] : playlist.dateRanges.compactMap(InterstitialEvent.init(dateRange:))
    }
}
