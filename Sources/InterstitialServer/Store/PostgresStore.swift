import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A ``ServerStore`` in a PostgreSQL database that several servers (replicas) share, through
/// postgres-nio's connection pool.
///
/// Rows are what ``SQLiteStore`` keeps: schedules, breaks and ads as the admin API's JSON, served date
/// ranges as their attribute lists. Every transaction of ``write(_:)`` also adds one to the single row
/// of `change_counter`, in the same transaction, so ``changeCount()`` moves exactly when a committed
/// write may have changed what ``load()`` returns (a sequence would move before its transaction
/// commits, and a server reading it then would miss the change).
///
/// The schema is migrated when the store is first used, by `StoreMigrations.postgres`, in one
/// transaction holding an advisory lock: replicas starting together migrate once.
///
/// Every operation has a deadline (``timeout``): a database that is down, unreachable or too slow
/// fails it with ``StoreError`` `database-unavailable` (which the admin API answers with 503) instead
/// of waiting for the pool; the pool keeps trying to connect, and the next operation succeeds once
/// the database is back. Errors the database reports for a statement are ``StoreError``
/// `database-error`.
public final class PostgresStore: ServerStore {
    /// Several servers share the database.
    public var isShared: Bool { true }
    /// Where the database is (without its password).
    public let location: PostgresLocation
    /// The connection pool (the decision ledger shares it).
    let client: PostgresClient
    private let runner: Task<Void, Never>
    /// Where the store logs.
    let logger: Logger
    /// How long an operation may take, waiting for a connection included.
    public let timeout: Duration
    /// The clock the deadlines are on (the server's; a test's ``ManualServerClock``).
    let clock: any ServerClock
    /// The migration, once started (a failed one is dropped, and the next use tries again).
    private let migration = NIOLockedValueBox<Task<Void, any Error>?>(nil)

    /// Creates the store and starts its connection pool (it connects when first used).
    ///
    /// - Parameters:
    ///   - location: The server and database.
    ///   - logger: Where the pool logs its background work (connections lost and made).
    ///   - maximumConnections: The most connections the pool opens.
    ///   - timeout: How long an operation may take, waiting for a connection included.
    public convenience init(
        _ location: PostgresLocation, logger: Logger, maximumConnections: Int = 8, timeout: Duration = .seconds(5)
    ) {
        self.init(
            location, logger: logger, maximumConnections: maximumConnections, timeout: timeout,
            clock: SystemServerClock())
    }

    /// Creates the store with its deadlines on `clock` (the server's; a test's
    /// ``ManualServerClock``, on which an operation fails only when the test moves the clock past
    /// ``timeout``), and starts its connection pool.
    init(
        _ location: PostgresLocation, logger: Logger, maximumConnections: Int = 8, timeout: Duration = .seconds(5),
        clock: any ServerClock
    ) {
        self.location = location
        self.timeout = timeout
        self.clock = clock
        self.logger = logger
        var configuration: PostgresClient.Configuration
        if let socket = location.socketPath {
            configuration = .init(
                unixSocketPath: socket, username: location.user, password: location.password,
                database: location.database)
        } else {
            configuration = .init(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: location.requiresTLS ? .require(.makeClientConfiguration()) : .disable
            )
        }
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        // Detached: the pool runs until ``close()``, not until the graceful shutdown of a service
        // group that happens to create the store (the server still records served values then).
        runner = Task.detached { await client.run() }
    }

    deinit { runner.cancel() }

    public func load() async throws -> StoredState {
        try await guarded("load") { try await self.loadNow() }
    }

    private func loadNow() async throws -> StoredState {
        try await migrated()
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            var state = StoredState()
            for try await json in try await connection.query("SELECT json FROM schedules", logger: logger).decode(
                String.self)
            {
                let schedule = try BreakSchedule.decode(try Self.json(json))
                state.schedules[schedule.target] = schedule
            }
            for try await json in try await connection.query("SELECT json FROM breaks", logger: logger).decode(
                String.self)
            {
                let item = try Break.decode(try Self.json(json))
                state.breaks[item.id] = item
            }
            for try await json in try await connection.query("SELECT json FROM ads", logger: logger).decode(
                String.self)
            {
                let ad = try Ad.decode(try Self.json(json))
                state.ads[ad.id] = ad
            }
            let served = try await connection.query("SELECT target, id, attributes FROM served", logger: logger)
            for try await (target, id, attributes) in served.decode((String, String, String).self) {
                guard let target = Target(target) else { continue }
                state.served[ServedKey(target, id)] = try JSONDecoder().decode(
                    AttributeList.self, from: Data(attributes.utf8))
            }
            let returns = try await connection.query(
                "SELECT target, id, playout_limit_nanoseconds FROM early_returns", logger: logger)
            for try await (target, id, nanoseconds) in returns.decode((String, String, Int64).self) {
                guard let target = Target(target) else { continue }
                state.earlyReturns[ServedKey(target, id)] = MediaTime(nanoseconds: nanoseconds)
            }
            let withdrawn = try await connection.query("SELECT target, id FROM withdrawn", logger: logger)
            for try await (target, id) in withdrawn.decode((String, String).self) {
                guard let target = Target(target) else { continue }
                state.withdrawn.insert(ServedKey(target, id))
            }
            let notices = try await connection.query("SELECT json FROM notices", logger: logger)
            for try await json in notices.decode(String.self) {
                let notice = try BreakNotice.decode(try Self.json(json))
                state.notices[notice.key] = notice
            }
            let seeded = try await connection.query("SELECT value FROM settings WHERE key = 'seeded'", logger: logger)
            for try await _ in seeded { state.isSeeded = true }
            return state
        }
    }

    public func write(_ changes: [StoreChange]) async throws {
        guard !changes.isEmpty else { return }
        try await guarded("write \(changes.count) changes") {
            try await self.migrated()
            let logger = self.logger
            try await self.client.withTransaction(logger: logger) { connection in
                for change in changes { try await Self.apply(change, connection, logger) }
                try await connection.query(
                    "UPDATE change_counter SET value = value + 1 WHERE id = 1", logger: logger)
            }
        }
    }

    public func servedValues(for keys: [ServedKey]) async throws -> [ServedKey: AttributeList] {
        guard !keys.isEmpty else { return [:] }
        return try await guarded("read served values") {
            try await self.migrated()
            let wanted = Set(keys)
            let ids = Array(Set(keys.map(\.id)))
            let rows = try await self.client.query(
                "SELECT target, id, attributes FROM served WHERE id = ANY(\(ids))", logger: self.logger)
            var values: [ServedKey: AttributeList] = [:]
            for try await (target, id, attributes) in rows.decode((String, String, String).self) {
                guard let target = Target(target), wanted.contains(ServedKey(target, id)) else { continue }
                values[ServedKey(target, id)] = try JSONDecoder().decode(
                    AttributeList.self, from: Data(attributes.utf8))
            }
            return values
        }
    }

    public func changeCount() async throws -> Int64 {
        try await guarded("read the change count") {
            try await self.migrated()
            let rows = try await self.client.query(
                "SELECT value FROM change_counter WHERE id = 1", logger: self.logger)
            for try await value in rows.decode(Int64.self) { return value }
            throw StoreError(
                code: .databaseError, "the table change_counter of \(self.location) has no row 1")
        }
    }

    public func countViewerRequest(viewer: String, target: Target, id: String, expiry: Duration) async throws -> Int? {
        let seconds = expiry.secondsValue
        let target = target.description
        return try await guarded("count a viewer's request") {
            try await self.migrated()
            let rows = try await self.client.query(
                """
                INSERT INTO viewer_requests AS v (viewer, target, id, count, expires_at)
                VALUES (\(viewer), \(target), \(id), 1, now() + make_interval(secs => \(seconds)))
                ON CONFLICT (viewer, target, id) DO UPDATE SET
                count = CASE WHEN v.expires_at <= now() THEN 1 ELSE v.count + 1 END, expires_at = EXCLUDED.expires_at
                RETURNING count - 1
                """, logger: self.logger)
            for try await before in rows.decode(Int32.self) { return Int(before) }
            throw StoreError(code: .databaseError, "counting a viewer's request in \(self.location) returned no row")
        }
    }

    /// One statement for every request: the keys and counts as arrays, unnested into rows.
    public func countViewerRequests(_ counts: [ViewerRequestKey: Int], expiry: Duration) async throws {
        guard !counts.isEmpty else { return }
        let seconds = expiry.secondsValue
        let entries = Array(counts)
        let viewers = entries.map(\.key.viewer)
        let targets = entries.map(\.key.target.description)
        let ids = entries.map(\.key.id)
        let numbers = entries.map { Int32(clamping: $0.value) }
        try await guarded("count \(entries.count) viewer requests") {
            try await self.migrated()
            _ = try await self.client.query(
                """
                INSERT INTO viewer_requests AS v (viewer, target, id, count, expires_at)
                SELECT r.viewer, r.target, r.id, r.n, now() + make_interval(secs => \(seconds))
                FROM unnest(\(viewers)::text[], \(targets)::text[], \(ids)::text[], \(numbers)::integer[])
                AS r(viewer, target, id, n)
                ON CONFLICT (viewer, target, id) DO UPDATE SET
                count = CASE WHEN v.expires_at <= now() THEN EXCLUDED.count ELSE v.count + EXCLUDED.count END,
                expires_at = EXCLUDED.expires_at
                """, logger: self.logger)
        }
    }

    public func pruneViewerRequests(limit: Int) async throws -> Int {
        let limit = Int64(max(0, limit))
        return try await guarded("drop expired viewer counts") {
            try await self.migrated()
            var dropped = 0
            let expired = try await self.client.query(
                "DELETE FROM viewer_requests WHERE expires_at <= now() RETURNING 1", logger: self.logger)
            for try await _ in expired { dropped += 1 }
            let excess = try await self.client.query(
                """
                DELETE FROM viewer_requests v USING (SELECT viewer, target, id FROM viewer_requests
                ORDER BY expires_at DESC OFFSET \(limit)) e
                WHERE v.viewer = e.viewer AND v.target = e.target AND v.id = e.id RETURNING 1
                """, logger: self.logger)
            for try await _ in excess { dropped += 1 }
            return dropped
        }
    }

    /// The ledger of decisions made ahead of breaks, in this database, shared by the replicas.
    public var decisionLedger: (any DecisionLedger)? { PostgresDecisionLedger(store: self) }

    /// The beacon relay's secret every replica shares: `proposed` stored in `settings` unless a
    /// replica stored one first, then the stored one.
    public func relaySecret(proposing proposed: [UInt8]) async throws -> [UInt8]? {
        let key = RelaySecretSetting.key
        let text = RelaySecretSetting.text(proposed)
        let stored = try await guarded("read the beacon relay's secret") { () -> String? in
            try await self.migrated()
            try await self.client.query(
                "INSERT INTO settings (key, value) VALUES (\(key), \(text)) ON CONFLICT (key) DO NOTHING",
                logger: self.logger)
            let rows = try await self.client.query(
                "SELECT value FROM settings WHERE key = \(key)", logger: self.logger)
            for try await value in rows.decode(String.self) { return value }
            return nil
        }
        return try RelaySecretSetting.secret(stored ?? "")
    }

    /// Stops the connection pool: it closes its connections once their queries are done (in the
    /// background; ``shutdown()`` waits for it).
    public func close() {
        runner.cancel()
    }

    /// Stops the connection pool and waits until its connections are closed.
    public func shutdown() async {
        runner.cancel()
        await runner.value
    }

    /// The versions recorded in `schema_migrations`, in order (for tests and diagnostics).
    func appliedMigrations() async throws -> [Int64] {
        try await guarded("read the migrations") {
            try await self.migrated()
            var versions: [Int64] = []
            let rows = try await self.client.query(
                "SELECT version FROM schema_migrations ORDER BY version", logger: self.logger)
            for try await version in rows.decode(Int64.self) { versions.append(version) }
            return versions
        }
    }

    /// Runs `body` within ``timeout``; its failures become ``StoreError``s that say whether the
    /// database is unavailable (`database-unavailable`) or refused a statement (`database-error`).
    func guarded<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws(StoreError) -> T {
        let timeout = timeout
        let clock = clock
        do {
            // Not waiting for a body that does not stop when cancelled: a query waits for a
            // connection as long as the database is down.
            return try await withTimeLimitAbandoning(
                timeout, sleep: { try await clock.sleep(for: MediaTime($0)) }, body)
        } catch let error as TimeLimitExceeded {
            throw Self.storeError(DatabaseTimeout(), what: what, location: location, timeout: error.limit)
        } catch {
            throw Self.storeError(error, what: what, location: location, timeout: timeout)
        }
    }

    /// The deadline of an operation passed.
    private struct DatabaseTimeout: Error {}

    /// What `error` means for the server: the database unavailable, or a statement refused.
    static func storeError(
        _ error: any Error, what: String, location: PostgresLocation, timeout: Duration
    )
        -> StoreError
    {
        func unavailable(_ reason: String) -> StoreError {
            StoreError(
                code: .databaseUnavailable,
                "cannot \(what): the database \(location) is unavailable (\(reason)); the server keeps serving what it knows and retries"
            )
        }
        switch error {
        case let error as StoreError: return error
        case is DatabaseTimeout: return unavailable("no answer within \(timeout)")
        case let error as PostgresTransactionError:
            guard let cause = error.beginError ?? error.closureError ?? error.commitError else {
                return unavailable("\(String(reflecting: error))")
            }
            return storeError(cause, what: what, location: location, timeout: timeout)
        case let error as PSQLError:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "\(error.code)"
            // SQLSTATE class 08: connection exception; 57: operator intervention (shutdown, ...).
            guard error.code == .server, !state.hasPrefix("08"), !state.hasPrefix("57") else {
                return unavailable("\(message)\(state.isEmpty ? "" : " [\(state)]")")
            }
            return StoreError(code: .databaseError, "cannot \(what) in \(location): \(message) [\(state)]")
        default: return unavailable("\(error)")
        }
    }

    /// Waits for the schema to be migrated, starting the migration if no one has.
    func migrated() async throws {
        let task = migration.withLockedValue { task in
            if let task { return task }
            let client = client
            let logger = logger
            let started = Task { try await StoreMigrations.postgres.migrate(client, logger: logger) }
            task = started
            return started
        }
        do {
            // A caller that gives up (its deadline passed) stops the migration too; the next
            // use starts it again.
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            migration.withLockedValue { if $0 == task { $0 = nil } }
            throw error
        }
    }

    /// Writes one change inside the caller's transaction.
    private static func apply(_ change: StoreChange, _ connection: PostgresConnection, _ logger: Logger) async throws {
        switch change {
        case .saveSchedule(let schedule):
            let target = schedule.target.description
            let json = schedule.jsonValue.description
            try await connection.query(
                """
                INSERT INTO schedules (target, json) VALUES (\(target), \(json))
                ON CONFLICT (target) DO UPDATE SET json = EXCLUDED.json
                """, logger: logger)
        case .deleteSchedule(let target):
            let target = target.description
            try await connection.query("DELETE FROM schedules WHERE target = \(target)", logger: logger)
        case .saveBreak(let item):
            let target = item.target.description
            let json = item.jsonValue.description
            try await connection.query(
                """
                INSERT INTO breaks (id, target, json) VALUES (\(item.id), \(target), \(json))
                ON CONFLICT (id) DO UPDATE SET target = EXCLUDED.target, json = EXCLUDED.json
                """, logger: logger)
        case .deleteBreak(let id):
            try await connection.query("DELETE FROM breaks WHERE id = \(id)", logger: logger)
        case .saveAd(let ad):
            let json = ad.jsonValue.description
            try await connection.query(
                "INSERT INTO ads (id, json) VALUES (\(ad.id), \(json)) ON CONFLICT (id) DO UPDATE SET json = EXCLUDED.json",
                logger: logger)
        case .deleteAd(let id):
            try await connection.query("DELETE FROM ads WHERE id = \(id)", logger: logger)
        case .served(let key, let attributes):
            // The first writer wins: a value already stored (by this server or another) stays.
            let target = key.target.description
            let text = String(decoding: try JSONEncoder().encode(attributes), as: UTF8.self)
            try await connection.query(
                """
                INSERT INTO served (target, id, attributes) VALUES (\(target), \(key.id), \(text))
                ON CONFLICT (target, id) DO NOTHING
                """, logger: logger)
        case .earlyReturn(let key, let limit):
            let target = key.target.description
            let nanoseconds = limit.nanoseconds
            try await connection.query(
                """
                INSERT INTO early_returns (target, id, playout_limit_nanoseconds) VALUES (\(target), \(key.id), \(nanoseconds))
                ON CONFLICT (target, id) DO UPDATE SET playout_limit_nanoseconds = EXCLUDED.playout_limit_nanoseconds
                """, logger: logger)
        case .withdraw(let key):
            let target = key.target.description
            try await connection.query(
                "INSERT INTO withdrawn (target, id) VALUES (\(target), \(key.id)) ON CONFLICT (target, id) DO NOTHING",
                logger: logger)
        case .saveNotice(let notice):
            let target = notice.target.description
            let json = notice.jsonValue.description
            try await connection.query(
                """
                INSERT INTO notices (target, id, json) VALUES (\(target), \(notice.id), \(json))
                ON CONFLICT (target, id) DO UPDATE SET json = EXCLUDED.json
                """, logger: logger)
        case .deleteNotice(let key):
            let target = key.target.description
            try await connection.query(
                "DELETE FROM notices WHERE target = \(target) AND id = \(key.id)", logger: logger)
        case .seeded:
            try await connection.query(
                """
                INSERT INTO settings (key, value) VALUES ('seeded', now()::text)
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                """, logger: logger)
        }
    }

    private static func json(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8), code: .storeJSON)
    }
}
