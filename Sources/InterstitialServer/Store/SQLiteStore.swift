import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist

/// A ``ServerStore`` in an SQLite file (or in memory), through GRDB, with migrations.
///
/// Schedules, breaks and ads are stored as the JSON that the admin API reads and writes; served date
/// ranges as their attribute lists, exactly as written.
public struct SQLiteStore: ServerStore {
    private let database: DatabaseQueue

    /// Opens (creating if needed) the database at `path`, or an in-memory one for `nil`, and migrates it.
    public init(path: String?) throws {
        if let path {
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            database = try DatabaseQueue(path: path, configuration: configuration)
        } else {
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
            state.isSeeded = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'seeded'") != nil
            return state
        }
    }

    public func markSeeded() throws {
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('seeded', ?)", arguments: [Date()])
        }
    }

    public func save(_ schedule: BreakSchedule) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO schedule (target, json) VALUES (?, ?)",
                arguments: [schedule.target.description, schedule.jsonValue.description])
        }
    }

    public func deleteSchedule(_ target: Target) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM schedule WHERE target = ?", arguments: [target.description])
        }
    }

    public func save(_ item: Break) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO break (id, target, json) VALUES (?, ?, ?)",
                arguments: [item.id, item.target.description, item.jsonValue.description])
        }
    }

    public func deleteBreak(id: String) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM break WHERE id = ?", arguments: [id]) }
    }

    public func save(_ ad: Ad) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO ad (id, json) VALUES (?, ?)", arguments: [ad.id, ad.jsonValue.description])
        }
    }

    public func deleteAd(id: String) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM ad WHERE id = ?", arguments: [id]) }
    }

    public func recordServed(_ key: ServedKey, attributes: AttributeList) throws {
        let text = String(decoding: try JSONEncoder().encode(attributes), as: UTF8.self)
        try database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO served (target, id, attributes, servedAt) VALUES (?, ?, ?, ?)",
                arguments: [key.target.description, key.id, text, Date()])
        }
    }

    public func recordEarlyReturn(_ key: ServedKey, playoutLimit: MediaTime) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO earlyReturn (target, id, playoutLimitNanoseconds) VALUES (?, ?, ?)",
                arguments: [key.target.description, key.id, playoutLimit.nanoseconds])
        }
    }

    private static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}
