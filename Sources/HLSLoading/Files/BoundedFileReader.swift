#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole file into memory, refusing one larger than a limit: before reading when `stat`
/// tells its size, and as soon as the limit is passed otherwise (a pipe, a file that grows), so a
/// reader never holds more than the limit and one byte.
package enum BoundedFileReader {
    /// Why a file was not read.
    package enum Failure: Error, Equatable {
        /// No such file (`ENOENT`).
        case missing
        /// The path names a folder.
        case directory
        /// Opening or reading failed with this `errno`.
        case unreadable(errno: Int32)
        /// The file is larger than the limit.
        case tooLarge
    }

    /// The bytes of the file at `path`, at most `limit` of them.
    package static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw errno == ENOENT ? .missing : .unreadable(errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(errno: errno) }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw .directory }
        let regular = (status.st_mode & S_IFMT) == S_IFREG
        guard !regular || Int(status.st_size) <= limit else { throw .tooLarge }
        // A regular file in one read of its size and one byte more (it may have grown meanwhile).
        var bytes = try read(descriptor, upTo: min(limit + 1, regular ? Int(status.st_size) + 1 : 64 * 1024))
        while bytes.count <= limit {
            let more = try read(descriptor, upTo: min(limit + 1 - bytes.count, max(64 * 1024, bytes.count)))
            if more.isEmpty { return bytes }
            bytes += more
        }
        throw .tooLarge
    }

    /// Up to `count` bytes, fewer only at the end of the file.
    private static func read(_ descriptor: Int32, upTo count: Int) throws(Failure) -> [UInt8] {
        var failure: Int32?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var filled = 0
            while filled < count {
                #if canImport(Darwin)
                    let result = Darwin.read(descriptor, buffer.baseAddress! + filled, count - filled)
                #elseif canImport(Musl)
                    let result = Musl.read(descriptor, buffer.baseAddress! + filled, count - filled)
                #else
                    let result = Glibc.read(descriptor, buffer.baseAddress! + filled, count - filled)
                #endif
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if result == 0 { break }
                filled += result
            }
            initialized = filled
        }
        if let failure { throw .unreadable(errno: failure) }
        return bytes
    }
}
