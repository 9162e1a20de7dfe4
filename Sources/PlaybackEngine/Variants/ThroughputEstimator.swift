import HLSPlaylist

/// An estimate of network throughput from measured segment loads: an exponentially weighted moving
/// average of each load's bits per second, corrected for its start at zero so that the first
/// sample counts in full.
///
/// Pure: the driver measures how many bytes a load brought and how long it took on its clock, and
/// adds that sample; loads that took no time (a virtual clock, a cache) carry no information and
/// are ignored.
package struct ThroughputEstimator: Sendable, Hashable {
    /// How much of the previous estimate each new sample keeps (0 < weight < 1).
    package let retention: Double
    /// The weighted sum of samples (biased towards zero before the weights add up to 1).
    private var weighted: Double = 0
    /// The sum of the weights given so far, to correct that bias.
    private var weight: Double = 0
    /// How many samples were taken.
    package private(set) var samples = 0

    /// Creates an estimator; each new sample weighs `1 - retention`.
    package init(retention: Double = 0.7) {
        self.retention = min(max(retention, 0), 0.99)
    }

    /// Adds a load of `bytes` that took `duration`; ignored when either is not positive.
    package mutating func add(bytes: Int, duration: Duration) {
        let seconds = duration.secondsValue
        guard bytes > 0, seconds > 0 else { return }
        let sample = Double(bytes) * 8 / seconds
        weighted = retention * weighted + (1 - retention) * sample
        weight = retention * weight + (1 - retention)
        samples += 1
    }

    /// The estimated throughput in bits per second; nil before the first sample.
    package var bitsPerSecond: Double? { weight > 0 ? weighted / weight : nil }
}
