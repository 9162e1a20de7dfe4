import HLSPlaylist

/// Times in each interstitial asset that an observer of the interstitial player watches: fixed
/// times and fractions of the asset's duration (the quartiles of ad tracking: 0.25, 0.5, 0.75, 1).
package struct AssetTimeWatch: Sendable, Hashable {
    /// Times from the asset's start.
    package var times: [MediaTime]
    /// Fractions of the asset's duration, in [0, 1].
    package var fractions: [Double]

    /// Creates a watch.
    package init(times: [MediaTime] = [], fractions: [Double] = []) {
        self.times = times
        self.fractions = fractions
    }

    /// The times watched in an asset of `duration`, in order, without repeats.
    package func resolved(duration: MediaTime) -> [MediaTime] {
        let scaled = fractions.filter { $0.isFinite && $0 >= 0 && $0 <= 1 }.map {
            MediaTime(nanoseconds: Int64((Double(duration.nanoseconds) * $0).rounded()))
        }
        return Array(Set(times + scaled)).sorted()
    }

    /// A watched time that playback of an asset crossed.
    package struct Crossing: Sendable, Hashable {
        /// The watch's key (the driver's observer).
        package var key: Int
        /// The event the asset belongs to.
        package var eventID: String
        /// The asset's index in the event's list.
        package var assetIndex: Int
        /// The time crossed, from the asset's start.
        package var time: MediaTime
    }
}
