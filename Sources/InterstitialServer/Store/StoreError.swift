/// Why the store failed: a stable code, and what went wrong and what to do.
///
/// `docs/replicas.md` lists the codes ("Store errors"), and a test keeps that list and ``Code`` equal.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable codes: what a caller may branch on (the message may change).
    public enum Code: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// Another hlsi server holds the SQLite database's lock file.
        case databaseInUse = "database-in-use"
        /// The SQLite database's lock file cannot be opened or locked.
        case databaseLock = "database-lock"
        /// A PostgreSQL URL (`--database postgres://…`) is malformed.
        case databaseURL = "database-url"
        /// The database cannot be reached, or did not answer in time: nothing was changed.
        case databaseUnavailable = "database-unavailable"
        /// The database refused a statement, or answered with something the store cannot read.
        case databaseError = "database-error"
        /// The configuration's seed could not be stored: nothing of it was.
        case seed = "seed"
        /// The stored beacon relay secret is not at least 32 bytes in hexadecimal.
        case relaySecret = "relay-secret"
        /// A prefetched decision is over the bound of one: nothing was published.
        case decisionTooLarge = "decision-too-large"

        /// The code as written.
        public var description: String { rawValue }
    }

    /// The stable code.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
