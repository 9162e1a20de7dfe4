import Foundation
import HLSPlaylist

/// The wall clock in seconds since 1970, the scale of PROGRAM-DATE-TIME and START-DATE.
enum WallClock {
    /// Now.
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A playlist date in seconds since 1970.
    static func seconds(_ date: DateTime) -> Double { Double(date.nanosecondsSinceEpoch) / 1e9 }

    /// Sleeps until the wall-clock time `time` (at once when it has passed).
    static func sleep(until time: Double) async {
        let delay = time - now
        guard delay > 0 else { return }
        try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
    }

    /// The CPU time this process used so far (user + system), in seconds.
    static var processCPU: Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
