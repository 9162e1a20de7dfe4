import HLSInterstitials
import HLSPlaylist

/// An upcoming live break filled by a VAST ad server, with what deciding for it takes.
struct PrefetchBreak: Sendable {
    /// The break as the planner follows it.
    var upcoming: PrefetchPlanner.Upcoming
    /// Its channel's ad server settings.
    var settings: AdServerSettings
    /// Its effective duration.
    var duration: MediaTime
}
