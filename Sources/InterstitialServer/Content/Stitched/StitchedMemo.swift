import HLSPlaylist
import NIOConcurrencyHelpers

/// What the stitched form keeps per viewer (decisions, beacon entries, live stitchers), bounded in
/// count and bytes and expiring when idle; the least recently used go first when it is full.
///
/// Times are read from the injected clock, so tests move them on a manual clock.
final class StitchedMemo<Value: Sendable>: Sendable {
    /// The bounds of a memo.
    struct Limits: Sendable {
        /// The most entries kept.
        var count: Int
        /// The most bytes kept (as `size` counts them).
        var bytes: Int
        /// How long an entry not used is kept.
        var idle: MediaTime
    }

    private struct Entry: Sendable {
        var value: Value
        var size: Int
        var used: DateTime
        var order: UInt64
    }

    private struct Store: Sendable {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var counter: UInt64 = 0
        /// The keys by last use (oldest first); stale positions are skipped.
        var queue: [(order: UInt64, key: String)] = []
        var head = 0
    }

    let limits: Limits
    private let now: @Sendable () -> DateTime
    private let size: @Sendable (String, Value) -> Int
    private let store = NIOLockedValueBox(Store())

    /// A memo within `limits`, on the clock `now`; `size` estimates an entry's bytes.
    init(limits: Limits, now: @escaping @Sendable () -> DateTime, size: @escaping @Sendable (String, Value) -> Int) {
        self.limits = limits
        self.now = now
        self.size = size
    }

    /// How many entries and bytes are kept.
    var usage: (count: Int, bytes: Int) { store.withLockedValue { ($0.entries.count, $0.bytes) } }

    /// The value kept for `key` (marked used), nil when none or expired.
    func value(_ key: String) -> Value? {
        let at = now()
        return store.withLockedValue { store in
            guard let entry = store.entries[key] else { return nil }
            guard at - entry.used <= limits.idle else {
                Self.remove(key, from: &store)
                return nil
            }
            Self.touch(key, at: at, in: &store)
            return entry.value
        }
    }

    /// Changes the value kept for `key` (or makes it with `make`) under the lock, keeps it, and
    /// returns what `body` returns; the oldest entries go when the memo is over its bounds.
    func update<T>(_ key: String, make: () -> Value, _ body: (inout Value) throws -> T) rethrows -> T {
        let at = now()
        return try store.withLockedValue { store in
            var value: Value
            if let entry = store.entries[key], at - entry.used <= limits.idle {
                value = entry.value
            } else {
                value = make()
            }
            let result = try body(&value)
            Self.remove(key, from: &store)
            let bytes = size(key, value)
            store.counter += 1
            store.entries[key] = Entry(value: value, size: bytes, used: at, order: store.counter)
            store.bytes += bytes
            store.queue.append((store.counter, key))
            evict(&store, at: at, keeping: key)
            Self.compact(&store)
            return result
        }
    }

    private static func touch(_ key: String, at: DateTime, in store: inout Store) {
        store.counter += 1
        store.entries[key]?.used = at
        store.entries[key]?.order = store.counter
        store.queue.append((store.counter, key))
        compact(&store)
    }

    /// Rebuilds the queue from the entries when stale positions outnumber them, so touching
    /// entries costs bounded memory.
    private static func compact(_ store: inout Store) {
        guard store.queue.count - store.head > 4 * store.entries.count + 1024 else { return }
        store.queue = store.entries.map { ($0.value.order, $0.key) }.sorted { $0.order < $1.order }
        store.head = 0
    }

    private static func remove(_ key: String, from store: inout Store) {
        guard let old = store.entries.removeValue(forKey: key) else { return }
        store.bytes -= old.size
    }

    /// Drops the least recently used entries (never `kept`) while over the bounds, and expired ones
    /// at the head of the queue.
    private func evict(_ store: inout Store, at: DateTime, keeping kept: String) {
        while store.head < store.queue.count {
            let (order, key) = store.queue[store.head]
            guard let entry = store.entries[key], entry.order == order else {
                store.head += 1
                continue
            }
            let over = store.entries.count > limits.count || store.bytes > limits.bytes
            guard key != kept, over || at - entry.used > limits.idle else { break }
            Self.remove(key, from: &store)
            store.head += 1
        }
        if store.head > 1024, store.head * 2 > store.queue.count {
            store.queue.removeFirst(store.head)
            store.head = 0
        }
    }
}
