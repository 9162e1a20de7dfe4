import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on `DATABASE.lock`, held while the object lives, so that two servers never
/// serve from one database file (each would keep its own served values).
///
/// A lock found taken is tried again for up to ``patience``: a process forked by this one (or by the
/// server that just stopped) holds a copy of the lock file's descriptor until it executes its
/// program, and with it the lock.
final class FileLock: Sendable {
    /// The open lock file, until released.
    private let descriptor: NIOLockedValueBox<Int32?>
    /// How long a taken lock is tried again before the database counts as in use.
    static let patience = Duration.seconds(1)

    init(database: String) throws(StoreError) {
        let path = database + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(
                code: .databaseLock,
                "cannot open the lock file \(path) of the database \(database): \(String(cString: strerror(errno)))")
        }
        let giveUp = ContinuousClock.now + Self.patience
        var reason: Int32 = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            reason = errno
            guard reason == EWOULDBLOCK, ContinuousClock.now < giveUp else { break }
            reason = 0
            usleep(20_000)
        }
        guard reason == 0 else {
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw StoreError(
                    code: .databaseLock, "cannot lock \(path): \(String(cString: strerror(reason)))")
            }
            throw StoreError(
                code: .databaseInUse,
                "the database \(database) is in use by another hlsi server (it holds \(path)); stop that server, or give this one another database (--database FILE)"
            )
        }
        self.descriptor = NIOLockedValueBox(descriptor)
    }

    /// Releases the lock (once; later calls do nothing).
    func release() {
        descriptor.withLockedValue { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    deinit { release() }
}
