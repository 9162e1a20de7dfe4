/// The project's one home for converting between `Duration` (clocks, deadlines, timeouts),
/// seconds and ``MediaTime``.
extension Duration {
    /// The duration in whole nanoseconds, the part below a nanosecond dropped (toward zero).
    /// Saturates at the `Int64` bounds (about ±292 years).
    package var wholeNanoseconds: Int64 {
        let (scaled, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return components.seconds < 0 ? .min : .max }
        let (sum, overflowed) = scaled.addingReportingOverflow(components.attoseconds / 1_000_000_000)
        return overflowed ? (scaled < 0 ? .min : .max) : sum
    }

    /// The duration in seconds, as binary floating point (for rates and display, never for sums).
    package var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration of a media time, to the nanosecond.
    package init(_ time: MediaTime) {
        self = .nanoseconds(time.nanoseconds)
    }
}

extension MediaTime {
    /// The media time of a duration, to the nanosecond (the part below one dropped, toward zero).
    package init(_ duration: Duration) {
        self.init(nanoseconds: duration.wholeNanoseconds)
    }
}
