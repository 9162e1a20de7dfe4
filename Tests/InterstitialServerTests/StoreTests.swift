import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// A store whose writes wait at a gate while it is closed, like a database another process has locked.
final class GatedStore: ServerStore {
    let base: SQLiteStore
    private let state = NIOLockedValueBox<(closed: Bool, waiting: Int, waiters: [CheckedContinuation<Void, Never>])>(
        (false, 0, []))

    init() throws { base = try SQLiteStore(path: nil) }

    func close() { state.withLockedValue { $0.closed = true } }

    func open() {
        let waiters = state.withLockedValue { state in
            defer { state = (false, state.waiting, []) }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Writes waiting at the gate.
    var waiting: Int { state.withLockedValue { $0.waiting } }

    func load() throws -> StoredState { try base.load() }

    func write(_ changes: [StoreChange]) async throws {
        await withCheckedContinuation { continuation in
            let wait = state.withLockedValue { state in
                guard state.closed else { return false }
                state.waiting += 1
                state.waiters.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
        state.withLockedValue { if $0.waiting > 0 { $0.waiting -= 1 } }
        try await base.write(changes)
    }
}

/// A store whose writes fail while `failing` is set, like a full disk.
final class FlakyStore: ServerStore {
    let base: SQLiteStore
    private let state = NIOLockedValueBox((failing: false, failures: 0))

    init() throws { base = try SQLiteStore(path: nil) }

    var failing: Bool {
        get { state.withLockedValue { $0.failing } }
        set { state.withLockedValue { $0.failing = newValue } }
    }

    /// Writes refused so far.
    var failures: Int { state.withLockedValue { $0.failures } }

    func load() throws -> StoredState { try base.load() }

    func write(_ changes: [StoreChange]) async throws {
        let fail = state.withLockedValue { state in
            if state.failing { state.failures += 1 }
            return state.failing
        }
        if fail { throw StoreError(code: .databaseError, "the disk is full") }
        try await base.write(changes)
    }
}

/// Issue 14, item 7: no disk write under the shared state lock, one server per database file, and
/// all-or-nothing store transactions.
@Suite("Store and shared state")
struct StoreTests {
    @Test("A stuck admin write does not hold up playlist GETs")
    func readersDoNotWaitForWriters() async throws {
        let store = try GatedStore()
        try await Harness.withServer(store: store) { client in
            // Served values of the first GET are recorded in the background; let them land.
            _ = try await client.text("/demo/vod/video/main.m3u8")
            #expect(try await eventually { try store.load().served.count == 4 })
            store.close()
            let port = try #require(client.port)
            let post = Task {
                try await client.admin(.post, "breaks", #"{"id":"late","target":"vod/demo","at":20,"duration":4}"#)
            }
            #expect(try await eventually { store.waiting == 1 }, "the POST is writing")
            // Other connections (the test client's requests queue behind the POST on its own).
            #expect(try await get(port: port, "/demo/vod/video/main.m3u8").status == 200)
            #expect(try await get(port: port, "/demo/vod/audio-en/main.m3u8").status == 200)
            #expect(try await get(port: port, "/demo/vod/video/seg001.m4s").status == 200)
            #expect(try await get(port: port, "/demo/vod/timeline.json").status == 200)
            store.open()
            #expect(try await post.value.status == .created)
            #expect(try await client.admin(.get, "breaks/late").status == .ok)
        }
    }

    @Test("A date range served for the first time is on disk before the response goes out")
    func servedValuesRecordedBeforeTheyAreSeen() async throws {
        let store = try GatedStore()
        var configuration = try Harness.demo()
        configuration.limits.servedRecordTimeout = MediaTime(seconds: 600)
        try await Harness.withServer(configuration, store: store) { client in
            store.close()
            let answered = NIOLockedValueBox(false)
            let first = Task {
                let text = try await client.text("/demo/vod/video/main.m3u8")
                answered.withLockedValue { $0 = true }
                return text
            }
            #expect(try await eventually { store.waiting == 1 }, "the record is being written")
            #expect(!answered.withLockedValue { $0 }, "no response before the record")
            #expect(try store.load().served.isEmpty)
            store.open()
            let text = try await first.value
            #expect(dateRangeLines(text).count == 4)
            #expect(try store.load().served.count == 4, "recorded before the response")
            #expect(try await client.text("/demo/vod/audio-fr/main.m3u8").contains(dateRangeLines(text)[0]))
            #expect(try await client.text("/demo/vod/video/main.m3u8") == text)
        }
    }

    @Test("A stuck store delays a first serving by servedRecordTimeout at most; a failed record is retried")
    func servedRecordTimeoutAndRetry() async throws {
        let store = try FlakyStore()
        var configuration = try Harness.demo()
        configuration.limits.servedRecordTimeout = MediaTime(seconds: 0.2)
        try await Harness.withServer(configuration, store: store) { client in
            store.failing = true
            let first = try await client.text("/demo/vod/video/main.m3u8")
            #expect(dateRangeLines(first).count == 4, "served although the store refused the record")
            #expect(try await eventually { store.failures >= 2 }, "the record is retried")
            #expect(try store.load().served.isEmpty)
            store.failing = false
            #expect(try await eventually { try store.load().served.count == 4 }, "nothing is dropped")
            #expect(try await client.text("/demo/vod/video/main.m3u8") == first)
        }
    }

    @Test("The first request to serve a date range wins; another request's values are refused")
    func firstServingWins() throws {
        let state = try ServerState(store: SQLiteStore(path: nil))
        let key = ServedKey(Target(.vod, "a"), "b")
        let one: AttributeList = [("ID", try .quoted("b")), ("X-N", .integer(1))]
        let two: AttributeList = [("ID", try .quoted("b")), ("X-N", .integer(2))]
        #expect(state.claimServed([(key, one)]) == [key], "claimed, not yet recorded")
        #expect(state.claimServed([(key, two)]) == nil)
        #expect(state.claimServed([(key, one)]) == [key])
        #expect(state.snapshot.served[key] == one)
    }

    @Test("A second server on the same database file refuses to start, naming the file")
    func oneServerPerDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.sqlite").path
        var configuration = try Harness.demo()
        configuration.database = path
        do {
            let first = try InterstitialServer(configuration: configuration, logger: Harness.logger)
            do {
                _ = try InterstitialServer(configuration: configuration, logger: Harness.logger)
                Issue.record("a second server opened \(path)")
            } catch let error as StoreError {
                #expect(error.code == .databaseInUse)
                #expect(error.message.contains(path))
            }
            #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
            _ = first
        }
        // Once the first is gone, the file can be opened again.
        _ = try SQLiteStore(path: path)
    }

    @Test("A store transaction writes all of its changes or none: the seed is never half stored")
    func seedIsOneTransaction() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.sqlite").path
        do {
            let store = try SQLiteStore(path: path)
            _ = try store.load()
        }
        // The database refuses one ad of the seed, as a full disk or a constraint would.
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(
                sql:
                    "CREATE TRIGGER refuse BEFORE INSERT ON ad WHEN NEW.id = 'boom' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        }
        try database.close()
        let store = try SQLiteStore(path: path)
        let state = try ServerState(store: store)
        var seed = try ServerConfiguration.demo().seed
        seed.inventory.append(Ad(id: "boom", uri: "/boom.m3u8", duration: MediaTime(seconds: 1)))
        await #expect(throws: (any Error).self) { try await state.seed(seed) }
        let stored = try store.load()
        #expect(stored.ads.isEmpty && stored.breaks.isEmpty && stored.schedules.isEmpty && !stored.isSeeded)
        #expect(state.snapshot.ads.isEmpty, "memory is unchanged too")
        seed.inventory.removeLast()
        try await state.seed(seed)
        #expect(try store.load().ads.count == 3)
        #expect(try store.load().isSeeded)
    }

    @Test("A failing store stores nothing of the seed, on disk or in memory, and says so; the next try stores it whole")
    func failedSeedStoresNothing() async throws {
        let store = try FlakyStore()
        let state = try ServerState(store: store)
        let seed = try ServerConfiguration.demo().seed
        #expect(!seed.inventory.isEmpty && !seed.breaks.isEmpty && !seed.schedules.isEmpty)
        store.failing = true
        do {
            try await state.seed(seed)
            Issue.record("the seed was stored by a failing store")
        } catch let error as StoreError {
            #expect(error.code == .seed)
            #expect(error.message.contains("nothing of it was stored") && error.message.contains("the disk is full"))
        }
        #expect(store.failures == 1, "one transaction, refused once")
        #expect(try store.load() == StoredState())
        #expect(state.snapshot == StoredState())
        #expect(!state.isWriting)
        store.failing = false
        try await state.seed(seed)
        let stored = try store.load()
        #expect(stored.isSeeded && stored.ads.count == seed.inventory.count && stored.breaks.count == seed.breaks.count)
        #expect(stored.schedules.count == seed.schedules.count)
        #expect(state.snapshot == stored)
    }
}
