import HLSPlaylist
import PlaybackCoordination

/// The configuration an application gives the items of the interstitial player, as AVFoundation's
/// `templatePlayerItem` does: one value the application sets on the player and reads back, copied
/// into every interstitial item made from then on.
///
/// Changes apply from the next asset list requested, asset loaded or event started; an event that
/// plays keeps the limits it started with until its next asset.
public struct InterstitialItemTemplate: Sendable, Hashable {
    /// The audio and subtitles interstitial assets select; nil (the default) matches the primary's
    /// current selection (`TrackMatcher`: languages of assets are "RECOMMENDED" to match the
    /// primary's, App. D).
    public var preferredTracks: TrackSelection?
    /// How far ahead of an event its asset list is requested (R18).
    public var lookahead: MediaTime
    /// Whether an event's asset list is requested again each time the event plays again (a seek
    /// back before it, a JUMP replay): client rebinding, so that the ad decision server can choose
    /// anew. Off by default: a played event plays the assets it had (R18).
    public var rebindsAssetLists: Bool
    /// The most assets of an event's list that play; nil: all of them.
    public var maximumAssetCount: Int?
    /// The longest an event plays, as if it carried this X-PLAYOUT-LIMIT (the smaller of the two
    /// applies); nil: only the event's own limit.
    public var maximumPlayoutDuration: MediaTime?

    /// Creates a template.
    public init(
        preferredTracks: TrackSelection? = nil, lookahead: MediaTime = MediaTime(seconds: 10),
        rebindsAssetLists: Bool = false, maximumAssetCount: Int? = nil, maximumPlayoutDuration: MediaTime? = nil
    ) {
        self.preferredTracks = preferredTracks
        self.lookahead = lookahead
        self.rebindsAssetLists = rebindsAssetLists
        self.maximumAssetCount = maximumAssetCount
        self.maximumPlayoutDuration = maximumPlayoutDuration
    }
}
