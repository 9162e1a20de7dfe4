import HLSPlaylist

/// A break of a live primary as one viewer gets it in the stitched form: where it starts, how long
/// it replaces primary, and the viewer's pod for it.
public struct LiveBreak: Sendable, Hashable {
    /// The break's ID (its interstitial's ID).
    public var id: String
    /// When it starts (START-DATE).
    public var start: DateTime
    /// How long it replaces primary: its effective duration
    /// (``InterstitialEvent/effectiveDuration(played:)``), which an early return shortens to its
    /// X-PLAYOUT-LIMIT (``InterstitialEvent/earlyReturnPlayoutLimit(elapsed:)``).
    public var duration: MediaTime
    /// The viewer's ads for this variant, in play order (decided once, the same in either form).
    public var pod: [StitchAd]

    /// Creates a break.
    public init(id: String, start: DateTime, duration: MediaTime, pod: [StitchAd]) {
        self.id = id
        self.start = start
        self.duration = duration
        self.pod = pod
    }

    /// Its end: where primary resumes.
    public var end: DateTime { start + duration }
}
