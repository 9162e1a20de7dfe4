/// An exact media time or duration, in nanoseconds.
///
/// Behavior profile R2: "Media time is exact: sums of EXTINF/DURATION values must not drift
/// (100,000 × 6.006 s sums to exactly 600,600 s). Use a fixed-point or rational time type,
/// never accumulate binary floating point."
///
/// `MediaTime` is a signed fixed-point value with nine decimal places, so every decimal written
/// with up to nine fractional digits is represented exactly and sums never drift. Values with more
/// fractional digits are rounded to the nearest nanosecond. The range is about ±292 years.
///
/// Arithmetic never traps and never wraps: `+`, `-` and negation saturate at ``min`` and ``max``
/// (the Int64 bounds), and ``init(seconds:)-(Double)`` clamps. Input paths (JSON, the command line)
/// use the checked ``init(exactlySeconds:)`` and ``init(checkedSeconds:limit:)``, which refuse
/// values outside ``userInputLimit`` instead of clamping them.
public struct MediaTime: Hashable, Comparable, Sendable, AdditiveArithmetic, CustomStringConvertible {
    /// The time in nanoseconds.
    public var nanoseconds: Int64

    /// Creates a time from a count of nanoseconds.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Creates a time from whole seconds, saturating at ``min`` and ``max``.
    public init(seconds: Int) {
        let (product, overflow) = Int64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        self.nanoseconds = overflow ? (seconds < 0 ? .min : .max) : product
    }

    /// Creates a time from binary floating-point seconds, rounded to the nearest nanosecond.
    ///
    /// Never traps: NaN is zero, and values beyond the range (±infinity, `1e300`) saturate at ``min``
    /// and ``max``. The whole seconds and the fraction are converted separately, so integral values
    /// and values with up to nine fractional digits in their shortest decimal form are exact
    /// (`8999999999.0` is 8999999999 s, not 8999999999.000000512 s). Prefer ``init(decimal:)`` for
    /// values read from text, and ``init(exactlySeconds:)`` for user input that must be refused
    /// rather than clamped.
    public init(seconds: Double) {
        self.nanoseconds = Self.clampedNanoseconds(seconds)
    }

    /// Creates a time from binary floating-point seconds, or nil when the value is not finite or
    /// its magnitude exceeds ``userInputLimit``.
    ///
    /// The checked form for input paths (JSON bodies, command-line options): out-of-range input is
    /// refused, never clamped silently. Rounding is as in ``init(seconds:)-(Double)``.
    public init?(exactlySeconds seconds: Double) {
        self.init(checkedSeconds: seconds, limit: Self.userInputLimit)
    }

    /// Creates a time from binary floating-point seconds, or nil when the value is not finite or
    /// its magnitude exceeds `limit`.
    public init?(checkedSeconds seconds: Double, limit: MediaTime) {
        guard seconds.isFinite, seconds.magnitude <= limit.seconds else { return nil }
        let value = MediaTime(seconds: seconds)
        guard value.nanoseconds.magnitude <= limit.nanoseconds.magnitude else { return nil }
        self = value
    }

    /// The largest magnitude accepted for a user-given time, duration or offset: 10 years
    /// (315,360,000 s).
    ///
    /// One bound for every input path (JSON, the command line, asset-list queries), chosen so that any
    /// date of the years 1970–2200 plus or minus a few such values stays far inside the ±292 years
    /// ``MediaTime`` and ``DateTime`` can represent; nothing a user gives can then overflow.
    public static let userInputLimit = MediaTime(nanoseconds: 315_360_000 * 1_000_000_000)

    /// This time, when its magnitude is at most ``userInputLimit``: the one check for a user-given
    /// time (a JSON body, a command-line option, an asset-list query).
    ///
    /// - Throws: ``UserInputTimeError``, naming the value, when it is beyond the limit.
    public func checkedUserInput() throws(UserInputTimeError) -> MediaTime {
        guard nanoseconds.magnitude <= Self.userInputLimit.nanoseconds.magnitude else {
            throw UserInputTimeError(text: description)
        }
        return self
    }

    /// A user-given number of seconds as a time: ``init(exactlySeconds:)``, refusing what is not
    /// finite or is beyond ``userInputLimit`` with the one error for it.
    ///
    /// - Parameters:
    ///   - seconds: the value in seconds.
    ///   - text: the value as the user gave it, for the message.
    public static func userInput(
        seconds: Double, text: @autoclosure () -> String
    ) throws(UserInputTimeError) -> MediaTime {
        guard let time = MediaTime(exactlySeconds: seconds) else { throw UserInputTimeError(text: text()) }
        return time
    }

    /// The greatest time (about 292 years).
    public static let max = MediaTime(nanoseconds: .max)

    /// The least time (about −292 years).
    public static let min = MediaTime(nanoseconds: .min)

    /// `seconds` in nanoseconds: whole seconds and fraction converted apart, saturating.
    private static func clampedNanoseconds(_ seconds: Double) -> Int64 {
        guard !seconds.isNaN else { return 0 }
        // 9223372036 s is the largest whole second below Int64.max ns.
        if seconds >= 9_223_372_037 { return .max }
        if seconds <= -9_223_372_037 { return .min }
        let whole = seconds.rounded(.towardZero)
        let fraction = seconds - whole  // exact for binary floating point
        var nanos = Int64(whole) * 1_000_000_000
        // The fraction's shortest decimal form, so 0.1 is 100000000 ns exactly.
        let fractionNanos = (fraction * 1_000_000_000).rounded()
        let (sum, overflow) = nanos.addingReportingOverflow(Int64(fractionNanos))
        nanos = overflow ? (seconds < 0 ? .min : .max) : sum
        return nanos
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

    /// The time rounded to the nearest whole second, halves up: how §4.4.3.1 compares an EXTINF
    /// duration with EXT-X-TARGETDURATION ("when rounded to the nearest integer, MUST be less than
    /// or equal to the Target Duration"). The one place that rounding is done: the parser's
    /// `target-duration` rule and the stitcher's target duration use it.
    package var wholeSecondsRounded: Int64 {
        nanoseconds / 1_000_000_000 + (nanoseconds % 1_000_000_000 >= 500_000_000 ? 1 : 0)
    }

    /// The decimal text with exactly `places` fractional digits (clamped to 0…9), rounded half away
    /// from zero.
    public func formatted(fractionDigits places: Int) -> String {
        let places = Swift.min(Swift.max(places, 0), 9)
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

    /// The sum, saturating at ``min`` and ``max`` (never traps, never wraps).
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        guard overflow else { return MediaTime(nanoseconds: sum) }
        return rhs.nanoseconds > 0 ? .max : .min
    }

    /// The difference, saturating at ``min`` and ``max`` (never traps, never wraps).
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let (difference, overflow) = lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)
        guard overflow else { return MediaTime(nanoseconds: difference) }
        return rhs.nanoseconds < 0 ? .max : .min
    }

    /// Negation, saturating: the negation of ``min`` is ``max``.
    public static prefix func - (value: MediaTime) -> MediaTime {
        value.nanoseconds == .min ? .max : MediaTime(nanoseconds: -value.nanoseconds)
    }

    /// The sum, or nil when it is not representable (the checked form of `+`).
    public func checkedAdding(_ other: MediaTime) -> MediaTime? {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(other.nanoseconds)
        return overflow ? nil : MediaTime(nanoseconds: sum)
    }

    /// The difference, or nil when it is not representable (the checked form of `-`).
    public func checkedSubtracting(_ other: MediaTime) -> MediaTime? {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(other.nanoseconds)
        return overflow ? nil : MediaTime(nanoseconds: difference)
    }
}

extension MediaTime {
    /// Parses `[+-]digits[.digits]` from raw UTF-8 bytes. The hot path of EXTINF parsing.
    @inlinable
    /// 10 to the power `exponent`, for `0...9` (a table lookup, not a loop of multiplications).
    @inline(__always)
    package static func powerOfTen(_ exponent: Int) -> Int64 {
        switch exponent {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        default: 1_000_000_000
        }
    }

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
        if fractionDigits < 9 { fraction *= powerOfTen(9 - fractionDigits) }
        if roundUp { fraction += 1 }
        let (scaled, overflow1) = whole.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflow2) = scaled.addingReportingOverflow(fraction)
        if overflow1 || overflow2 { return nil }
        return MediaTime(nanoseconds: negative ? -total : total)
    }
}

extension MediaTime: Codable {
    /// Decodes from a number of seconds; a number outside the representable range is refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let seconds = try container.decode(Double.self)
        guard let value = MediaTime(checkedSeconds: seconds, limit: .max) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\(seconds) s is not a representable media time")
        }
        self = value
    }

    /// Encodes as a number of seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }
}
