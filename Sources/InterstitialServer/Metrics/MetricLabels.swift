import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The label values that ``ServerMetrics`` may write: each from a closed set or from the
/// configuration, so that no request can grow the number of time series.
///
/// A value outside its set becomes ``other``. Targets are the configuration's `vod/ID` and
/// `live/ID` (``Target``), at most ``targetLimit`` distinct ones per registry; codes are VAST error
/// codes, integers in 100...999.
final class MetricLabels: Sendable {
    /// The value that stands for every value outside a label's set.
    static let other = "other"
    /// The most distinct `target` values one registry keeps before it writes ``other``.
    static let targetLimit = 1000
    /// Where an asset list's ads came from.
    static let sources: Set<String> = ["inventory", "vast"]
    /// The most distinct `ad_server` values one registry keeps before it writes ``other``.
    static let adServerLimit = 100
    /// How an asset list of an ad-server break was decided (`prefetched` comes with prefetch).
    static let decisionPaths: Set<String> = [
        "live", "coalesced", "fallback", "empty", "prefetched", "prefetch", "standing",
    ]
    /// What became of a decision made ahead that was not kept, and ledger failures.
    static let prefetchResults: Set<String> = ["unused", "full", "ledger-failure"]
    /// Why a request to an ad server was not made.
    static let shedReasons: Set<String> = ["deadline", "queue", "breaker"]
    /// What the server fires itself.
    static let trackingKinds: Set<String> = ["error", "impression", "relayed", "stitched"]
    /// Why the stitched form left an ad out (``StitchedService``): its playlist was not loaded
    /// (`fetch`), not a complete VOD playlist (`playlist`), had no rendition matching the variant
    /// (`media`: codecs, resolution, frame rate, audio channels or sample rate, one reason for all
    /// since an ad can miss in several at once; the log says which), or was in the other segment
    /// format (`format`); or its HLS did not fit and the conditioner is making renditions that do
    /// from its VAST source (`conditioning`: it is stitched once they are ready); or the break's
    /// asset list is not this server's (`asset-list`); or a live break needed more fill segments
    /// than ``LiveStitcher/maximumFillSegments`` (`segment-cap`: the rest of it is left empty); or
    /// an fMP4 subtitle playlist's initialization segment could not be read or has no WebVTT or
    /// TTML track, so no empty subtitle segment can follow it (`subtitles`); or the sample rate and
    /// channel count of the ad's audio renditions are being read from their media (`measuring`).
    static let stitchFallbackReasons: Set<String> = [
        "fetch", "playlist", "media", "format", "conditioning", "asset-list", "segment-cap", "subtitles", "measuring",
    ]
    /// Why the relay did not pass a beacon on.
    static let beaconDropReasons: Set<String> = ["expired", "repeated", "budget"]
    /// The results of loading an upstream's Date Range Schedule document.
    static let scheduleLoadResults: Set<String> = ["loaded", "failed"]
    /// The outcomes of early notices of breaks.
    static let noticeOutcomes: Set<String> = ["announced", "withdrawn", "matched", "unmatched"]
    /// Why an SCTE-35 marker was refused: the IDs of the rules `hlsi validate` applies.
    static let signalRefusalReasons: Set<String> = Set(Rule.allRules.map(\.id.rawValue))
    /// The VAST 4.3 tracking events (section 3.14.1 "Tracking Events", plus `impression`, `error`,
    /// `clickTracking` and `progress`) that a beacon may name.
    static let beaconTypes: Set<String> = [
        "impression", "error", "creativeView", "loaded", "start", "firstQuartile", "midpoint", "thirdQuartile",
        "complete", "progress", "mute", "unmute", "pause", "resume", "rewind", "skip", "playerExpand",
        "playerCollapse", "closeLinear", "notUsed", "otherAdInteraction", "acceptInvitation", "adExpand",
        "adCollapse", "minimize", "close", "overlayViewDuration", "interactiveStart", "clickTracking",
        "fullscreen", "exitFullscreen", "expand", "collapse", "acceptInvitationLinear", "timeSpentViewing",
        "breakStart", "breakEnd",
    ]

    private let targets = NIOLockedValueBox<Set<String>>([])
    private let adServers = NIOLockedValueBox<Set<String>>([])

    /// An ad server (`scheme://host:port`) if it is one of the first ``adServerLimit`` seen;
    /// ``other`` otherwise (wrappers may name any host).
    func adServer(_ key: String) -> String {
        adServers.withLockedValue { seen in
            if seen.contains(key) { return key }
            guard seen.count < Self.adServerLimit else { return Self.other }
            seen.insert(key)
            return key
        }
    }

    /// `target` if it is written `vod/ID` or `live/ID` and is one of the first ``targetLimit``
    /// targets seen; ``other`` otherwise.
    func target(_ target: String) -> String {
        guard Target(target) != nil else { return Self.other }
        return targets.withLockedValue { seen in
            if seen.contains(target) { return target }
            guard seen.count < Self.targetLimit else { return Self.other }
            seen.insert(target)
            return target
        }
    }

    /// A VAST error code as a label: `"100"` to `"999"`, ``other`` for any other integer.
    static func code(_ code: Int) -> String {
        (100...999).contains(code) ? String(code) : other
    }

    /// `value` if `set` holds it, ``other`` otherwise.
    static func member(_ value: String, of set: Set<String>) -> String {
        set.contains(value) ? value : other
    }
}
