import HLSPlaylist
import NIOConcurrencyHelpers
import NIOCore

/// The playlists the server rendered, as the bytes it answers with, so that a playlist is planned
/// and written once per state and time bucket, not once per request.
///
/// A rendered playlist is a pure function of its ``Key``: the content and path, the stored state's
/// version (``ServerState/versioned``, which every admin write, early return and first serving of
/// a date range moves on), the live window's media sequence (the time bucket), the public base
/// of absolute URLs, and the length of preload hints (from the audience). The content library keeps only renders that depended on nothing else (no
/// value was served for the first time while rendering, no early return was recorded), so a kept
/// playlist is byte for byte what a fresh render gives. Bounded: at most ``countLimit`` playlists
/// and ``byteLimit`` bytes; beyond either, the least recently used go first.
final class RenderedPlaylistCache: Sendable {
    /// What a rendered playlist depends on.
    struct Key: Hashable, Sendable {
        /// The content's ID and the playlist's path under it.
        var content: String
        var path: String
        /// The stored state's version the playlist was planned on; 0 for playlists served unchanged.
        var version: Int
        /// The live window's last media sequence number; nil for VOD and unchanged playlists.
        var sequence: Int64?
        /// The start of the absolute URLs written in.
        var publicBase: String
        /// For an upstream playlist, the SHA-256 of the playlist it was rendered from (as dated).
        var source: [UInt8]? = nil
        /// For a live channel with preload hints, the length of a hint not served yet
        /// (``BreakPlanner/Preload/length``): a larger audience starts hints earlier.
        var hintLength: MediaTime? = nil
    }

    /// A rendered playlist: its bytes and their entity tag (``EntityTag/of(_:)``), computed once.
    struct Entry: Sendable {
        var body: ByteBuffer
        var entityTag: String

        init(_ bytes: [UInt8]) {
            body = ByteBuffer(bytes: bytes)
            entityTag = EntityTag.of(bytes).header
        }
    }

    private struct Slot {
        var entry: Entry
        var lastUse: UInt64
    }

    private struct Storage {
        var slots: [Key: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let storage = NIOLockedValueBox(Storage())
    /// The most playlists kept.
    let countLimit: Int
    /// The most bytes of playlists kept.
    let byteLimit: Int

    /// A cache of at most `countLimit` playlists and `byteLimit` bytes; 0 keeps nothing.
    init(countLimit: Int = 1024, byteLimit: Int = 64 * 1024 * 1024) {
        self.countLimit = max(0, countLimit)
        self.byteLimit = max(0, byteLimit)
    }

    /// The playlist kept for `key`, marked as just used.
    func entry(_ key: Key) -> Entry? {
        storage.withLockedValue { storage in
            guard var slot = storage.slots[key] else { return nil }
            storage.clock += 1
            slot.lastUse = storage.clock
            storage.slots[key] = slot
            return slot.entry
        }
    }

    /// Keeps `entry` for `key`; when the limits are passed, the least recently used playlists go
    /// until a quarter of the room is free again. A playlist larger than the whole cache is not kept.
    func keep(_ entry: Entry, for key: Key) {
        let size = entry.body.readableBytes
        guard countLimit > 0, size <= byteLimit else { return }
        storage.withLockedValue { storage in
            storage.clock += 1
            if let old = storage.slots.updateValue(Slot(entry: entry, lastUse: storage.clock), forKey: key) {
                storage.bytes -= old.entry.body.readableBytes
            }
            storage.bytes += size
            guard storage.slots.count > countLimit || storage.bytes > byteLimit else { return }
            // Evict in one pass, down to three quarters of each limit: amortized over many keeps.
            let countGoal = countLimit - countLimit / 4
            let byteGoal = byteLimit - byteLimit / 4
            for (old, slot) in storage.slots.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard storage.slots.count > countGoal || storage.bytes > byteGoal, old != key else { continue }
                storage.slots[old] = nil
                storage.bytes -= slot.entry.body.readableBytes
            }
        }
    }

    /// The number of playlists and bytes kept.
    var size: (count: Int, bytes: Int) { storage.withLockedValue { ($0.slots.count, $0.bytes) } }
}
