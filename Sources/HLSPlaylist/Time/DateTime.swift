import Foundation

/// An exact ISO-8601 date and time, as used by EXT-X-PROGRAM-DATE-TIME and EXT-X-DATERANGE.
///
/// The instant is kept in nanoseconds since 1970-01-01T00:00:00Z so that adding media times is
/// exact (behavior profile R2). The UTC offset that was written is kept for display; two values
/// are equal when they denote the same instant. A date written without a time zone is treated as
/// UTC, as §4.4.5.1 says it SHOULD be.
///
/// The range is that of Int64 nanoseconds, the years 1677 to 2262. Adding or subtracting a
/// ``MediaTime`` never traps or wraps: `+` and `-` saturate at the ends of the range, and
/// ``adding(_:)`` returns nil when the result is not representable, for dates built from user input.
public struct DateTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSinceEpoch: Int64
    /// The UTC offset written in the source, in seconds; `nil` when no zone was written.
    public var utcOffsetSeconds: Int?
    /// The number of fractional-second digits written in the source (9 for dates made in code).
    public var fractionDigits: Int = 9

    /// Creates a date from nanoseconds since the Unix epoch.
    public init(nanosecondsSinceEpoch: Int64, utcOffsetSeconds: Int? = 0) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Creates a date from a Foundation `Date`, rounded to the nearest nanosecond, in UTC; dates
    /// outside the range saturate at its ends.
    public init(_ date: Date) {
        self.nanosecondsSinceEpoch = MediaTime(seconds: date.timeIntervalSince1970).nanoseconds
        self.utcOffsetSeconds = 0
    }

    /// Parses an ISO-8601 date-time: `2020-01-02T21:55:44.000Z`, `2020-01-02T22:55:44+01:00`,
    /// `2020-01-02T21:55:44.123456789-0500`, or without a zone (UTC).
    public init?(iso8601 text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard let value = utf8.withUnsafeBufferPointer({ DateTime.parse($0) }) else { return nil }
        self = value
    }

    /// The Foundation `Date` for this instant.
    public var date: Date {
        Date(timeIntervalSince1970: Double(nanosecondsSinceEpoch) / 1_000_000_000)
    }

    /// ISO-8601 text with millisecond precision (or more where needed) and the original offset
    /// (`Z` for UTC and for dates written without a zone).
    public var description: String { iso8601 }

    /// ISO-8601 text, at least millisecond precision, in the written offset or `Z`.
    public var iso8601: String {
        let offset = utcOffsetSeconds ?? 0
        let (utcSeconds, nanos) = nanosecondsSinceEpoch.floorDivided(by: 1_000_000_000)
        let secondsTotal = utcSeconds + Int64(offset)
        let (days, secondOfDay) = secondsTotal.floorDivided(by: 86_400)
        let (year, month, day) = DateTime.civil(fromDays: days)
        let hour = secondOfDay / 3600
        let minute = (secondOfDay % 3600) / 60
        let second = secondOfDay % 60
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        var fraction = nanos
        var digits = 9
        while digits > 3, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        text += "." + pad(fraction, digits)
        if offset == 0 {
            text += "Z"
        } else {
            let sign = offset < 0 ? "-" : "+"
            let magnitude = abs(offset)
            text += "\(sign)\(pad(Int64(magnitude / 3600), 2)):\(pad(Int64((magnitude % 3600) / 60), 2))"
        }
        return text
    }

    public static func == (lhs: DateTime, rhs: DateTime) -> Bool {
        lhs.nanosecondsSinceEpoch == rhs.nanosecondsSinceEpoch
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(nanosecondsSinceEpoch) }
    public static func < (lhs: DateTime, rhs: DateTime) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }

    /// The date `time` later (exact), saturating at the ends of the range.
    public static func + (lhs: DateTime, rhs: MediaTime) -> DateTime {
        lhs.with(nanoseconds: (MediaTime(nanoseconds: lhs.nanosecondsSinceEpoch) + rhs).nanoseconds)
    }
    /// The date `time` earlier (exact), saturating at the ends of the range.
    public static func - (lhs: DateTime, rhs: MediaTime) -> DateTime {
        lhs.with(nanoseconds: (MediaTime(nanoseconds: lhs.nanosecondsSinceEpoch) - rhs).nanoseconds)
    }
    /// The exact time between two dates, saturating at the ends of ``MediaTime``'s range.
    public static func - (lhs: DateTime, rhs: DateTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanosecondsSinceEpoch) - MediaTime(nanoseconds: rhs.nanosecondsSinceEpoch)
    }

    /// The date `time` later, or nil when it is not representable (the checked form of `+`, for dates
    /// built from user input).
    public func adding(_ time: MediaTime) -> DateTime? {
        MediaTime(nanoseconds: nanosecondsSinceEpoch).checkedAdding(time).map { with(nanoseconds: $0.nanoseconds) }
    }

    /// Whether this date plus or minus any user-given time (at most ``MediaTime/userInputLimit``) is
    /// representable: the check for dates read from user input (JSON, the command line).
    public var isWithinUserInputBounds: Bool {
        adding(MediaTime.userInputLimit) != nil && adding(-MediaTime.userInputLimit) != nil
    }

    private func with(nanoseconds: Int64) -> DateTime {
        var result = self
        result.nanosecondsSinceEpoch = nanoseconds
        return result
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = self / divisor
        var remainder = self % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}

extension DateTime {
    /// Parses ISO-8601 from raw bytes. Used on every EXT-X-PROGRAM-DATE-TIME, so it is hand-written.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> DateTime? {
        var index = 0
        let count = bytes.count
        @inline(__always) func number(_ width: Int) -> Int64? {
            guard index + width <= count else { return nil }
            var value: Int64 = 0
            var bad: UInt8 = 0
            for offset in 0..<width {
                let digit = bytes[index &+ offset] &- UInt8(ascii: "0")
                bad |= digit > 9 ? 1 : 0
                value = value &* 10 &+ Int64(digit)
            }
            guard bad == 0 else { return nil }
            index += width
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        // `YYYY-MM-DDThh:mm:ss` has fixed positions: read them straight, then the optional rest.
        guard count >= 19, let base = bytes.baseAddress else { return nil }
        var bad: UInt8 = 0
        @inline(__always) func digits(_ at: Int, _ width: Int) -> Int64 {
            var value: Int64 = 0
            for offset in 0..<width {
                let digit = base[at &+ offset] &- UInt8(ascii: "0")
                bad |= digit > 9 ? 1 : 0
                value = value &* 10 &+ Int64(digit)
            }
            return value
        }
        let year = digits(0, 4)
        let month = digits(5, 2)
        let day = digits(8, 2)
        let hour = digits(11, 2)
        let minute = digits(14, 2)
        let second = digits(17, 2)
        guard bad == 0, base[4] == UInt8(ascii: "-"), base[7] == UInt8(ascii: "-"),
            base[10] == UInt8(ascii: "T") || base[10] == UInt8(ascii: "t"), base[13] == UInt8(ascii: ":"),
            base[16] == UInt8(ascii: ":")
        else { return nil }
        index = 19
        guard (1...12).contains(month), (1...DateTime.daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var nanos: Int64 = 0
        var fractionDigits = 0
        if index < count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            var digits = 0
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if digits < 9 { nanos = nanos * 10 + Int64(digit) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            fractionDigits = digits
            if digits < 9 { nanos *= MediaTime.powerOfTen(9 - digits) }
        }
        var offset: Int? = nil
        if index < count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
                offset = 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let negative = bytes[index] == UInt8(ascii: "-")
                index += 1
                guard let hours = number(2), hours < 24 else { return nil }
                var minutes: Int64 = 0
                if index < count {
                    _ = expect(UInt8(ascii: ":"))
                    guard let value = number(2), value < 60 else { return nil }
                    minutes = value
                }
                let magnitude = Int(hours * 3600 + minutes * 60)
                offset = negative ? -magnitude : magnitude
            default:
                return nil
            }
        }
        guard index == count else { return nil }
        let days = DateTime.days(fromCivilYear: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - Int64(offset ?? 0)
        let (scaled, overflow1) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflow2) = scaled.addingReportingOverflow(nanos)
        guard !overflow1, !overflow2 else { return nil }
        var result = DateTime(nanosecondsSinceEpoch: total, utcOffsetSeconds: offset)
        result.fractionDigits = fractionDigits
        return result
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    fileprivate static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension DateTime: Codable {
    /// Decodes from ISO-8601 text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = DateTime(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO-8601 date: \(text)")
        }
        self = value
    }

    /// Encodes as ISO-8601 text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
