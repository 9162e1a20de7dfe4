import Foundation
import HLSInterstitials
import HLSPlaylist
import NIOCore
import PostgresNIO

/// A ``DecisionLedger`` in the PostgreSQL database the replicas share, on the connection pool of
/// their ``PostgresStore``: each viewer's decision for a break is claimed by one replica, made once,
/// and read by all.
///
/// One row per key in `decisions` (migration 4): who claimed it and until when, then its decision
/// (`body`), when that expires, and its publishing number (`seq`, from `decision_sequence`).
///
/// - Claims are one `INSERT … ON CONFLICT DO UPDATE … WHERE … RETURNING` per batch: a key is won when
///   it is new, when the claim on it lapsed without a decision, or when its claimer claims it again
///   (a claim whose answer was lost to a timeout can be retried); never while another replica's claim
///   lasts, never once decided. PostgreSQL's row locks make two replicas racing for a key get one
///   winner. Keys are claimed in one order (sorted) on every replica, so batches never deadlock.
/// - Times are the replicas' clocks (`now` and `until` as given, not the database's `now()`): claims
///   are as good as the replicas' clocks agree, so a claim should last well beyond their skew.
/// - Publishing keeps the first decision of a key (a replica that decided while the database was
///   down and publishes later does not replace it: ``decisions(_:)`` gives the one kept). Publishers
///   take one transaction-level advisory lock, so publishing numbers are visible in their order and a
///   reader following ``published(target:breaks:after:limit:)`` with its cursor never skips one
///   committed late.
/// - The table is `UNLOGGED`, as the viewer counts: decisions are soft state that expires with its
///   break; a crash of the database forgets them, and viewers then get decisions made live. The
///   sequence is logged, so cursors stay valid.
/// - Bounds: at most ``batchKeys`` keys (and ``batchBytes`` of decisions) per statement, larger calls
///   are split; ``maximumBodyBytes`` per decision; at most ``maximumLimit`` decisions per read; each
///   replica writes at most `DecisionLedgerQuota/perBreak` rows (claims and decisions) per target
///   and break (`quota`): keys past it are neither claimed (not won) nor published.
///
/// Every operation has the store's deadline: a database down or too slow fails it with
/// ``StoreError`` `database-unavailable` instead of waiting.
public struct PostgresDecisionLedger: DecisionLedger {
    /// The store whose database and connections the ledger uses.
    public let store: PostgresStore

    /// The most bytes one decision may have: a larger one is refused (`decision-too-large`), never
    /// cut; a decision that large is a bug or an attack.
    public static let maximumBodyBytes = 64 * 1024
    /// The most keys one statement sends; larger calls are split.
    public static let batchKeys = 1_000
    /// The most bytes of decisions one publishing statement sends; larger calls are split.
    public static let batchBytes = 8 * 1024 * 1024
    /// The most decisions one ``published(target:breaks:after:limit:)`` returns.
    public static let maximumLimit = 10_000
    /// How long after it lapsed a claim without a decision is kept (then ``prune(now:)`` drops it).
    public static let lapsedClaimRetention = MediaTime(seconds: 3600)
    /// The advisory lock publishers hold (`hlsi` as in the migrations, and 1), so that publishing
    /// numbers commit in order.
    static let publishLock: (Int32, Int32) = (0x686c_7369, 1)

    /// The rows this replica may still write per target and break.
    let quota: DecisionLedgerQuota

    /// Creates the ledger on `store`'s database.
    public init(store: PostgresStore) {
        self.init(store: store, quota: DecisionLedgerQuota())
    }

    /// Creates the ledger on `store`'s database, writing at most what `quota` allows per break.
    init(store: PostgresStore, quota: DecisionLedgerQuota) {
        self.store = store
        self.quota = quota
    }

    /// Shared: every replica on the database sees the claims and decisions.
    public var isShared: Bool { true }

    public func claim(
        _ keys: [DecisionKey], owner: String, until: DateTime, now: DateTime
    ) async throws -> Set<DecisionKey> {
        // A claim that lapses without a decision stays until ``prune(now:)`` drops it.
        let allowed = quota.take(Self.sorted(Set(keys)), until: until + Self.lapsedClaimRetention)
        let batches = Self.batches(allowed, bytes: { _ in 0 })
        guard !batches.isEmpty else { return [] }
        let store = store
        let until = until.date
        let now = now.date
        return try await store.guarded("claim \(keys.count) decisions") {
            try await store.migrated()
            var won: Set<DecisionKey> = []
            for batch in batches {
                let columns = KeyColumns(batch)
                let rows = try await store.client.query(
                    """
                    INSERT INTO decisions AS d (target, break_id, session, owner, claimed_until)
                    SELECT k.target, k.break_id, k.session, \(owner), \(until)
                    FROM unnest(\(columns.targets)::text[], \(columns.breaks)::text[], \(columns.sessions)::text[])
                    AS k(target, break_id, session)
                    ON CONFLICT (target, break_id, session) DO UPDATE
                    SET owner = EXCLUDED.owner, claimed_until = EXCLUDED.claimed_until
                    WHERE d.body IS NULL AND (d.claimed_until <= \(now) OR d.owner = EXCLUDED.owner)
                    RETURNING d.target, d.break_id, d.session
                    """, logger: store.logger)
                for try await row in rows.decode((String, String, String).self) {
                    if let key = columns.key(row) { won.insert(key) }
                }
            }
            return won
        }
    }

    public func publish(_ decisions: [DecisionKey: [UInt8]], expires: DateTime) async throws {
        if let oversized = decisions.first(where: { $0.value.count > Self.maximumBodyBytes }) {
            throw StoreError(
                code: .decisionTooLarge,
                "cannot publish the decision \(oversized.key): its \(oversized.value.count) bytes are over the \(Self.maximumBodyBytes)-byte bound of a decision (a decision that large is a bug or an attack); nothing was published"
            )
        }
        let allowed = quota.take(Self.sorted(Set(decisions.keys)), until: expires)
        let batches = Self.batches(allowed, bytes: { decisions[$0]?.count ?? 0 })
        guard !batches.isEmpty else { return }
        let store = store
        let expires = expires.date
        let lock = Self.publishLock
        try await store.guarded("publish \(decisions.count) decisions") {
            try await store.migrated()
            let logger = store.logger
            try await store.client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lock.0), \(lock.1))", logger: logger)
                for batch in batches {
                    let columns = KeyColumns(batch)
                    let bodies = batch.map { ByteBuffer(bytes: decisions[$0] ?? []) }
                    try await connection.query(
                        """
                        INSERT INTO decisions AS d (target, break_id, session, owner, claimed_until, body, expires, seq)
                        SELECT k.target, k.break_id, k.session, '', \(expires), k.body, \(expires),
                        nextval('decision_sequence')
                        FROM unnest(\(columns.targets)::text[], \(columns.breaks)::text[], \(columns.sessions)::text[],
                        \(bodies)::bytea[]) AS k(target, break_id, session, body)
                        ON CONFLICT (target, break_id, session) DO UPDATE
                        SET body = EXCLUDED.body, expires = EXCLUDED.expires, seq = EXCLUDED.seq
                        WHERE d.body IS NULL
                        """, logger: logger)
                }
            }
        }
    }

    public func decisions(_ keys: [DecisionKey]) async throws -> [DecisionKey: [UInt8]] {
        let batches = Self.batches(Self.sorted(Set(keys)), bytes: { _ in 0 })
        guard !batches.isEmpty else { return [:] }
        let store = store
        return try await store.guarded("read \(keys.count) decisions") {
            try await store.migrated()
            var found: [DecisionKey: [UInt8]] = [:]
            for batch in batches {
                let columns = KeyColumns(batch)
                let rows = try await store.client.query(
                    """
                    SELECT d.target, d.break_id, d.session, d.body FROM decisions d
                    JOIN unnest(\(columns.targets)::text[], \(columns.breaks)::text[], \(columns.sessions)::text[])
                    AS k(target, break_id, session) USING (target, break_id, session)
                    WHERE d.body IS NOT NULL
                    """, logger: store.logger)
                let decoded = rows.decode((String, String, String, ByteBuffer).self)
                for try await (target, breakID, session, body) in decoded {
                    if let key = columns.key((target, breakID, session)) { found[key] = Array(body.readableBytesView) }
                }
            }
            return found
        }
    }

    public func published(
        target: Target, breaks: [String], after cursor: Int64, limit: Int
    ) async throws -> (decisions: [(DecisionKey, [UInt8])], cursor: Int64) {
        let limit = min(limit, Self.maximumLimit)
        guard !breaks.isEmpty, limit > 0 else { return ([], cursor) }
        let store = store
        let text = target.description
        let breaks = Array(Set(breaks))
        return try await store.guarded("read the decisions published for \(target)") {
            try await store.migrated()
            let rows = try await store.client.query(
                """
                SELECT break_id, session, body, seq FROM decisions
                WHERE target = \(text) AND break_id = ANY(\(breaks)::text[]) AND seq > \(cursor)
                ORDER BY seq LIMIT \(limit)
                """, logger: store.logger)
            var decisions: [(DecisionKey, [UInt8])] = []
            var next = cursor
            for try await (breakID, session, body, seq) in rows.decode((String, String, ByteBuffer, Int64).self) {
                decisions.append(
                    (DecisionKey(target: target, breakID: breakID, session: session), Array(body.readableBytesView)))
                next = max(next, seq)
            }
            return (decisions, next)
        }
    }

    public func prune(now: DateTime) async throws -> Int {
        quota.prune(now: now)
        let store = store
        let lapsed = (now - Self.lapsedClaimRetention).date
        let now = now.date
        return try await store.guarded("drop expired decisions") {
            try await store.migrated()
            let rows = try await store.client.query(
                """
                WITH dropped AS (DELETE FROM decisions
                WHERE (body IS NOT NULL AND expires <= \(now)) OR (body IS NULL AND claimed_until <= \(lapsed))
                RETURNING 1) SELECT count(*) FROM dropped
                """, logger: store.logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// Keys in the one order every replica claims and publishes them in.
    static func sorted(_ keys: Set<DecisionKey>) -> [DecisionKey] {
        keys.sorted {
            ($0.target.description, $0.breakID, $0.session) < ($1.target.description, $1.breakID, $1.session)
        }
    }

    /// `keys` in batches of at most ``batchKeys`` keys and ``batchBytes`` bytes (a key alone over the
    /// bytes makes a batch of its own).
    static func batches(_ keys: [DecisionKey], bytes: (DecisionKey) -> Int) -> [[DecisionKey]] {
        var batches: [[DecisionKey]] = []
        var batch: [DecisionKey] = []
        var batchSize = 0
        for key in keys {
            let size = bytes(key)
            if !batch.isEmpty, batch.count == batchKeys || batchSize + size > batchBytes {
                batches.append(batch)
                batch = []
                batchSize = 0
            }
            batch.append(key)
            batchSize += size
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }

    /// A batch of keys as the three text arrays a statement unnests, and the way back from a row.
    private struct KeyColumns {
        var targets: [String] = []
        var breaks: [String] = []
        var sessions: [String] = []
        private var byText: [Row: DecisionKey] = [:]

        /// A key as its columns' text.
        private struct Row: Hashable {
            var target: String
            var breakID: String
            var session: String
        }

        init(_ keys: [DecisionKey]) {
            targets.reserveCapacity(keys.count)
            breaks.reserveCapacity(keys.count)
            sessions.reserveCapacity(keys.count)
            for key in keys {
                let target = key.target.description
                targets.append(target)
                breaks.append(key.breakID)
                sessions.append(key.session)
                byText[Row(target: target, breakID: key.breakID, session: key.session)] = key
            }
        }

        /// The key of a row the statement returned.
        func key(_ row: (String, String, String)) -> DecisionKey? {
            byText[Row(target: row.0, breakID: row.1, session: row.2)]
        }
    }
}
