import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist

/// A ``ServerStore`` in an SQLite file (or in memory), through GRDB, with migrations.
///
/// Schedules, breaks and ads are stored as the JSON that the admin API reads and writes; served date
/// ranges as their attribute lists, exactly as written.
///
/// One server at a time uses a database file: the store holds an exclusive lock on `FILE.lock`
/// while it is open, and opening a file another store holds fails with ``StoreError``.
public struct SQLiteStore: ServerStore {
    private let database: DatabaseQueue
    private let lock: FileLock?

    /// Opens (creating if needed) the database at `path`, or an in-memory one for `nil`, and migrates it.
    ///
    /// - Throws: ``StoreError`` when another server holds the file; GRDB's errors when it cannot be
    ///   opened or migrated.
    public init(path: String?) throws {
        if let path {
            lock = try FileLock(database: path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            database = try DatabaseQueue(path: path, configuration: configuration)
        } else {
            lock = nil
            database = try DatabaseQueue()
        }
        try Self.migrator.migrate(database)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "schedule") { table in
                table.primaryKey("target", .text)
                table.column("json", .text).notNull()
            }
            try db.create(table: "break") { table in
                table.primaryKey("id", .text)
                table.column("target", .text).notNull().indexed()
                table.column("json", .text).notNull()
            }
            try db.create(table: "ad") { table in
                table.primaryKey("id", .text)
                table.column("json", .text).notNull()
            }
            try db.create(table: "served") { table in
                table.column("target", .text).notNull()
                table.column("id", .text).notNull()
                table.column("attributes", .text).notNull()
                table.column("servedAt", .datetime).notNull()
                table.primaryKey(["target", "id"])
            }
            try db.create(table: "earlyReturn") { table in
                table.column("target", .text).notNull()
                table.column("id", .text).notNull()
                table.column("playoutLimitNanoseconds", .integer).notNull()
                table.primaryKey(["target", "id"])
            }
        }
        migrator.registerMigration("v2: settings") { db in
            try db.create(table: "setting") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v3: withdrawn") { db in
            try db.create(table: "withdrawn") { table in
                table.column("target", .text).notNull()
                table.column("id", .text).notNull()
                table.primaryKey(["target", "id"])
            }
        }
        migrator.registerMigration("v4: notice") { db in
            try db.create(table: "notice") { table in
                table.column("target", .text).notNull()
                table.column("id", .text).notNull()
                table.column("json", .text).notNull()
                table.primaryKey(["target", "id"])
            }
        }
        return migrator
    }

    public func load() throws -> StoredState {
        try database.read { db in
            var state = StoredState()
            for row in try Row.fetchAll(db, sql: "SELECT json FROM schedule") {
                let schedule = try BreakSchedule.decode(try Self.json(row["json"]))
                state.schedules[schedule.target] = schedule
            }
            for row in try Row.fetchAll(db, sql: "SELECT json FROM break") {
                let item = try Break.decode(try Self.json(row["json"]))
                state.breaks[item.id] = item
            }
            for row in try Row.fetchAll(db, sql: "SELECT json FROM ad") {
                let ad = try Ad.decode(try Self.json(row["json"]))
                state.ads[ad.id] = ad
            }
            for row in try Row.fetchAll(db, sql: "SELECT target, id, attributes FROM served") {
                guard let target = Target(row["target"] as String) else { continue }
                let text: String = row["attributes"]
                state.served[ServedKey(target, row["id"])] = try JSONDecoder().decode(
                    AttributeList.self, from: Data(text.utf8))
            }
            for row in try Row.fetchAll(db, sql: "SELECT target, id, playoutLimitNanoseconds FROM earlyReturn") {
                guard let target = Target(row["target"] as String) else { continue }
                state.earlyReturns[ServedKey(target, row["id"])] = MediaTime(
                    nanoseconds: row["playoutLimitNanoseconds"])
            }
            for row in try Row.fetchAll(db, sql: "SELECT target, id FROM withdrawn") {
                guard let target = Target(row["target"] as String) else { continue }
                state.withdrawn.insert(ServedKey(target, row["id"]))
            }
            for row in try Row.fetchAll(db, sql: "SELECT json FROM notice") {
                let notice = try BreakNotice.decode(try Self.json(row["json"]))
                state.notices[notice.key] = notice
            }
            state.isSeeded = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'seeded'") != nil
            return state
        }
    }

    /// The beacon relay's secret: `proposed` stored in `setting` unless one is, then the stored one.
    public func relaySecret(proposing proposed: [UInt8]) async throws -> [UInt8]? {
        let text = try await database.write { db -> String? in
            try db.execute(
                sql: "INSERT OR IGNORE INTO setting (key, value) VALUES (?, ?)",
                arguments: [RelaySecretSetting.key, RelaySecretSetting.text(proposed)])
            return try String.fetchOne(
                db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [RelaySecretSetting.key])
        }
        return try RelaySecretSetting.secret(text ?? "")
    }

    /// Closes the database and releases its lock file, so that another server may open it.
    public func close() throws {
        defer { lock?.release() }
        try database.close()
    }

    public func write(_ changes: [StoreChange]) async throws {
        guard !changes.isEmpty else { return }
        try await database.write { db in
            for change in changes { try Self.apply(change, db) }
        }
    }

    /// Writes one change inside the caller's transaction.
    private static func apply(_ change: StoreChange, _ db: Database) throws {
        switch change {
        case .saveSchedule(let schedule):
            try db.execute(
                sql: "INSERT OR REPLACE INTO schedule (target, json) VALUES (?, ?)",
                arguments: [schedule.target.description, schedule.jsonValue.description])
        case .deleteSchedule(let target):
            try db.execute(sql: "DELETE FROM schedule WHERE target = ?", arguments: [target.description])
        case .saveBreak(let item):
            try db.execute(
                sql: "INSERT OR REPLACE INTO break (id, target, json) VALUES (?, ?, ?)",
                arguments: [item.id, item.target.description, item.jsonValue.description])
        case .deleteBreak(let id):
            try db.execute(sql: "DELETE FROM break WHERE id = ?", arguments: [id])
        case .saveAd(let ad):
            try db.execute(
                sql: "INSERT OR REPLACE INTO ad (id, json) VALUES (?, ?)", arguments: [ad.id, ad.jsonValue.description])
        case .deleteAd(let id):
            try db.execute(sql: "DELETE FROM ad WHERE id = ?", arguments: [id])
        case .served(let key, let attributes):
            // `servedAt` (and `seeded` below) are stamps for people reading the database, never read
            // back by the server: the system's date, not the server's clock (which decides nothing here).
            let text = String(decoding: try JSONEncoder().encode(attributes), as: UTF8.self)
            try db.execute(
                sql: "INSERT OR IGNORE INTO served (target, id, attributes, servedAt) VALUES (?, ?, ?, ?)",
                arguments: [key.target.description, key.id, text, Date()])
        case .earlyReturn(let key, let limit):
            try db.execute(
                sql: "INSERT OR REPLACE INTO earlyReturn (target, id, playoutLimitNanoseconds) VALUES (?, ?, ?)",
                arguments: [key.target.description, key.id, limit.nanoseconds])
        case .withdraw(let key):
            try db.execute(
                sql: "INSERT OR IGNORE INTO withdrawn (target, id) VALUES (?, ?)",
                arguments: [key.target.description, key.id])
        case .saveNotice(let notice):
            try db.execute(
                sql: "INSERT OR REPLACE INTO notice (target, id, json) VALUES (?, ?, ?)",
                arguments: [notice.target.description, notice.id, notice.jsonValue.description])
        case .deleteNotice(let key):
            try db.execute(
                sql: "DELETE FROM notice WHERE target = ? AND id = ?", arguments: [key.target.description, key.id])
        case .seeded:
            try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('seeded', ?)", arguments: [Date()])
        }
    }

    private static func json(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8), code: .storeJSON)
    }
}
