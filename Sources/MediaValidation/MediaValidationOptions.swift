/// What `StreamValidator` downloads when it reads the media segments, and the tolerances of the media
/// rules.
///
/// The defaults are documented in docs/media-timing.md ("Validating media").
public struct MediaValidationOptions: Sendable, Hashable {
    /// How many segments to read per media playlist, evenly spaced with the first and the last; nil reads
    /// every segment. An interstitial asset's first segment is always read.
    public var sample: Int?
    /// The most bytes downloaded in all (segments and initialization segments). No download starts once
    /// this many bytes have arrived, so the total exceeds it by at most ``concurrency`` responses.
    public var maximumBytes: Int
    /// The most downloads at once.
    public var concurrency: Int
    /// The largest difference, in seconds, between an EXTINF and the measured duration that is not
    /// reported (`media-extinf`). 0.1 s by default: an audio-only segment ends on an audio frame, up
    /// to one frame (21–46 ms for AAC) from the segment boundary on either side.
    public var durationTolerance: Double
    /// The largest difference, in seconds, between the starts (or, where the timeline breaks, the
    /// ends) of audio and video that is not reported (`media-av-offset`, `interstitial-media-offset`,
    /// `media-discontinuity-gap`). 0.04 s by default: one video frame at 25 fps,
    /// more than one AAC frame at 48 kHz.
    public var startTolerance: Double
    /// The largest gap or overlap, in seconds, between consecutive segments of a track that is not
    /// reported (`media-continuity`). 0.02 s by default.
    public var continuityTolerance: Double
    /// How much, as a fraction, a measured bit rate may exceed BANDWIDTH or AVERAGE-BANDWIDTH before it
    /// is reported (`media-bandwidth`, `media-average-bandwidth`). 0.1 (10 %) by default.
    public var bandwidthTolerance: Double

    /// Creates options; see each property for its default.
    public init(
        sample: Int? = nil, maximumBytes: Int = 512 << 20, concurrency: Int = 4, durationTolerance: Double = 0.1,
        startTolerance: Double = 0.04, continuityTolerance: Double = 0.02, bandwidthTolerance: Double = 0.1
    ) {
        self.sample = sample.map { Swift.max($0, 1) }
        self.maximumBytes = Swift.max(maximumBytes, 0)
        self.concurrency = Swift.min(Swift.max(concurrency, 1), 64)
        self.durationTolerance = durationTolerance
        self.startTolerance = startTolerance
        self.continuityTolerance = continuityTolerance
        self.bandwidthTolerance = bandwidthTolerance
    }

    /// The 0-based indexes of the segments to read out of `count`: all without ``sample``, else
    /// `sample` indexes evenly spaced from the first to the last, plus the first when `includeFirst`.
    public func selectedIndexes(count: Int, includeFirst: Bool = false) -> [Int] {
        guard count > 0 else { return [] }
        guard let sample, sample < count else { return Array(0..<count) }
        var indexes: Set<Int> = includeFirst ? [0] : []
        if sample == 1 {
            indexes.insert(0)
        } else {
            for step in 0..<sample {
                // Rounded to the nearest, so that the first and the last are always in.
                indexes.insert((step * (count - 1) * 2 + (sample - 1)) / ((sample - 1) * 2))
            }
        }
        return indexes.sorted()
    }
}
