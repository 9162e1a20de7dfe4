import HLSPlaylist

/// One ad tracking request the engine found due: one URL of one `X-AD-CREATIVE-SIGNALING`
/// tracking entry, at the clock time playback reached it.
///
/// The driver sends it (fire-and-forget) and reports the answer in the trace as `beaconSent`.
package struct TrackingBeacon: Sendable, Hashable {
    /// The clock time at which it became due.
    package var time: Duration
    /// The interstitial event whose asset (or asset list, for a pod-level entry) carried it.
    package var eventID: String
    /// The asset's index in the event's list; nil for a pod-level entry (`breakStart`, `breakEnd`).
    package var assetIndex: Int?
    /// The VAST event name (`impression`, `start`, `firstQuartile`, …, `skip`).
    package var type: String
    /// The URL as the signaling gives it (macros not filled).
    package var url: String
    /// Where in the ad playback was (VAST `[ADPLAYHEAD]`); nil for a pod-level entry.
    package var adPlayhead: MediaTime?
    /// Where primary was (suspended) (VAST `[MEDIAPLAYHEAD]`).
    package var mediaPlayhead: MediaTime

    /// Creates a beacon.
    package init(
        time: Duration, eventID: String, assetIndex: Int?, type: String, url: String, adPlayhead: MediaTime?,
        mediaPlayhead: MediaTime
    ) {
        self.time = time
        self.eventID = eventID
        self.assetIndex = assetIndex
        self.type = type
        self.url = url
        self.adPlayhead = adPlayhead
        self.mediaPlayhead = mediaPlayhead
    }
}
