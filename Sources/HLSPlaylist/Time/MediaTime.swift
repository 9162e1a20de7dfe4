/// An exact media time or duration, in nanoseconds.
///
/// Behavior profile R2: "Media time is exact: sums of EXTINF/DURATION values must not drift
/// (100,000 × 6.006 s sums to exactly 600,600 s). Use a fixed-point or rational time type,
/// never accumulate binary floating point."
///
/// `MediaTime` is a signed fixed-point value with nine decimal places, so every decimal written
/// with up to nine fractional digits is represented exactly and sums never drift. Values with more
/// fractional digits are rounded to the nearest nanosecond. The range is about ±292 years.
public struct MediaTime: Hashable, Comparable, Sendable, AdditiveArithmetic, CustomStringConvertible {
    /// The time in nanoseconds.
    public var nanoseconds: Int64

    /// Creates a time from a count of nanoseconds.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Creates a time from whole seconds.
    public init(seconds: Int) {
        self.nanoseconds = Int64(seconds) * 1_000_000_000
    }

    /// Creates a time from binary floating-point seconds, rounded to the nearest nanosecond.
    ///
    /// Prefer ``init(decimal:)`` for values read from text: it is exact.
    public init(seconds: Double) {
        self.nanoseconds = Int64((seconds * 1_000_000_000).rounded())
    }

    /// Parses a decimal number of seconds exactly: `6.006`, `-2.5`, `10`, `+3`.
    ///
    /// Returns `nil` for anything that is not a plain decimal number (no exponents, no spaces)
    /// or that is out of range.
    public init?(decimal text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard let value = utf8.withUnsafeBufferPointer({ MediaTime.parse($0, allowSign: true) }) else { return nil }
        self = value
    }

    /// Zero.
    public static let zero = MediaTime(nanoseconds: 0)

    /// The time in seconds as a binary floating-point value (for display and JSON).
    public var seconds: Double { Double(nanoseconds) / 1_000_000_000 }

    /// The shortest exact decimal text: `6.006`, `600600`, `-0.5`.
    public var description: String {
        let negative = nanoseconds < 0
        let magnitude = nanoseconds.magnitude
        let whole = magnitude / 1_000_000_000
        var fraction = magnitude % 1_000_000_000
        var text = negative ? "-" : ""
        text += String(whole)
        if fraction != 0 {
            var digits = 9
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        }
        return text
    }

    /// The decimal text with exactly `places` fractional digits, rounded half away from zero.
    public func formatted(fractionDigits places: Int) -> String {
        precondition((0...9).contains(places), "fractionDigits must be 0...9")
        var scale: Int64 = 1
        for _ in 0..<(9 - places) { scale *= 10 }
        let negative = nanoseconds < 0
        var magnitude = nanoseconds.magnitude
        magnitude = (magnitude + UInt64(scale / 2)) / UInt64(scale)
        var unit: UInt64 = 1
        for _ in 0..<places { unit *= 10 }
        let whole = magnitude / unit
        let fraction = magnitude % unit
        var text = (negative && magnitude != 0) ? "-" : ""
        text += String(whole)
        if places > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: places - fractionText.count) + fractionText
        }
        return text
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &+ rhs.nanoseconds)
    }
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &- rhs.nanoseconds)
    }
    /// Negation.
    public static prefix func - (value: MediaTime) -> MediaTime { MediaTime(nanoseconds: 0 &- value.nanoseconds) }
}

extension MediaTime {
    /// Parses `[+-]digits[.digits]` from raw UTF-8 bytes. The hot path of EXTINF parsing.
    @inlinable
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, allowSign: Bool) -> MediaTime? {
        var index = 0
        let count = bytes.count
        guard count > 0 else { return nil }
        var negative = false
        if allowSign, bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        var whole: Int64 = 0
        var sawDigit = false
        while index < count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            let (times10, overflow1) = whole.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
            if overflow1 || overflow2 { return nil }
            whole = sum
            sawDigit = true
            index += 1
        }
        var fraction: Int64 = 0
        var fractionDigits = 0
        var roundUp = false
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var sawFractionDigit = false
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if fractionDigits < 9 {
                    fraction = fraction * 10 + Int64(digit)
                    fractionDigits += 1
                } else if fractionDigits == 9 {
                    roundUp = digit >= 5
                    fractionDigits += 1
                }
                sawFractionDigit = true
                index += 1
            }
            // "6." is accepted as 6; "." alone is not a number.
            sawDigit = sawDigit || sawFractionDigit
        }
        guard sawDigit, index == count else { return nil }
        while fractionDigits < 9 {
            fraction *= 10
            fractionDigits += 1
        }
        if roundUp { fraction += 1 }
        let (scaled, overflow1) = whole.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflow2) = scaled.addingReportingOverflow(fraction)
        if overflow1 || overflow2 { return nil }
        return MediaTime(nanoseconds: negative ? -total : total)
    }
}

extension MediaTime: Codable {
    /// Decodes from a number of seconds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(seconds: try container.decode(Double.self))
    }

    /// Encodes as a number of seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }
}
