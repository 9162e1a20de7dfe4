import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of the files the server answers with most (segments, initialization segments, the
/// page's scripts), held in memory so that a request costs one `stat` and no read.
///
/// An entry is used only while the file's identity (device, inode), size and modification time
/// are those it was read with: a file replaced (a new file renamed over it, as tools replace
/// files) or changed in size or time is read again. (A file rewritten in place with as many bytes
/// within one tick of the file system's clock keeps its modification time: like any server that
/// tags files by size and time, this one then answers the older bytes until the next change.) Bounded: files up to
/// ``fileLimit`` bytes, at most ``byteLimit`` bytes and ``countLimit`` files in all; beyond
/// either, the least recently used go first. A response is a slice of the kept buffer (`ByteBuffer`
/// shares its storage), so neither the whole file nor a range of it is copied per request.
final class FileBodyCache: Sendable {
    /// What identifies one version of a file.
    struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
    }

    /// A regular file's identity, from `stat`; nil for a missing file, a folder or anything else.
    static func identity(of path: String) -> Identity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return identity(status)
    }

    /// The identity of the regular file open as `descriptor`, from `fstat`; nil for anything else.
    static func identity(descriptor: CInt) -> Identity? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return identity(status)
    }

    private static func identity(_ status: stat) -> Identity? {
        guard (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if canImport(Darwin)
            let modified = status.st_mtimespec
        #else
            let modified = status.st_mtim
        #endif
        return Identity(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int(status.st_size),
            modifiedSeconds: Int64(modified.tv_sec), modifiedNanoseconds: Int64(modified.tv_nsec))
    }

    private struct Slot {
        var identity: Identity
        var body: ByteBuffer
        var lastUse: UInt64
    }

    private struct Storage {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let storage = NIOLockedValueBox(Storage())
    /// The largest file kept.
    let fileLimit: Int
    /// The most bytes kept.
    let byteLimit: Int
    /// The most files kept.
    let countLimit: Int

    init(fileLimit: Int = 8 * 1024 * 1024, byteLimit: Int = 256 * 1024 * 1024, countLimit: Int = 4096) {
        self.fileLimit = fileLimit
        self.byteLimit = byteLimit
        self.countLimit = countLimit
    }

    /// A file that exists but could not be opened: the `errno` of `open`.
    struct OpenFailure: Error, Hashable, Sendable {
        /// The `errno` of `open` (`EMFILE`, `EACCES`…).
        var code: CInt

        /// Whether the server is out of a resource (descriptors, memory) rather than the file at fault.
        var isExhaustion: Bool { [EMFILE, ENFILE, ENOMEM, EAGAIN, EINTR].contains(code) }
        /// Whether the file went away (or a folder on its path) after it was found.
        var isMissing: Bool { [ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG].contains(code) }
        /// Whether the server may not read it.
        var isDenied: Bool { code == EACCES || code == EPERM }
    }

    /// The bytes of `path` as `identity` says it is now: kept, or read and kept; nil when the file
    /// is larger than ``fileLimit`` or cannot be read as it was described (it changed meanwhile),
    /// or cannot be opened.
    func body(of path: String, identity: Identity) -> ByteBuffer? {
        (try? bytes(of: path, identity: identity)) ?? nil
    }

    /// ``body(of:identity:)``, throwing when the file cannot be opened (never trapping: with no
    /// descriptor left, `open` fails with `EMFILE` and that is the error).
    func bytes(of path: String, identity: Identity) throws(OpenFailure) -> ByteBuffer? {
        guard identity.size <= fileLimit else { return nil }
        if let kept = kept(path, identity: identity) { return kept }
        guard let body = try Self.load(path, identity: identity) else { return nil }
        keep(body, identity: identity, for: path)
        return body
    }

    /// The whole regular file at `path`, at most `limit` bytes (nil when larger, missing or not a
    /// regular file); throws when it exists but cannot be opened (never trapping at the descriptor
    /// limit, where Foundation's readers return nil as for a missing file).
    static func readWhole(_ path: String, limit: Int) throws(OpenFailure) -> [UInt8]? {
        guard let identity = identity(of: path), identity.size <= limit else { return nil }
        guard let body = try load(path, identity: identity) else { return nil }
        return Array(body.readableBytesView)
    }

    /// Opens `path` and closes it again: whether it can be opened now.
    static func checkOpen(_ path: String) throws(OpenFailure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw OpenFailure(code: errno) }
        close(descriptor)
    }

    /// The bytes of `path` if they are kept as `identity` says the file is now; never reads.
    func kept(_ path: String, identity: Identity) -> ByteBuffer? {
        storage.withLockedValue { storage -> ByteBuffer? in
            guard var slot = storage.slots[path], slot.identity == identity else { return nil }
            storage.clock += 1
            slot.lastUse = storage.clock
            storage.slots[path] = slot
            return slot.body
        }
    }

    /// The whole file, only if it still has `identity` after reading.
    private static func load(_ path: String, identity: Identity) throws(OpenFailure) -> ByteBuffer? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw OpenFailure(code: errno) }
        defer { close(descriptor) }
        var buffer = ByteBufferAllocator().buffer(capacity: identity.size)
        var total = 0
        while total < identity.size {
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: identity.size - total) { pointer in
                let result = read(descriptor, pointer.baseAddress, min(pointer.count, identity.size - total))
                return max(0, result)
            }
            if count == 0 { break }
            total += count
        }
        guard total == identity.size, Self.identity(of: path) == identity else { return nil }
        return buffer
    }

    private func keep(_ body: ByteBuffer, identity: Identity, for path: String) {
        let size = body.readableBytes
        guard size <= byteLimit, countLimit > 0 else { return }
        storage.withLockedValue { storage in
            storage.clock += 1
            let slot = Slot(identity: identity, body: body, lastUse: storage.clock)
            if let old = storage.slots.updateValue(slot, forKey: path) { storage.bytes -= old.body.readableBytes }
            storage.bytes += size
            guard storage.slots.count > countLimit || storage.bytes > byteLimit else { return }
            // Evict in one pass, down to three quarters of each limit: amortized over many keeps.
            let countGoal = countLimit - countLimit / 4
            let byteGoal = byteLimit - byteLimit / 4
            for (old, slot) in storage.slots.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard storage.slots.count > countGoal || storage.bytes > byteGoal, old != path else { continue }
                storage.slots[old] = nil
                storage.bytes -= slot.body.readableBytes
            }
        }
    }

    /// The number of files and bytes kept.
    var size: (count: Int, bytes: Int) { storage.withLockedValue { ($0.slots.count, $0.bytes) } }
}
