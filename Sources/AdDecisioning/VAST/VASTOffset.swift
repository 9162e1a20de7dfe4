import HLSPlaylist

/// A time in a creative: a clock value or a percentage of the creative's duration.
///
/// VAST 4.3 §3.14.3: the `offset` of a `progress` event is "HH:MM:SS or HH:MM:SS.mmm or n%"; the
/// `skipoffset` of `<Linear>` uses the same forms.
public enum VASTOffset: Hashable, Sendable, CustomStringConvertible {
    /// A time from the start of the creative.
    case time(MediaTime)
    /// A percentage of the creative's duration, 0 to 100.
    case percent(Double)

    /// Parses `HH:MM:SS`, `HH:MM:SS.mmm` or `n%` (`n` from 0 to 100, fractions allowed).
    public init?(_ text: String) {
        let trimmed = text.trimmingXMLWhitespace()
        if trimmed.hasSuffix("%") {
            let number = trimmed.dropLast()
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let value = Double(number), (0...100).contains(value)
            else { return nil }
            self = .percent(value)
        } else if let time = VASTClock.parse(trimmed) {
            self = .time(time)
        } else {
            return nil
        }
    }

    /// The offset as a time, given the creative's duration (a percentage needs one).
    public func time(duration: MediaTime?) -> MediaTime? {
        switch self {
        case .time(let time): return time
        case .percent(let percent):
            guard let duration else { return nil }
            return MediaTime(nanoseconds: Int64((Double(duration.nanoseconds) * percent / 100).rounded()))
        }
    }

    /// `HH:MM:SS.mmm` or `n%`.
    public var description: String {
        switch self {
        case .time(let time): VASTClock.format(time)
        case .percent(let percent):
            percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
        }
    }
}

/// The `HH:MM:SS(.mmm)` clock of VAST durations and offsets.
public enum VASTClock {
    /// Parses `HH:MM:SS` or `HH:MM:SS.mmm` (any number of fraction digits up to 9; minutes and
    /// seconds below 60). Returns nil for anything else, negative values included.
    public static func parse(_ text: some StringProtocol) -> MediaTime? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3,
            !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let hours = Int(parts[0]),
            hours < 100_000,
            parts[1].count == 2, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let minutes = Int(parts[1]),
            (0..<60).contains(minutes)
        else { return nil }
        let secondsText = parts[2]
        guard let first = secondsText.first, first.isASCII, first.isNumber,
            secondsText.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let seconds = MediaTime(decimal: secondsText), seconds < MediaTime(seconds: 60)
        else { return nil }
        return MediaTime(seconds: hours * 3600 + minutes * 60) + seconds
    }

    /// `HH:MM:SS.mmm`.
    public static func format(_ time: MediaTime) -> String {
        let totalMilliseconds = max(time.nanoseconds, 0) / 1_000_000
        let milliseconds = totalMilliseconds % 1000
        let totalSeconds = totalMilliseconds / 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction =
            milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(two(totalSeconds / 3600)):\(two(totalSeconds / 60 % 60)):\(two(totalSeconds % 60)).\(fraction)"
    }
}
