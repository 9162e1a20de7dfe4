/// The breaks a VMAP places on an asset, at most a given number, and how many more it would place.
public struct VMAPPlacement: Hashable, Sendable {
    /// The most breaks one VMAP places on an asset, repetitions included, by default (100).
    public static let defaultMaximumBreaks = 100

    /// The placed breaks in time order: the earliest ones when there were too many.
    public var breaks: [PlacedBreak]
    /// The breaks left out, the latest in time order, because there were more than the maximum.
    public var dropped: Int

    /// Creates a placement.
    public init(breaks: [PlacedBreak], dropped: Int = 0) {
        self.breaks = breaks
        self.dropped = dropped
    }
}
