import HLSPlaylist

/// One ad of a pod, as stitched into one variant: the ad rendition's media playlist chosen for that
/// variant and the URL it was loaded from, against which its segment, map and key URIs are resolved
/// (stitched playlists list them as absolute URIs).
public struct StitchAd: Sendable, Hashable {
    /// The ad rendition's media playlist (a complete VOD playlist).
    public var playlist: MediaPlaylist
    /// The absolute URL of that playlist.
    public var url: String

    /// Creates an ad.
    public init(playlist: MediaPlaylist, url: String) {
        self.playlist = playlist
        self.url = url
    }
}
