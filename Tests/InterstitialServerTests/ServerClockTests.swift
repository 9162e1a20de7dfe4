import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The server's manual clock: sleepers wake when the clock reaches their time, and ``ServerClock/within(_:_:)``
/// gives up at its limit of the clock's time, not the machine's.
@Suite("Server clock")
struct ServerClockTests {
    static let wall = DateTime(nanosecondsSinceEpoch: 1_800_000_000 * 1_000_000_000)

    /// Waits until `clock` has `count` sleepers (a setup step, bounded at 10 s of real time: the
    /// outcome is decided by the manual clock alone).
    static func sleepers(_ clock: ManualServerClock, _ count: Int) async {
        for _ in 0..<10_000 where clock.sleepers < count { try? await Task.sleep(nanoseconds: 1_000_000) }
    }

    @Test("advance moves both clocks and wakes only the sleepers whose time came")
    func advance() async throws {
        let clock = ManualServerClock(wall: Self.wall)
        let start = clock.now
        let woke = Task { try await clock.sleep(for: MediaTime(seconds: 2)) }
        await Self.sleepers(clock, 1)
        clock.advance(by: MediaTime(seconds: 1))
        #expect(clock.sleepers == 1)
        clock.advance(by: MediaTime(seconds: 1))
        try await woke.value
        #expect(clock.now - start == MediaTime(seconds: 2))
        #expect(clock.wall == Self.wall + MediaTime(seconds: 2))
        #expect(clock.sleepers == 0)
    }

    @Test("a cancelled sleeper throws and leaves")
    func cancel() async {
        let clock = ManualServerClock(wall: Self.wall)
        let sleeper = Task { try await clock.sleep(for: MediaTime(seconds: 5)) }
        await Self.sleepers(clock, 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
    }

    @Test("within: the operation's value in time; nil once the clock's limit passed, or with no time")
    func within() async {
        let clock = ManualServerClock(wall: Self.wall)
        #expect(await clock.within(MediaTime(seconds: 1)) { 7 } == 7)
        #expect(await clock.within(.zero) { 7 } == nil)
        // An operation that never ends on its own is abandoned at the limit.
        let never = ManualServerClock(wall: Self.wall)
        let waiting = Task {
            await clock.within(MediaTime(seconds: 1)) { () async throws -> Int in
                try await never.sleep(for: MediaTime(seconds: 3600))
                return 1
            }
        }
        await Self.sleepers(clock, 1)
        clock.advance(by: MediaTime(seconds: 1))
        #expect(await waiting.value == nil)
    }
}
