import Logging
import PostgresNIO

/// The versioned schema of a PostgreSQL store, and how it is brought up to date.
///
/// Each migration has a version, recorded in `schema_migrations` when applied. ``migrate(_:logger:)``
/// runs in one transaction that first takes the transaction-level advisory lock
/// ``advisoryLockKey`` (`pg_advisory_xact_lock`): servers starting together wait for one another,
/// the first applies what is missing, the others find it recorded and apply nothing. PostgreSQL's
/// DDL is transactional, so a migration that fails leaves nothing behind.
struct StoreMigrations: Sendable {
    /// One step of the schema.
    struct Migration: Sendable {
        /// Its version (increasing; never reused).
        var version: Int64
        /// What it does.
        var name: String
        /// Its statements, run in order.
        var statements: [String]
    }

    /// The steps, in version order.
    var migrations: [Migration]

    /// The advisory lock key migrations hold (`hlsi` in ASCII).
    static let advisoryLockKey: Int64 = 0x686c_7369

    /// The PostgreSQL store's schema.
    static let postgres = StoreMigrations(migrations: [
        Migration(
            version: 1, name: "schedules, breaks, ads, served values, early returns, withdrawals, settings",
            statements: [
                "CREATE TABLE schedules (target text PRIMARY KEY, json text NOT NULL)",
                "CREATE TABLE breaks (id text PRIMARY KEY, target text NOT NULL, json text NOT NULL)",
                "CREATE INDEX breaks_target ON breaks (target)",
                "CREATE TABLE ads (id text PRIMARY KEY, json text NOT NULL)",
                """
                CREATE TABLE served (target text NOT NULL, id text NOT NULL, attributes text NOT NULL,
                served_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (target, id))
                """,
                """
                CREATE TABLE early_returns (target text NOT NULL, id text NOT NULL,
                playout_limit_nanoseconds bigint NOT NULL, PRIMARY KEY (target, id))
                """,
                "CREATE TABLE withdrawn (target text NOT NULL, id text NOT NULL, PRIMARY KEY (target, id))",
                "CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL)",
            ]),
        Migration(
            version: 2, name: "the change counter replicas follow",
            statements: [
                "CREATE TABLE change_counter (id smallint PRIMARY KEY CHECK (id = 1), value bigint NOT NULL)",
                "INSERT INTO change_counter (id, value) VALUES (1, 0)",
            ]),
        // Unlogged: counts are soft state that a database crash may forget (viewers then get fresh
        // decisions); every request writes one, so they skip the write-ahead log.
        Migration(
            version: 3, name: "viewer request counts shared by replicas, with their expiry",
            statements: [
                """
                CREATE UNLOGGED TABLE viewer_requests (viewer text NOT NULL, target text NOT NULL, id text NOT NULL,
                count integer NOT NULL, expires_at timestamptz NOT NULL, PRIMARY KEY (viewer, target, id))
                """,
                "CREATE INDEX viewer_requests_expiry ON viewer_requests (expires_at)",
            ]),
        // Unlogged for the same reason: decisions made ahead expire with their break, and a crash
        // only means viewers get decisions made live. The sequence is logged: cursors stay valid.
        Migration(
            version: 4, name: "decisions made ahead of breaks, claimed and shared by replicas",
            statements: [
                "CREATE SEQUENCE decision_sequence",
                """
                CREATE UNLOGGED TABLE decisions (target text NOT NULL, break_id text NOT NULL, session text NOT NULL,
                owner text NOT NULL, claimed_until timestamptz NOT NULL, body bytea, expires timestamptz, seq bigint,
                PRIMARY KEY (target, break_id, session))
                """,
                "CREATE INDEX decisions_published ON decisions (target, break_id, seq) WHERE seq IS NOT NULL",
            ]),
        Migration(
            version: 5, name: "early notices of live breaks",
            statements: [
                "CREATE TABLE notices (target text NOT NULL, id text NOT NULL, json text NOT NULL, PRIMARY KEY (target, id))"
            ]),
    ])

    /// Applies the migrations not yet recorded, in one transaction holding the advisory lock.
    func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.advisoryLockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: Set<Int64> = []
            let rows = try await connection.query("SELECT version FROM schema_migrations", logger: logger)
            for try await version in rows.decode(Int64.self) { applied.insert(version) }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
            }
        }
    }
}
