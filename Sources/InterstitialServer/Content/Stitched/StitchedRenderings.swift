import HLSPlaylist

/// The stitched playlists rendered for each viewer (issue 45), so a viewer who asks again for the
/// same version of a playlist gets the same bytes without the stitching: a live player reloads its
/// window every target duration, mostly before the window has moved, and a VOD player asks for its
/// media playlists again on every variant switch.
///
/// An entry is one viewer's rendering of one playlist, kept with the version of the primary it was
/// made from (the interstitial form's entity tag: a new window, a changed break or early return is
/// a new version) and used only for that version, and for at most ``lifetime`` from when it was
/// made, so what the primary's bytes do not show (an ad playlist loaded again, the target's slate)
/// is taken again within that time, as ``AdRenditionLoader`` does for the ads' playlists. A live
/// window served from here leaves the viewer's ``LiveStitcher`` as it was: stitching the same
/// window again would not change it.
///
/// Entries are kept in a ``StitchedMemo``: bounded in count and bytes, the least recently used
/// going first, forgotten when idle.
struct StitchedRenderings: Sendable {
    /// How long a rendering is used after it is made.
    static let lifetime = MediaTime(seconds: 60)

    /// One viewer's rendering of one playlist.
    struct Rendering: Sendable {
        /// The primary's version it was made from.
        var version: String
        /// When it was made.
        var made: DateTime
        /// The stitched playlist's bytes.
        var bytes: [UInt8]
    }

    let memo: StitchedMemo<Rendering>
    private let now: @Sendable () -> DateTime

    /// Renderings within `limits`, on the clock `now`.
    init(limits: StitchedMemo<Rendering>.Limits, now: @escaping @Sendable () -> DateTime) {
        self.now = now
        memo = StitchedMemo(limits: limits, now: now) { key, rendering in
            key.utf8.count + rendering.version.utf8.count + rendering.bytes.count + 96
        }
    }

    /// The bytes kept for `key` made from the primary's `version`, younger than ``lifetime``; nil
    /// otherwise.
    func bytes(_ key: String, version: String) -> [UInt8]? {
        guard let kept = memo.value(key), kept.version == version, now() - kept.made < Self.lifetime else {
            return nil
        }
        return kept.bytes
    }

    /// Keeps `bytes`, made now from the primary's `version`, for `key`.
    func keep(_ bytes: [UInt8], for key: String, version: String) {
        let rendering = Rendering(version: version, made: now(), bytes: bytes)
        memo.update(key, make: { rendering }) { $0 = rendering }
    }
}
