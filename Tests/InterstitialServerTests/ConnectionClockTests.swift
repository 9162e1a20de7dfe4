import HLSPlaylist
import Testing

@testable import InterstitialServer

@Suite("Connection clock: the guard's timeouts as a value")
struct ConnectionClockTests {
    let limits = ConnectionClock.Limits(
        header: MediaTime(seconds: 10), body: MediaTime(seconds: 30), idle: MediaTime(seconds: 60))

    func at(_ seconds: Int64) -> MediaTime { MediaTime(nanoseconds: seconds * 1_000_000_000 + 1) }

    @Test("a connection with nothing to read or answer is idle after the idle timeout, not before")
    func idle() {
        var clock = ConnectionClock(limits: limits)
        #expect(clock.began(at: at(0)) == at(60))
        #expect(clock.verdict(at: at(59), writable: true) == .wait(until: at(60)))
        #expect(clock.verdict(at: at(60), writable: true) == .idle)
    }

    @Test("a head that does not arrive in time gets 408 header-timeout; one read in time moves activity on")
    func headTimeout() {
        var clock = ConnectionClock(limits: limits)
        _ = clock.began(at: at(0))
        clock.headBegan(at: at(5))
        #expect(clock.headDeadline == at(15))
        #expect(clock.verdict(at: at(14), writable: true) == .wait(until: at(15)))
        guard case .timeOut(let refusal) = clock.verdict(at: at(15), writable: true) else {
            Issue.record("expected a time-out")
            return
        }
        #expect(refusal.status == 408 && refusal.code == .headerTimeout)
        #expect(refusal.message == "the request head did not arrive within the header timeout")

        #expect(clock.headRead(at: at(8), expectsBody: false) == nil)
        #expect(clock.headDeadline == nil)
        #expect(clock.verdict(at: at(60), writable: true) == .wait(until: at(68)))
    }

    @Test("a body gets the body timeout from the end of its head; its end clears it")
    func bodyTimeout() {
        var clock = ConnectionClock(limits: limits)
        _ = clock.began(at: at(0))
        clock.headBegan(at: at(1))
        #expect(clock.headRead(at: at(2), expectsBody: true) == at(32))
        clock.passedOn()
        guard case .timeOut(let refusal) = clock.verdict(at: at(32), writable: true) else {
            Issue.record("expected a time-out")
            return
        }
        #expect(refusal.code == .bodyTimeout)
        clock.bodyEnded(at: at(10))
        // An answer is still due: not idle, however long it takes.
        #expect(clock.verdict(at: at(500), writable: true) == .wait(until: at(560)))
        clock.answerEnded(at: at(20))
        #expect(clock.verdict(at: at(79), writable: true) == .wait(until: at(80)))
        #expect(clock.verdict(at: at(80), writable: true) == .idle)
    }

    @Test("a file still being sent, or a client not reading, keeps the connection from being idle")
    func sendingIsNotIdle() {
        var clock = ConnectionClock(limits: limits)
        _ = clock.began(at: at(0))
        clock.sendingBegan()
        #expect(clock.verdict(at: at(100), writable: true) == .wait(until: at(160)))
        clock.sendingEnded(at: at(100))
        #expect(clock.verdict(at: at(100), writable: false) == .wait(until: at(160)))
        #expect(clock.verdict(at: at(160), writable: true) == .idle)
    }

    @Test("refused inside a body: the answers to earlier requests go out, the refused one's is dropped")
    func refusedInsideBody() {
        var clock = ConnectionClock(limits: limits)
        _ = clock.began(at: at(0))
        for _ in 0..<2 {
            _ = clock.headRead(at: at(1), expectsBody: false)
            clock.passedOn()
        }
        _ = clock.headRead(at: at(1), expectsBody: true)
        clock.passedOn()
        clock.refused()
        #expect(clock.earlierAnswers == 2)
        #expect(!clock.dropsAnswers)
        clock.answerEnded(at: at(2))
        clock.answerEnded(at: at(2))
        #expect(clock.dropsAnswers)
        clock.stopped()
        #expect(clock.headDeadline == nil && clock.bodyStarted == nil)
    }

    @Test("a refusal outside a body drops nothing")
    func refusedOutsideBody() {
        var clock = ConnectionClock(limits: limits)
        _ = clock.began(at: at(0))
        clock.passedOn()
        clock.refused()
        #expect(clock.earlierAnswers == nil && !clock.dropsAnswers)
    }
}
