import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The parts of the ``ServerState`` that are values: the follower's prune schedule (time is an
/// input) and the served values on their way to the store. (The viewer ledger's generations, on
/// the clock's time, are in ``RequestLimitTests``.)
@Suite("Server state bookkeeping: prune schedule, recording")
struct ServerStateBookkeepingTests {
    static func at(_ seconds: Int) -> MediaTime { MediaTime(seconds: seconds) }

    @Test("the store's viewer counts are pruned once per prune interval of the clock's time")
    func pruneSchedule() {
        var schedule = StoreFollower.PruneSchedule(last: Self.at(0))
        let early = schedule.isDue(at: StoreFollower.pruneInterval - MediaTime(nanoseconds: 1))
        let first = schedule.isDue(at: StoreFollower.pruneInterval)
        let again = schedule.isDue(at: StoreFollower.pruneInterval + Self.at(59))
        let second = schedule.isDue(at: StoreFollower.pruneInterval + Self.at(60))
        #expect([early, first, again, second] == [false, true, false, true])
        #expect(schedule.last == StoreFollower.pruneInterval + Self.at(60))
    }

    @Test("a claimed value is pending until written; a batch the store refused is written first next time")
    func recording() {
        let target = Target(.live, "demo")
        let a = ServedKey(target, "a")
        let b = ServedKey(target, "b")
        var recording = Recording()
        let claimed = recording.claim([.served(a, [])], keys: [a, b])
        #expect(claimed == [a])
        let batch = recording.takeQueue()
        #expect(recording.queue.isEmpty)
        let second = recording.claim([.served(b, [])], keys: [b])
        #expect(second == [b])
        recording.requeue(batch)
        #expect(recording.queue.count == 2)
        if case .served(let first, _)? = recording.queue.first { #expect(first == a) }
        let ready = recording.written(recording.takeQueue())
        #expect(ready.isEmpty)
        #expect(recording.pending.isEmpty)
        // A waiter whose time runs out before it is registered leaves a mark, which is dropped after.
        let id = recording.nextID()
        let expired = recording.expire(id)
        #expect(expired == nil)
        recording.forget(id)
    }
}
