import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import Testing

@testable import InterstitialServer

/// The stores a contract test runs against.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A database for one test: an SQLite file in a temporary directory, or a new database on the test
/// cluster (``PostgresCluster``). A PostgreSQL case is cancelled (skipped, with the reason) when
/// PostgreSQL cannot be started here.
struct StoreDatabase: Sendable {
    let location: StoreLocation
    private let directory: String?

    init(_ backend: StoreBackend) async throws {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.directory = directory.path
            location = .sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        case .postgres:
            if let reason = await PostgresCluster.unavailability() {
                try Test.cancel("PostgreSQL cannot be started here: \(reason)")
            }
            directory = nil
            location = .postgres(try await PostgresCluster.database())
        }
    }

    static let logger = Logger(label: "hlsi.test.store")

    /// Opens a store on the database; PostgreSQL operations get 30 s (the whole suite runs at once on
    /// a small machine: a deadline here tests nothing but the load).
    func open() throws -> any ServerStore {
        if case .postgres(let postgres) = location {
            return PostgresStore(postgres, logger: Self.logger, timeout: .seconds(600))
        }
        return try location.open(logger: Self.logger)
    }

    /// Runs `body` with a store of its own, closed after (so that an SQLite file can be opened again).
    func withStore<T: Sendable>(_ body: (any ServerStore) async throws -> T) async throws -> T {
        let store = try open()
        do {
            let result = try await body(store)
            try store.close()
            return result
        } catch {
            try? store.close()
            throw error
        }
    }

    /// What a newly opened store loads.
    func freshLoad() async throws -> StoredState { try await withStore { try await $0.load() } }

    /// Removes the SQLite file's directory.
    func remove() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}

/// Issue 20: the contract every ``ServerStore`` keeps, run against SQLite and PostgreSQL alike.
@Suite("Store contract (SQLite and PostgreSQL)")
struct StoreContractTests {
    /// One of each change, in an order where every delete finds something to delete.
    static func everyChange() throws -> [StoreChange] {
        let seed = try ServerConfiguration.demo().seed
        let schedule = try #require(seed.schedules.first)
        let item = try #require(seed.breaks.first)
        let ad = try #require(seed.inventory.first)
        let key = ServedKey(item.target, item.id)
        let attributes: AttributeList = [("ID", try .quoted(item.id)), ("X-N", .integer(1))]
        let other = ServedKey(Target(.live, "elsewhere"), "gone")
        let changes: [StoreChange] = [
            .saveSchedule(schedule), .saveBreak(item), .saveAd(ad), .served(key, attributes),
            .earlyReturn(key, playoutLimit: MediaTime(seconds: 12.5)), .withdraw(other), .seeded,
            .deleteSchedule(schedule.target), .deleteBreak(id: item.id), .deleteAd(id: ad.id),
        ]
        return changes
    }

    @Test(
        "Every kind of change round-trips: written by one store, loaded by a fresh one",
        arguments: StoreBackend.allCases)
    func everyChangeRoundTrips(_ backend: StoreBackend) async throws {
        let database = try await StoreDatabase(backend)
        defer { database.remove() }
        #expect(try await database.freshLoad() == StoredState())
        var expected = StoredState()
        var kinds: Set<String> = []
        for change in try Self.everyChange() {
            expected.apply(change)
            try await database.withStore { try await $0.write([change]) }
            let loaded = try await database.freshLoad()
            #expect(loaded == expected, "after \(change)")
            kinds.insert(String("\(change)".prefix { $0 != "(" }))
        }
        #expect(kinds.count == 10, "every StoreChange case is exercised: \(kinds.sorted())")
        #expect(expected.served.count == 1 && expected.earlyReturns.count == 1 && expected.withdrawn.count == 1)
        #expect(expected.isSeeded)
    }

    @Test("A transaction of several changes is stored whole", arguments: StoreBackend.allCases)
    func transactionIsWhole(_ backend: StoreBackend) async throws {
        let database = try await StoreDatabase(backend)
        defer { database.remove() }
        let changes = try Self.everyChange().prefix(7)
        try await database.withStore { try await $0.write(Array(changes)) }
        var expected = StoredState()
        for change in changes { expected.apply(change) }
        #expect(try await database.freshLoad() == expected)
    }

    @Test("A served value is first-writer-wins across two stores on one database", arguments: StoreBackend.allCases)
    func servedFirstWriterWins(_ backend: StoreBackend) async throws {
        let database = try await StoreDatabase(backend)
        defer { database.remove() }
        let key = ServedKey(Target(.live, "channel"), "break-1")
        let first: AttributeList = [("ID", try .quoted("break-1")), ("X-N", .integer(1))]
        let second: AttributeList = [("ID", try .quoted("break-1")), ("X-N", .integer(2))]
        try await database.withStore { try await $0.write([.served(key, first)]) }
        try await database.withStore { try await $0.write([.served(key, second)]) }
        #expect(try await database.freshLoad().served[key] == first)
    }

    @Test(
        "Viewer request counts: shared by PostgreSQL stores, started again after their expiry, pruned; SQLite keeps none"
    )
    func viewerRequests() async throws {
        let sqlite = try await StoreDatabase(.sqlite)
        defer { sqlite.remove() }
        let none = try await sqlite.withStore {
            try await $0.countViewerRequest(viewer: "v", target: Target(.vod, "a"), id: "b", expiry: .seconds(60))
        }
        #expect(none == nil, "a store of one server leaves counting to the server's memory")
        let database = try await StoreDatabase(.postgres)
        let one = try database.open()
        let two = try database.open()
        let target = Target(.live, "channel")
        func count(_ store: any ServerStore, _ viewer: String, expiry: Duration = .seconds(3600)) async throws -> Int? {
            try await store.countViewerRequest(viewer: viewer, target: target, id: "break-1", expiry: expiry)
        }
        #expect(try await count(one, "v1") == 0)
        #expect(try await count(two, "v1") == 1)
        #expect(try await count(one, "v1") == 2)
        #expect(try await count(two, "v2") == 0)
        // An expiry of zero: each count has expired by the next request, which starts again.
        #expect(try await count(one, "v3", expiry: .zero) == 0)
        #expect(try await count(two, "v3", expiry: .zero) == 0)
        // Pruning drops the expired count (v3), then all but the most recent `limit`.
        #expect(try await one.pruneViewerRequests(limit: 10) == 1)
        #expect(try await two.pruneViewerRequests(limit: 1) == 1)
        #expect(try await count(one, "v2") == 1, "the most recent count stays")
        #expect(try await count(one, "v1") == 0, "v1 was dropped")
        // Counted in one statement (the requests a replica counted itself): each key by its count.
        let key = { (viewer: String) in ViewerRequestKey(viewer: viewer, target: target, id: "break-1") }
        try await one.countViewerRequests([key("v1"): 2, key("v5"): 3], expiry: .seconds(3600))
        #expect(try await count(two, "v1") == 3, "one counted before, two in the batch")
        #expect(try await count(two, "v5") == 3)
        try await two.countViewerRequests([key("v6"): 1], expiry: .zero)
        try await two.countViewerRequests([key("v6"): 4], expiry: .seconds(3600))
        #expect(try await count(one, "v6") == 4, "an expired count starts again from the batch's")
        try await one.countViewerRequests([:], expiry: .seconds(3600))
        try one.close()
        try two.close()
    }

    @Test("Two PostgreSQL stores racing to serve the same date range store exactly one value")
    func servedRace() async throws {
        let database = try await StoreDatabase(.postgres)
        let one = try database.open()
        let two = try database.open()
        let keys = (0..<20).map { ServedKey(Target(.live, "channel"), "break-\($0)") }
        async let written1: Void = one.write(
            try keys.map { .served($0, [("ID", try .quoted($0.id)), ("X-N", .integer(1))]) })
        async let written2: Void = two.write(
            try keys.map { .served($0, [("ID", try .quoted($0.id)), ("X-N", .integer(2))]) })
        _ = try await (written1, written2)
        let fromOne = try await one.load()
        let fromTwo = try await two.load()
        #expect(fromOne.served.count == keys.count)
        #expect(fromOne == fromTwo, "both stores load the same served values")
        // Writing again changes nothing: the stored values are what count.
        try await two.write(try keys.map { .served($0, [("ID", try .quoted($0.id)), ("X-N", .integer(3))]) })
        #expect(try await one.load() == fromOne)
        try one.close()
        try two.close()
    }

    @Test("PostgreSQL stores opened together migrate once; opening again migrates nothing")
    func migrationsRunOnce() async throws {
        let database = try await StoreDatabase(.postgres)
        guard case .postgres(let location) = database.location else { return }
        let stores = (0..<4).map { _ in PostgresStore(location, logger: StoreDatabase.logger, timeout: .seconds(600)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { _ = try await store.changeCount() } }
            try await group.waitForAll()
        }
        let versions = StoreMigrations.postgres.migrations.map(\.version)
        for store in stores { #expect(try await store.appliedMigrations() == versions) }
        try await stores[0].write([.seeded])
        for store in stores { await store.shutdown() }
        let again = PostgresStore(location, logger: StoreDatabase.logger, timeout: .seconds(600))
        #expect(try await again.appliedMigrations() == versions)
        #expect(try await again.load().isSeeded, "the data survives")
        await again.shutdown()
    }

    @Test("The change count moves with every committed write of any store, and only then")
    func changeCountMoves() async throws {
        let database = try await StoreDatabase(.postgres)
        let one = try database.open()
        let two = try database.open()
        #expect(one.isShared && two.isShared)
        let start = try await one.changeCount()
        _ = try await two.load()
        #expect(try await one.changeCount() == start, "reading moves nothing")
        try await two.write([.seeded])
        #expect(try await one.changeCount() == start + 1)
        try await one.write([.seeded, .withdraw(ServedKey(Target(.vod, "a"), "b"))])
        #expect(try await two.changeCount() == start + 2, "one transaction, one step")
        try one.close()
        try two.close()
    }

    @Test(
        "Database locations: PostgreSQL URLs, SQLite files, memory; malformed URLs are refused with a reason",
        arguments: [
            ("postgres://app:secret@db.example:6543/hlsi", "postgres://app@db.example:6543/hlsi"),
            ("postgresql://app@10.0.0.5/hlsi?sslmode=require", "postgres://app@10.0.0.5:5432/hlsi"),
            ("postgres://app@localhost/hlsi?host=/run/pg", "postgres://app@localhost:5432/hlsi?host=/run/pg"),
            ("postgres://app@db/", "postgres://app@db:5432/app"),
            ("state.sqlite", "sqlite state.sqlite"),
            ("postgres://db/hlsi", "error: names no user"),
            ("postgres://app@db/hlsi?sslmode=verify-full", "error: has sslmode=verify-full"),
            ("postgres://app@db/hlsi?pool=3", "error: has an unknown parameter pool"),
        ])
    func locations(_ text: String, _ expected: String) {
        do {
            switch try StoreLocation(text) {
            case .postgres(let location): #expect(location.description == expected)
            case .sqlite(let path): #expect("sqlite \(path)" == expected)
            case .memory: Issue.record("\(text) is not memory")
            }
        } catch {
            #expect(error.code == .databaseURL)
            #expect(expected.hasPrefix("error: ") && error.message.contains(expected.dropFirst(7)), "\(error)")
            #expect(!error.message.contains("secret"))
        }
        #expect(throws: Never.self) {
            guard case .memory = try StoreLocation(nil) else {
                Issue.record("nil is memory")
                return
            }
        }
    }

    @Test(
        "Issue 37: the beacon relay's secret is stored once and the same for every store on a database",
        arguments: StoreBackend.allCases)
    func relaySecret(_ backend: StoreBackend) async throws {
        let database = try await StoreDatabase(backend)
        defer { database.remove() }
        let first = [UInt8](repeating: 1, count: 32)
        let second = [UInt8](repeating: 2, count: 32)
        #expect(try await database.withStore { try await $0.relaySecret(proposing: first) } == first)
        #expect(try await database.withStore { try await $0.relaySecret(proposing: second) } == first, "kept")
        if backend == .postgres {
            // Replicas open together (one SQLite file has one server at a time).
            let (a, b) = try await database.withStore { store in
                try await database.withStore { other in
                    (try await store.relaySecret(proposing: second), try await other.relaySecret(proposing: second))
                }
            }
            #expect(a == first && b == first)
        }
        #expect(try await database.freshLoad() == StoredState(), "the secret is no part of the loaded state")
    }
}
