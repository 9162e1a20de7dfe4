import HLSInterstitials
import HLSPlaylist

/// What a viewer reads from one live media playlist: its live edge, target duration, interstitials
/// with an asset list, and Preload hints (App. F). Every viewer gets the same bytes, so each
/// distinct body is parsed once (``Cache``).
struct PlaylistSnapshot: Sendable {
    /// An interstitial whose assets come from an asset list.
    struct Interstitial: Sendable {
        /// Its ID.
        var id: String
        /// START-DATE, in seconds since 1970.
        var start: Double
        /// X-ASSET-LIST, resolved against the playlist's URL.
        var assetList: String
    }

    /// A Preload date range (``PreloadDateRange``) that targets an interstitial.
    struct Hint: Sendable {
        /// The hint's own ID.
        var id: String
        /// X-TARGET-ID.
        var targetID: String
        /// X-URI, resolved against the playlist's URL.
        var uri: String
        /// START-DATE and its end (END-DATE, or START-DATE + DURATION), in seconds since 1970.
        var start: Double
        var end: Double
    }

    /// The end of the last segment (PROGRAM-DATE-TIME + duration), in seconds since 1970.
    var liveEdge: Double?
    /// EXT-X-TARGETDURATION in seconds.
    var targetDuration: Double
    /// Whether it has EXT-X-ENDLIST (hints are then ignored).
    var hasEndList: Bool
    /// The interstitials with an X-ASSET-LIST.
    var interstitials: [Interstitial]
    /// The IDs of every date range's CLASS, to check X-TARGET-CLASS against.
    var classes: [String: String]
    /// The valid Preload hints whose X-TARGET-CLASS is the interstitial class (none with ENDLIST).
    var hints: [Hint]

    /// Reads `bytes`, loaded from `url`.
    init?(bytes: [UInt8], url: String) {
        guard let playlist = PlaylistParser.parse(bytes, options: ParseOptions(playlistURL: url)).playlist.media
        else { return nil }
        liveEdge = playlist.dateRange.map { WallClock.seconds($0.upperBound) }
        targetDuration = Double(playlist.targetDuration ?? 2)
        hasEndList = playlist.hasEndList
        var interstitials: [Interstitial] = []
        var classes: [String: String] = [:]
        var hints: [Hint] = []
        for range in playlist.dateRanges {
            if let className = range.className { classes[range.id] = className }
            if let event = InterstitialEvent(dateRange: range), let list = event.assetListURI,
                let start = range.startDate
            {
                interstitials.append(
                    Interstitial(
                        id: event.identifier, start: WallClock.seconds(start),
                        assetList: URIReference.resolve(list, against: url)))
            } else if !playlist.hasEndList, let hint = PreloadDateRange(dateRange: range),
                hint.targetClass == InterstitialEvent.className
            {
                hints.append(
                    Hint(
                        id: hint.identifier, targetID: hint.targetID, uri: URIReference.resolve(hint.uri, against: url),
                        start: WallClock.seconds(hint.startDate), end: WallClock.seconds(hint.end)))
            }
        }
        self.interstitials = interstitials
        self.classes = classes
        self.hints = hints
    }

    /// The snapshots of the bodies seen lately, keyed by the bytes: one parse per distinct body.
    final class Cache: Sendable {
        private let entries = Locked([[UInt8]: PlaylistSnapshot]())
        private let parses = Locked(0)
        /// How many bodies were parsed.
        var parsed: Int { parses.withLock { $0 } }

        /// The snapshot of `bytes` loaded from `url` (all bodies come from the same URL).
        func snapshot(_ bytes: [UInt8], url: String) -> PlaylistSnapshot? {
            if let known = entries.withLock({ $0[bytes] }) { return known }
            guard let snapshot = PlaylistSnapshot(bytes: bytes, url: url) else { return nil }
            parses.withLock { $0 += 1 }
            entries.withLock { entries in
                if entries.count >= 64 { entries.removeAll(keepingCapacity: true) }
                entries[bytes] = snapshot
            }
            return snapshot
        }
    }
}
