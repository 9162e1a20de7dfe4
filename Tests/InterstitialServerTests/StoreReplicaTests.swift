import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// A store that counts the calls reaching the store it wraps (every call is passed on).
final class CountingStore: ServerStore {
    struct Counts: Equatable {
        var loads = 0
        var writes = 0
        var changeCounts = 0
    }

    let base: any ServerStore
    private let box = NIOLockedValueBox(Counts())

    init(_ base: any ServerStore) { self.base = base }

    var counts: Counts { box.withLockedValue { $0 } }
    var isShared: Bool { base.isShared }

    func load() async throws -> StoredState {
        box.withLockedValue { $0.loads += 1 }
        return try await base.load()
    }

    func write(_ changes: [StoreChange]) async throws {
        box.withLockedValue { $0.writes += 1 }
        try await base.write(changes)
    }

    func changeCount() async throws -> Int64 {
        box.withLockedValue { $0.changeCounts += 1 }
        return try await base.changeCount()
    }

    func servedValues(for keys: [ServedKey]) async throws -> [ServedKey: AttributeList] {
        try await base.servedValues(for: keys)
    }

    func countViewerRequest(viewer: String, target: Target, id: String, expiry: Duration) async throws -> Int? {
        try await base.countViewerRequest(viewer: viewer, target: target, id: id, expiry: expiry)
    }

    func pruneViewerRequests(limit: Int) async throws -> Int { try await base.pruneViewerRequests(limit: limit) }

    func close() throws { try base.close() }
}

/// Replicas on one PostgreSQL database see one another's changes, and serve the
/// served values the first of them recorded.
@Suite("Replicas sharing a PostgreSQL store")
struct StoreReplicaTests {
    static let logger = Logger(label: "hlsi.test.replicas")

    /// Two server states on one new database (the second counts its store calls), opened.
    static func replicas(
        poll: Duration = .milliseconds(50), limits: ServerLimits = ServerLimits()
    ) async throws -> (a: ServerState, b: ServerState, counting: CountingStore) {
        let database = try await StoreDatabase(.postgres)
        let a = try ServerState(store: database.open(), ownsStore: true, limits: limits, pollInterval: poll)
        let counting = CountingStore(try database.open())
        let b = try ServerState(store: counting, ownsStore: true, limits: limits, pollInterval: poll)
        try await a.open()
        try await b.open()
        return (a, b, counting)
    }

    static func close(_ states: ServerState...) async {
        for state in states { await state.close(logger: logger) }
    }

    static func attributes(_ id: String, _ n: UInt64) throws -> AttributeList {
        [("ID", try .quoted(id)), ("X-N", .integer(n))]
    }

    @Test("An admin change made through replica A is in replica B's state after its next poll")
    func adminChangeReachesOtherReplica() async throws {
        let (a, b, _) = try await Self.replicas()
        let follower = Task { await b.follow(logger: Self.logger) }
        let ad = Ad(id: "spot-from-a", uri: "/ads/spot.m3u8", duration: MediaTime(seconds: 10))
        let version = b.versioned.version
        try await a.update { $0.apply(.saveAd(ad)) }
        // B polls every 50 ms here (250 ms by default): the change is there after one poll. The bound
        // only guards against a hang, as the whole suite shares the machine; E2E/replicas.py
        // measures the 1 s.
        #expect(try await eventually { b.snapshot.ads[ad.id] == ad })
        #expect(b.versioned.version > version, "B's cached playlists are rebuilt")
        try await a.update { $0.apply(.deleteAd(id: ad.id)) }
        #expect(try await eventually { b.snapshot.ads[ad.id] == nil })
        follower.cancel()
        await follower.value
        await Self.close(a, b)
    }

    @Test("A date range recorded as served by replica A is what replica B serves; B's other values are refused")
    func servedByAIsServedByB() async throws {
        let (a, b, _) = try await Self.replicas()
        let recorder = Task { await a.recordServed(logger: Self.logger) }
        let key = ServedKey(Target(.live, "channel"), "break-1")
        let value = try Self.attributes("break-1", 1)
        #expect(a.claimServed([(key, value)]) == [key])
        #expect(await a.awaitRecorded([key], timeout: .seconds(600)), "recorded in the database")
        #expect(try await b.refresh())
        #expect(b.snapshot.served[key] == value)
        #expect(b.claimServed([(key, try Self.attributes("break-1", 2))]) == nil, "B plans again with A's value")
        #expect(b.claimServed([(key, value)]) == [], "nothing for B to record")
        a.finishRecording()
        await recorder.value
        await Self.close(a, b)
    }

    @Test("Two replicas that both decide a new date range end up serving the one the database kept")
    func concurrentFirstServings() async throws {
        let (a, b, _) = try await Self.replicas()
        let recorders = [a, b].map { state in Task { await state.recordServed(logger: Self.logger) } }
        let keys = (0..<10).map { ServedKey(Target(.live, "channel"), "break-\($0)") }
        let claimedA = a.claimServed(try keys.map { ($0, try Self.attributes($0.id, 1)) })
        let claimedB = b.claimServed(try keys.map { ($0, try Self.attributes($0.id, 2)) })
        #expect(claimedA == Set(keys) && claimedB == Set(keys), "each decided in its own memory")
        #expect(await a.awaitRecorded(Set(keys), timeout: .seconds(600)))
        #expect(await b.awaitRecorded(Set(keys), timeout: .seconds(600)))
        // Once recorded, each has the database's values, without waiting for a poll; the one whose
        // values lost is told to plan again (a playlist being answered is not sent with them).
        let stored = try await a.store.load().served
        #expect(stored.count == keys.count)
        #expect(a.snapshot.served == stored && b.snapshot.served == stored, "both serve what the database kept")
        for key in keys {
            let mine = try Self.attributes(key.id, 1)
            let theirs = try Self.attributes(key.id, 2)
            #expect(a.agrees([(key, mine)]) == (stored[key] == mine))
            #expect(b.agrees([(key, theirs)]) == (stored[key] == theirs))
        }
        for state in [a, b] { state.finishRecording() }
        for recorder in recorders { await recorder.value }
        await Self.close(a, b)
    }

    @Test("A viewer's requests count on every replica: asked on A, then on B, it is a later attempt; others start at 0")
    func viewerRequestsAreShared() async throws {
        // The database's count must arrive, however loaded the machine (a late one is counted in the
        // replica's own memory instead, and B would not see A's request).
        var limits = ServerLimits()
        limits.viewerStoreTimeout = MediaTime(seconds: 20)
        let (a, b, counting) = try await Self.replicas(limits: limits)
        let target = Target(.vod, "demo")
        #expect(try await a.attempt(viewer: "v1", target: target, id: "midroll-2").resolve() == 0)
        #expect(try await b.attempt(viewer: "v1", target: target, id: "midroll-2").resolve() == 1, "B sees A's request")
        #expect(try await a.attempt(viewer: "v1", target: target, id: "midroll-2").resolve() == 2)
        #expect(try await b.attempt(viewer: "v2", target: target, id: "midroll-2").resolve() == 0, "another viewer")
        #expect(try await b.attempt(viewer: "v1", target: target, id: "preroll").resolve() == 0, "another break")
        #expect(counting.counts.writes == 0, "counting a viewer is not a change: the replicas load nothing again")
        await Self.close(a, b)
    }

    @Test("With nothing changed, following reads only the change count: no load, no version change")
    func nothingChangedLoadsNothing() async throws {
        let (a, b, counting) = try await Self.replicas()
        #expect(counting.counts == .init(loads: 1, writes: 0, changeCounts: 1), "open: one count, one load")
        let version = b.versioned.version
        for _ in 0..<5 { #expect(try await !b.refresh()) }
        #expect(counting.counts == .init(loads: 1, writes: 0, changeCounts: 6))
        #expect(b.versioned.version == version, "playlists cached by version stay cached")
        // A change of A: one reload.
        try await a.update { $0.apply(.withdraw(ServedKey(Target(.vod, "x"), "y"))) }
        #expect(try await b.refresh())
        #expect(counting.counts.loads == 2)
        // B's own change: B reloads once, finds what it has, and keeps its version.
        try await b.update { $0.apply(.withdraw(ServedKey(Target(.vod, "x"), "z"))) }
        let afterOwn = b.versioned.version
        #expect(try await !b.refresh())
        #expect(counting.counts.loads == 3 && b.versioned.version == afterOwn)
        #expect(try await !b.refresh())
        #expect(counting.counts.loads == 3)
        await Self.close(a, b)
    }

    @Test("A store only this server writes (SQLite) is never read again after open")
    func unsharedStoreIsNotFollowed() async throws {
        let counting = CountingStore(try SQLiteStore(path: nil))
        let state = try ServerState(store: counting, pollInterval: .milliseconds(1))
        try await state.open()
        #expect(try await !state.refresh())
        await state.follow(logger: Self.logger)  // returns at once
        #expect(counting.counts == .init(loads: 1, writes: 0, changeCounts: 1))
    }
}
