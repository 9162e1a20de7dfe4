import Testing

@testable import HLSPlaylist

/// The one home of the conversions between `Duration`, seconds and ``MediaTime``.
@Suite("Duration, seconds and MediaTime")
struct DurationMediaTimeTests {
    @Test(
        "A duration in whole nanoseconds drops what is below one, toward zero, and saturates",
        arguments: [
            (Duration.seconds(6) + .nanoseconds(6_000_000), Int64(6_006_000_000)),
            (Duration(secondsComponent: 1, attosecondsComponent: 999_999_999), Int64(1_000_000_000)),
            (Duration(secondsComponent: -1, attosecondsComponent: -999_999_999), Int64(-1_000_000_000)),
            (Duration.seconds(Int64.max / 2), Int64.max),
            (Duration.seconds(Int64.min / 2), Int64.min),
        ])
    func wholeNanoseconds(_ duration: Duration, _ nanoseconds: Int64) {
        #expect(duration.wholeNanoseconds == nanoseconds)
    }

    @Test("A media time and its duration convert both ways, to the nanosecond")
    func roundTrip() {
        let time = MediaTime(nanoseconds: 600_600_000_001)
        #expect(Duration(time) == .nanoseconds(600_600_000_001))
        #expect(MediaTime(Duration(time)) == time)
        #expect(MediaTime(Duration.milliseconds(1500)) == MediaTime(seconds: 1.5))
    }

    @Test("A duration in seconds, as binary floating point")
    func seconds() {
        #expect(Duration.milliseconds(1500).secondsValue == 1.5)
        #expect(Duration.seconds(-2).secondsValue == -2)
    }
}
