import Foundation
import HLSPlaylist
import Testing

@Suite("Values: times, dates and attribute types (§4.2)")
struct ValueTests {
    @Test("MediaTime parses decimals exactly and formats them shortest")
    func mediaTime() {
        #expect(MediaTime(decimal: "6.006")?.nanoseconds == 6_006_000_000)
        #expect(MediaTime(decimal: "-0.5")?.nanoseconds == -500_000_000)
        #expect(MediaTime(decimal: "10")?.description == "10")
        #expect(MediaTime(decimal: "6.")?.description == "6")
        #expect(MediaTime(decimal: "0.1234567891")?.nanoseconds == 123_456_789)
        #expect(MediaTime(decimal: "0.1234567895")?.nanoseconds == 123_456_790)
        for bad in ["", ".", "-", "1e3", "1.2.3", " 1", "abc", "99999999999999999999"] {
            #expect(MediaTime(decimal: bad) == nil, "\(bad)")
        }
        #expect(MediaTime(decimal: "6")!.formatted(fractionDigits: 3) == "6.000")
        #expect(MediaTime(decimal: "-1.2345")!.formatted(fractionDigits: 2) == "-1.23")
        #expect(MediaTime(decimal: "0.0049")!.formatted(fractionDigits: 2) == "0.00")
    }

    @Test("DateTime parses ISO-8601 with zones and fractions")
    func dateTime() throws {
        let utc = try #require(DateTime(iso8601: "2020-01-02T21:55:44.000Z"))
        #expect(utc.nanosecondsSinceEpoch == 1_578_002_144_000_000_000)
        #expect(DateTime(iso8601: "2020-01-02T22:55:44+01:00") == utc)
        #expect(DateTime(iso8601: "2020-01-02T16:55:44.000-0500") == utc)
        #expect(DateTime(iso8601: "2020-01-02T23:55:44+02") == utc)
        #expect(DateTime(iso8601: "2020-01-02T21:55:44") == utc)
        #expect(DateTime(iso8601: "2020-01-02T21:55:44")?.utcOffsetSeconds == nil)
        #expect(DateTime(iso8601: "2020-01-02T21:55:44.123456789Z")?.nanosecondsSinceEpoch == 1_578_002_144_123_456_789)
        #expect(DateTime(iso8601: "2020-01-02T22:55:44.5+01:00")?.iso8601 == "2020-01-02T22:55:44.500+01:00")
        #expect(DateTime(iso8601: "1969-12-31T23:59:59.999Z")?.nanosecondsSinceEpoch == -1_000_000)
        #expect(DateTime(iso8601: "2024-02-29T00:00:00Z") != nil)
        for bad in [
            "2023-02-29T00:00:00Z", "2020-13-01T00:00:00Z", "2020-01-02", "2020-01-02T25:00:00Z",
            "2020-01-02T21:55:44.Z", "2020-01-02T21:55:44+1", "x",
        ] {
            #expect(DateTime(iso8601: bad) == nil, "\(bad)")
        }
        #expect(utc + MediaTime(decimal: "0.001")! - utc == MediaTime(decimal: "0.001"))
        #expect(abs(utc.date.timeIntervalSince1970 - 1_578_002_144) < 0.000_001)
    }

    @Test("attribute value readers for every §4.2 type")
    func attributeTypes() throws {
        #expect(try AttributeValue(rawValue: "18446744073709551615").decimalInteger == UInt64.max)
        #expect(try AttributeValue(rawValue: "18446744073709551616").decimalInteger == nil)
        #expect(try AttributeValue(rawValue: "-1").decimalInteger == nil)
        #expect(try AttributeValue(rawValue: "1.5").decimalFloatingPoint == MediaTime(decimal: "1.5"))
        #expect(try AttributeValue(rawValue: "-1.5").decimalFloatingPoint == nil)
        #expect(try AttributeValue(rawValue: "-1.5").signedDecimal == MediaTime(decimal: "-1.5"))
        #expect(try AttributeValue(rawValue: "\"a b\"").quotedString == "a b")
        #expect(try AttributeValue(rawValue: "a").quotedString == nil)
        #expect(try AttributeValue(rawValue: "0xABC").hexadecimalSequence == [0x0A, 0xBC])
        #expect(try AttributeValue(rawValue: "0xZZ").hexadecimalSequence == nil)
        #expect(try AttributeValue(rawValue: "YES").enumeratedString == "YES")
        #expect(try AttributeValue(rawValue: "\"YES\"").enumeratedString == nil)
        #expect(
            try AttributeValue(rawValue: "\"SKIP,FUTURE,JUMP\"").enumeratedStringList == ["SKIP", "FUTURE", "JUMP"])
        #expect(try AttributeValue(rawValue: "\"\"").enumeratedStringList == [])
        #expect(try AttributeValue(rawValue: "1920x1080").resolution == Resolution(width: 1920, height: 1080))
        #expect(try AttributeValue(rawValue: "1920x").resolution == nil)
        #expect(AttributeValue.hexadecimal([0xDE, 0xAD]).rawValue == "0xDEAD")
        #expect(try AttributeValue.enumeratedList(["OUT", "IN"]).rawValue == "\"OUT,IN\"")
        #expect(try AttributeValue(rawValue: "123").kind == .signedDecimalFloatingPoint)
        #expect(try AttributeValue(rawValue: "0x1F").kind == .hexadecimalSequence)
        #expect(try AttributeValue(rawValue: "\"x\"").kind == .quotedString)
        #expect(try AttributeValue(rawValue: "PQ").kind == .enumeratedString)
    }

    @Test("attribute lists keep order; setting replaces in place; nil removes")
    func attributeList() throws {
        var list: AttributeList = try [("A", .integer(1)), ("B", .quoted("x"))]
        list["A"] = .integer(2)
        list["C"] = try .enumerated("YES")
        #expect(list.description == "A=2,B=\"x\",C=YES")
        list["B"] = nil
        #expect(list.description == "A=2,C=YES")
    }
}
