import Foundation
import Logging

/// Where a server keeps its state, as `--database`, `HLSI_DATABASE` or the configuration's
/// `database` names it: a PostgreSQL URL (`postgres://user@host:port/db`), an SQLite file, or
/// nothing (memory).
public enum StoreLocation: Hashable, Sendable {
    /// An SQLite database in memory, lost when the server stops.
    case memory
    /// An SQLite file, used by one server at a time.
    case sqlite(path: String)
    /// A PostgreSQL database that several servers (replicas) share.
    case postgres(PostgresLocation)

    /// Reads a location: a `postgres://` or `postgresql://` URL is PostgreSQL, any other text an
    /// SQLite file, `nil` memory.
    ///
    /// - Throws: ``StoreError`` `database-url` when a PostgreSQL URL is malformed.
    public init(_ database: String?) throws(StoreError) {
        guard let database else {
            self = .memory
            return
        }
        self = Self.isPostgres(database) ? .postgres(try PostgresLocation(url: database)) : .sqlite(path: database)
    }

    /// Whether `text` is a PostgreSQL URL rather than a file (it starts with `postgres://` or
    /// `postgresql://`).
    public static func isPostgres(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Opens the store at this location.
    ///
    /// - Throws: ``StoreError`` when an SQLite file is in use by another server; GRDB's errors when it
    ///   cannot be opened. A PostgreSQL store connects when first used.
    public func open(logger: Logger) throws -> any ServerStore {
        try open(logger: logger, clock: SystemServerClock())
    }

    /// Opens the store at this location; a PostgreSQL store's deadlines are on `clock` (the
    /// server's).
    func open(logger: Logger, clock: any ServerClock) throws -> any ServerStore {
        switch self {
        case .memory: try SQLiteStore(path: nil)
        case .sqlite(let path): try SQLiteStore(path: path)
        case .postgres(let location): PostgresStore(location, logger: logger, clock: clock)
        }
    }
}

/// A PostgreSQL server and database, from a URL
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?host=SOCKET-DIRECTORY&sslmode=MODE]`.
///
/// As in libpq's URLs, a `host` query item that is a directory connects through the Unix socket
/// `DIRECTORY/.s.PGSQL.PORT`; `sslmode` is `disable` (the default) or `require`.
public struct PostgresLocation: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address (TCP), when not through a socket.
    public var host: String
    /// The port (5432 by default); also names the socket file.
    public var port: Int
    /// The directory of the server's Unix socket, if it is reached through one.
    public var socketDirectory: String?
    /// The user name.
    public var user: String
    /// The password, if any.
    public var password: String?
    /// The database (the user's name by default, as PostgreSQL does).
    public var database: String
    /// Whether the connection must use TLS.
    public var requiresTLS: Bool

    /// Reads a URL.
    ///
    /// - Throws: ``StoreError`` `database-url` naming what is wrong.
    public init(url: String) throws(StoreError) {
        func refuse(_ reason: String) -> StoreError {
            StoreError(
                code: .databaseURL,
                "the database URL \(Self.redacted(url)) \(reason); expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
            )
        }
        guard let components = URLComponents(string: url), StoreLocation.isPostgres(url) else {
            throw refuse("is not a URL")
        }
        guard let user = components.user, !user.isEmpty else { throw refuse("names no user") }
        self.user = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        host = components.host ?? ""
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw refuse("has a port out of 1 to 65535") }
        let name = components.path.drop { $0 == "/" }
        database = name.isEmpty ? self.user : String(name).removingPercentEncoding ?? String(name)
        requiresTLS = false
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("host", let directory) where directory.hasPrefix("/"): socketDirectory = directory
            case ("host", let name) where !name.isEmpty: host = name
            case ("sslmode", "disable"): requiresTLS = false
            case ("sslmode", "require"): requiresTLS = true
            case ("sslmode", let mode): throw refuse("has sslmode=\(mode) (disable or require)")
            default: throw refuse("has an unknown parameter \(item.name)")
            }
        }
        guard !host.isEmpty || socketDirectory != nil else { throw refuse("names no host") }
    }

    /// The Unix socket's path, when connecting through one.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// The URL without its password, for messages and logs.
    public var description: String {
        let address = socketDirectory.map { "?host=\($0)" } ?? ""
        return "postgres://\(user)@\(host):\(port)/\(database)\(address)"
    }

    /// `url` with its password replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
