import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import Testing

@testable import InterstitialServer

/// Issue 32, item 4: the decisions made ahead of a break, claimed and shared by replicas in
/// PostgreSQL (``PostgresDecisionLedger``), on a real cluster (``PostgresCluster``).
@Suite("PostgreSQL decision ledger")
struct DecisionLedgerTests {
    static let logger = Logger(label: "hlsi.test.decision-ledger")
    static let channel = Target(.live, "news")
    static let start = DateTime(iso8601: "2030-01-01T00:00:00Z")!

    /// A store on a new database of the test cluster (30 s per operation: the deadline is not what
    /// these cases test); cancelled with the reason when PostgreSQL cannot run here.
    static func store(_ location: PostgresLocation? = nil) async throws -> PostgresStore {
        if let reason = await PostgresCluster.unavailability() {
            try Test.cancel("PostgreSQL cannot be started here: \(reason)")
        }
        if let location { return PostgresStore(location, logger: logger, timeout: .seconds(600)) }
        return PostgresStore(try await PostgresCluster.database(), logger: logger, timeout: .seconds(600))
    }

    static func keys(_ count: Int, breakID: String = "break-1", target: Target = channel) -> [DecisionKey] {
        (0..<count).map { DecisionKey(target: target, breakID: breakID, session: "viewer-\($0)") }
    }

    static func at(_ seconds: Double) -> DateTime { start + MediaTime(seconds: seconds) }

    @Test("A PostgreSQL store gives a shared ledger; SQLite gives none")
    func accessor() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try StoreLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path).open(
            logger: Self.logger)
        #expect(sqlite.decisionLedger == nil)
        try sqlite.close()
        let location = try PostgresLocation(url: "postgres://hlsi@localhost/hlsi?host=\(directory.path)")
        let postgres = PostgresStore(location, logger: Self.logger)
        let ledger = try #require(postgres.decisionLedger)
        #expect(ledger.isShared && ledger is PostgresDecisionLedger)
        postgres.close()
    }

    @Test("Batches hold at most 1,000 keys and 8 MiB of decisions")
    func batches() {
        let keys = Self.keys(2_500)
        #expect(PostgresDecisionLedger.batches(keys, bytes: { _ in 0 }).map(\.count) == [1_000, 1_000, 500])
        let large = PostgresDecisionLedger.batches(Array(keys.prefix(5)), bytes: { _ in 3 << 20 })
        #expect(large.map(\.count) == [2, 2, 1])
        #expect(PostgresDecisionLedger.batches([], bytes: { _ in 0 }).isEmpty)
    }

    @Test("Two replicas racing to claim the same 500 keys win each exactly once")
    func racingClaims() async throws {
        let one = try await Self.store()
        let two = try await Self.store(one.location)
        let a = PostgresDecisionLedger(store: one)
        let b = PostgresDecisionLedger(store: two)
        let keys = Self.keys(500)
        let now = Self.at(0)
        let until = Self.at(30)
        // A claims everything at once; B in chunks of 50, from the other end; both at the same time.
        async let wonByA = a.claim(keys, owner: "a", until: until, now: now)
        async let wonByB = Self.claimBackwards(b, keys, until: until, now: now)
        let (first, second) = try await (wonByA, wonByB)
        #expect(first.intersection(second).count == 0, "no key won twice")
        #expect(first.union(second).count == keys.count, "every key won once")
        // While the claims last, another claim wins nothing; a claimer claiming again keeps its keys
        // (a retry after a lost answer).
        #expect(try await b.claim(Array(first), owner: "b", until: Self.at(60), now: Self.at(10)).isEmpty)
        #expect(try await a.claim(Array(first), owner: "a", until: Self.at(60), now: Self.at(10)) == first)
        await one.shutdown()
        await two.shutdown()
    }

    /// Claims `keys` for `b` in chunks of 50, the last chunk first.
    static func claimBackwards(
        _ ledger: PostgresDecisionLedger, _ keys: [DecisionKey], until: DateTime, now: DateTime
    ) async throws -> Set<DecisionKey> {
        var won: Set<DecisionKey> = []
        for start in stride(from: keys.count - 50, through: 0, by: -50) {
            won.formUnion(try await ledger.claim(Array(keys[start..<start + 50]), owner: "b", until: until, now: now))
        }
        return won
    }

    @Test("A claim that lapsed without a decision is won again; a decided key never")
    func lapsedClaims() async throws {
        let one = try await Self.store()
        let two = try await Self.store(one.location)
        let a = PostgresDecisionLedger(store: one)
        let b = PostgresDecisionLedger(store: two)
        let keys = Self.keys(2)
        #expect(try await a.claim(keys, owner: "a", until: Self.at(30), now: Self.at(0)) == Set(keys))
        #expect(
            try await b.claim(keys, owner: "b", until: Self.at(40), now: Self.at(29.999)).isEmpty, "A's claim lasts")
        // A decides the first key, then stops (a restart inside the window): its other claim lapses.
        try await a.publish([keys[0]: Array("first".utf8)], expires: Self.at(600))
        #expect(try await b.claim(keys, owner: "b", until: Self.at(60), now: Self.at(30)) == [keys[1]])
        // Much later: the decided key is never won; B's claim lapsed too, and A takes it over.
        #expect(try await a.claim(keys, owner: "a", until: Self.at(10_000), now: Self.at(5_000)) == [keys[1]])
        #expect(try await a.decisions(keys) == [keys[0]: Array("first".utf8)])
        await one.shutdown()
        await two.shutdown()
    }

    @Test("Published decisions are read by key, and in publishing order by cursor, limit and break")
    func publishAndRead() async throws {
        let one = try await Self.store()
        let two = try await Self.store(one.location)
        let a = PostgresDecisionLedger(store: one)
        let b = PostgresDecisionLedger(store: two)
        let first = Self.keys(3, breakID: "break-1")
        let second = Self.keys(2, breakID: "break-2")
        let other = Self.keys(2, breakID: "break-1", target: Target(.live, "sport"))
        func body(_ key: DecisionKey) -> [UInt8] { Array("\(key)".utf8) }
        try await a.publish(Dictionary(uniqueKeysWithValues: first.map { ($0, body($0)) }), expires: Self.at(600))
        try await b.publish(Dictionary(uniqueKeysWithValues: second.map { ($0, body($0)) }), expires: Self.at(600))
        try await b.publish(Dictionary(uniqueKeysWithValues: other.map { ($0, body($0)) }), expires: Self.at(600))

        let wanted = first + [DecisionKey(target: Self.channel, breakID: "break-1", session: "undecided")]
        #expect(try await b.decisions(wanted) == Dictionary(uniqueKeysWithValues: first.map { ($0, body($0)) }))
        // The first decision of a key is kept.
        try await b.publish([first[0]: Array("later".utf8)], expires: Self.at(900))
        #expect(try await a.decisions([first[0]]) == [first[0]: body(first[0])])

        let page = try await b.published(target: Self.channel, breaks: ["break-1", "break-2"], after: 0, limit: 4)
        #expect(page.decisions.map(\.0) == first + [second[0]], "publishing order (keys sorted within a call)")
        #expect(page.decisions.allSatisfy { $0.1 == body($0.0) })
        let rest = try await a.published(
            target: Self.channel, breaks: ["break-1", "break-2"], after: page.cursor, limit: 4)
        #expect(rest.decisions.map(\.0) == [second[1]])
        let none = try await a.published(
            target: Self.channel, breaks: ["break-1", "break-2"], after: rest.cursor, limit: 4)
        #expect(none.decisions.isEmpty && none.cursor == rest.cursor, "the cursor stays when nothing is new")
        let onlySecond = try await a.published(target: Self.channel, breaks: ["break-2"], after: 0, limit: 100)
        #expect(onlySecond.decisions.map(\.0) == second)
        #expect(try await a.published(target: Self.channel, breaks: [], after: 0, limit: 100).decisions.isEmpty)
        #expect(try await a.published(target: Self.channel, breaks: ["break-1"], after: 0, limit: 0).decisions.isEmpty)

        // Over a batch: 1,200 decisions in two statements, read back in one call (at most 10,000).
        let many = Self.keys(1_200, breakID: "break-3")
        try await a.publish(Dictionary(uniqueKeysWithValues: many.map { ($0, body($0)) }), expires: Self.at(600))
        let all = try await b.published(target: Self.channel, breaks: ["break-3"], after: 0, limit: 1_000_000)
        #expect(all.decisions.count == 1_200 && Set(all.decisions.map(\.0)) == Set(many))
        #expect(try await b.decisions(many).count == 1_200)
        await one.shutdown()
        await two.shutdown()
    }

    @Test("Pruning drops expired decisions and claims lapsed over an hour ago, and keeps the rest")
    func prune() async throws {
        let store = try await Self.store()
        let ledger = PostgresDecisionLedger(store: store)
        let expired = Self.keys(3, breakID: "ended")
        let current = Self.keys(2, breakID: "current")
        let oldClaims = Self.keys(4, breakID: "old-claims")
        let recentClaims = Self.keys(5, breakID: "recent-claims")
        try await ledger.publish(Dictionary(uniqueKeysWithValues: expired.map { ($0, [1]) }), expires: Self.at(100))
        try await ledger.publish(Dictionary(uniqueKeysWithValues: current.map { ($0, [2]) }), expires: Self.at(10_000))
        _ = try await ledger.claim(oldClaims, owner: "a", until: Self.at(1_000), now: Self.at(0))
        _ = try await ledger.claim(recentClaims, owner: "a", until: Self.at(3_000), now: Self.at(0))
        // At 4,600 s: decisions expired at 100 s, claims lapsed at 1,000 s (over an hour) go.
        #expect(try await ledger.prune(now: Self.at(4_600)) == 7)
        #expect(try await ledger.decisions(expired + current).keys.sorted { $0.session < $1.session } == current)
        #expect(try await ledger.claim(recentClaims, owner: "b", until: Self.at(5_000), now: Self.at(2_000)).isEmpty)
        #expect(try await ledger.prune(now: Self.at(4_600)) == 0)
        await store.shutdown()
    }

    @Test(
        "Issue 42: a replica writes at most its quota of rows per target and break; a flood of sessions for one break stops there, other breaks keep theirs"
    )
    func quotaPerBreak() async throws {
        let store = try await Self.store()
        let ledger = PostgresDecisionLedger(store: store, quota: DecisionLedgerQuota(perBreak: 10))
        let won = try await ledger.claim(Self.keys(30), owner: "a", until: Self.at(30), now: Self.at(0))
        #expect(won.count == 10)
        let flood = Self.keys(30, breakID: "break-2")
        try await ledger.publish(Dictionary(uniqueKeysWithValues: flood.map { ($0, [1]) }), expires: Self.at(600))
        let published = try await ledger.published(target: Self.channel, breaks: ["break-2"], after: 0, limit: 100)
        #expect(published.decisions.count == 10)
        #expect(try await ledger.decisions(flood).count == 10)
        #expect(ledger.quota.count(target: Self.channel, breakID: "break-2") == 10)
        // Another break, and another target, have quotas of their own.
        #expect(
            try await ledger.claim(Self.keys(5, breakID: "break-3"), owner: "a", until: Self.at(30), now: Self.at(0))
                .count == 5)
        let other = Self.keys(5, target: Target(.live, "sports"))
        #expect(try await ledger.claim(other, owner: "a", until: Self.at(30), now: Self.at(0)).count == 5)
        // Once the break's rows are gone, its count is forgotten.
        _ = try await ledger.prune(now: Self.at(100_000))
        #expect(ledger.quota.count(target: Self.channel, breakID: "break-2") == 0)
        await store.shutdown()
    }

    @Test("A decision over 64 KiB is refused and nothing of its call is published")
    func oversizedDecision() async throws {
        let store = try await Self.store()
        let ledger = PostgresDecisionLedger(store: store)
        let keys = Self.keys(2)
        do {
            try await ledger.publish(
                [keys[0]: [UInt8](repeating: 0x41, count: 65 * 1024), keys[1]: [1]], expires: Self.at(600))
            Issue.record("a 65 KiB decision was published")
        } catch let error as StoreError {
            #expect(error.code == .decisionTooLarge)
            #expect(error.message.contains("\(keys[0])") && error.message.contains("66560 bytes"), "\(error)")
        }
        #expect(try await ledger.decisions(keys).isEmpty)
        let largest = [UInt8](repeating: 0x42, count: PostgresDecisionLedger.maximumBodyBytes)
        try await ledger.publish([keys[0]: largest], expires: Self.at(600))
        #expect(try await ledger.decisions(keys) == [keys[0]: largest], "64 KiB exactly is kept whole")
        await store.shutdown()
    }

    @Test("With the database stopped the ledger fails at its deadline, and works again when it is back")
    func databaseDown() async throws {
        if let reason = await PostgresCluster.unavailability() {
            try Test.cancel("PostgreSQL cannot be started here: \(reason)")
        }
        let cluster = try await PostgresCluster.startPrivate()
        // The store's deadlines are on a manual clock: an operation fails by its deadline only when
        // the test moves the clock past it, never because a loaded machine was slow.
        let clock = ManualServerClock.starting()
        let store = PostgresStore(
            try PostgresCluster.location(cluster), logger: Self.logger, timeout: .seconds(2), clock: clock)
        let ledger = PostgresDecisionLedger(store: store)
        let keys = Self.keys(3)
        // A new cluster's first connections and migration take what they take (no deadline passes);
        // tried until they succeed (the bound only guards against a hang).
        #expect(
            try await eventually {
                (try? await ledger.claim([keys[0]], owner: "a", until: Self.at(30), now: Self.at(0))) != nil
            })

        try await PostgresCluster.stop(cluster)
        // The pool alone would wait for its circuit breaker (60 s): each operation ends by the
        // store's own deadline, which its error names.
        let claim = try await Self.failure(on: clock, after: .seconds(2)) {
            _ = try await ledger.claim([keys[1]], owner: "a", until: Self.at(30), now: Self.at(0))
        }
        #expect(claim?.code == .databaseUnavailable, "\(String(describing: claim))")
        #expect(
            claim?.message.contains("no answer within \(Duration.seconds(2))") == true, "\(String(describing: claim))")
        let read = try await Self.failure(on: clock, after: .seconds(2)) { _ = try await ledger.decisions(keys) }
        #expect(read?.code == .databaseUnavailable, "\(String(describing: read))")
        #expect(
            read?.message.contains("no answer within \(Duration.seconds(2))") == true, "\(String(describing: read))")

        try await PostgresCluster.restart(cluster)
        // The pool reconnects on its own (real) time; no deadline passes on the manual clock while
        // it does, and an operation refused meanwhile is tried again.
        #expect(
            try await eventually {
                (try? await ledger.claim([keys[2]], owner: "a", until: Self.at(30), now: Self.at(0))) == [keys[2]]
            })
        #expect(try await eventually { (try? await ledger.publish([keys[2]: [7]], expires: Self.at(600))) != nil })
        #expect(try await eventually { (try? await ledger.decisions([keys[2]])) == [keys[2]: [7]] })
        await store.shutdown()
        try await PostgresCluster.stop(cluster)
    }

    /// The ``StoreError`` `operation` fails with, its store's deadline on `clock` (see
    /// ``failureAtDeadline(on:after:_:)``).
    static func failure(
        on clock: ManualServerClock, after deadline: Duration, _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> StoreError? {
        guard let error = try await failureAtDeadline(on: clock, after: deadline, operation) else {
            return nil
        }
        guard let storeError = error as? StoreError else {
            Issue.record("not a StoreError: \(error)")
            return nil
        }
        return storeError
    }
}
