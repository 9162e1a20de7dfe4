import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The server's state in memory, written through to its ``ServerStore``.
///
/// Requests read a snapshot under a lock that is only ever held for memory operations. Writers
/// (the admin API, the seed) take the writer lock, which readers never take: they decide their
/// change against a snapshot, write it to the store with no state lock held, then apply it to the
/// state in memory briefly and bump ``version`` so cached playlists are rebuilt. The first serving
/// of a date range is decided in memory (the first request wins; every request serves the decided
/// value) and recorded in the store by ``StateService`` in the background.
final class ServerState: Sendable {
    let store: any ServerStore
    let limits: ServerLimits
    private let box: NIOLockedValueBox<(state: StoredState, version: Int)>
    private let writer = AsyncLock()
    private let ledger: NIOLockedValueBox<Ledger>
    /// Served values decided but not yet written, and the signal that there are some.
    private let unrecorded = NIOLockedValueBox<[StoreChange]>([])
    private let signal: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)

    /// Whether the state opened its store (and closes it when the server stops).
    let ownsStore: Bool

    init(store: any ServerStore, ownsStore: Bool = false, limits: ServerLimits = ServerLimits()) throws {
        self.store = store
        self.ownsStore = ownsStore
        self.limits = limits
        box = NIOLockedValueBox((try store.load(), 0))
        ledger = NIOLockedValueBox(Ledger(limits: limits))
        signal = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    var snapshot: StoredState { box.withLockedValue { $0.state } }
    var versioned: (state: StoredState, version: Int) { box.withLockedValue { $0 } }

    /// Stores the seed's entries on the first start, in one transaction; later starts leave the
    /// admin API's changes alone.
    func seed(_ seed: ServerConfiguration.Seed) async throws {
        try await update { transaction in
            guard !transaction.state.isSeeded else { return }
            for ad in seed.inventory where transaction.state.ads[ad.id] == nil { transaction.apply(.saveAd(ad)) }
            for schedule in seed.schedules where transaction.state.schedules[schedule.target] == nil {
                transaction.apply(.saveSchedule(schedule))
            }
            for item in seed.breaks where transaction.state.breaks[item.id] == nil {
                transaction.apply(.saveBreak(item))
            }
            transaction.apply(.seeded)
        }
    }

    /// A change being decided: the state it is decided against, with the change applied, and the
    /// writes that make it.
    struct Transaction {
        var state: StoredState
        private(set) var changes: [StoreChange] = []

        mutating func apply(_ change: StoreChange) {
            state.apply(change)
            changes.append(change)
        }
    }

    /// Applies a change: `body` decides it against the current state; its writes go to the store
    /// in one transaction, then into memory. Both or neither happen; writers run one at a time.
    func update<T: Sendable>(_ body: (inout Transaction) throws -> T) async throws -> T {
        try await writer.withLock {
            var transaction = Transaction(state: snapshot)
            let result = try body(&transaction)
            let changes = transaction.changes
            guard !changes.isEmpty else { return result }
            try await store.write(changes)
            box.withLockedValue { value in
                // Replayed on the current state: served records may have come in meanwhile.
                for change in changes { value.state.apply(change) }
                value.version += 1
            }
            return result
        }
    }

    /// ``update(_:)`` for the admin API: store failures become 500 errors that say so.
    func change<T: Sendable>(_ body: (inout Transaction) throws -> T) async throws(APIError) -> T {
        do {
            return try await update(body)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(status: 500, code: "store", "the database failed: \(error)")
        }
    }

    /// Decides the first serving of date ranges: entries whose key has no served value yet become
    /// the served value (memory only; ``StateService`` stores them). Returns false when another
    /// request decided one of them first with other attributes, so the caller must plan again.
    func claimServed(_ entries: [(ServedKey, AttributeList)]) -> Bool {
        guard !entries.isEmpty else { return true }
        var claimed: [StoreChange] = []
        let agreed = box.withLockedValue { value in
            var agreed = true
            for (key, attributes) in entries {
                if let existing = value.state.served[key] {
                    if existing != attributes { agreed = false }
                } else {
                    value.state.served[key] = attributes
                    claimed.append(.served(key, attributes))
                }
            }
            return agreed
        }
        if !claimed.isEmpty {
            unrecorded.withLockedValue { $0 += claimed }
            signal.continuation.yield()
        }
        return agreed
    }

    /// Writes the served values decided by ``claimServed(_:)`` to the store, in batches, until
    /// ``finishRecording()``; each batch is one transaction, taken with the writer lock.
    func recordServed(logger: Logger) async {
        func flush() async {
            let batch = unrecorded.withLockedValue { pending in
                defer { pending = [] }
                return pending
            }
            guard !batch.isEmpty else { return }
            do {
                try await writer.withLock { try await store.write(batch) }
            } catch {
                logger.error("cannot record \(batch.count) served date ranges: \(error)")
            }
        }
        for await _ in signal.stream { await flush() }
        await flush()
    }

    /// Ends ``recordServed(logger:)`` once what was claimed so far is written.
    func finishRecording() { signal.continuation.finish() }

    /// Closes the store if the state opened it, after the writes in progress.
    func close(logger: Logger) async {
        guard ownsStore else { return }
        await writer.withLock {
            do {
                try store.close()
            } catch {
                logger.error("cannot close the store: \(error)")
            }
        }
    }

    /// Whether a writer holds the writer lock (for tests).
    var isWriting: Bool { writer.isLocked }

    /// The number of earlier requests of this viewer for this break; a viewer ID longer than
    /// ``ServerLimits/viewerIDBytes`` is not counted.
    func attempt(viewer: String?, target: Target, id: String) -> Int {
        guard let viewer, viewer.utf8.count <= limits.viewerIDBytes else { return 0 }
        return ledger.withLockedValue { $0.count("\(viewer)|\(target)|\(id)") }
    }

    /// The number of entries and bytes the ledger holds (for tests).
    var ledgerSize: (entries: Int, bytes: Int) { ledger.withLockedValue { ($0.entries, $0.bytes) } }
}

/// How many times each viewer asked for each break, in two generations: when the current one
/// reaches half the limits (entries or bytes) it becomes the previous one, and the previous one is
/// dropped. Memory stays within the limits; recent viewers keep their counts.
struct Ledger {
    private var current: [String: Int] = [:]
    private var previous: [String: Int] = [:]
    private var currentBytes = 0
    private var previousBytes = 0
    private let maxEntries: Int
    private let maxBytes: Int
    /// What an entry costs besides its key's bytes.
    static let entryOverhead = 48

    init(limits: ServerLimits) {
        maxEntries = max(2, limits.ledgerEntries / 2)
        maxBytes = max(2 * Self.entryOverhead, limits.ledgerBytes / 2)
    }

    var entries: Int { current.count + previous.count }
    var bytes: Int { currentBytes + previousBytes }

    /// The count before this request, counting this one.
    mutating func count(_ key: String) -> Int {
        if let attempt = current[key] {
            current[key] = attempt + 1
            return attempt
        }
        let attempt = previous[key] ?? 0
        let cost = key.utf8.count + Self.entryOverhead
        if current.count + 1 > maxEntries || currentBytes + cost > maxBytes {
            previous = current
            previousBytes = currentBytes
            current = [:]
            currentBytes = 0
        }
        current[key] = attempt + 1
        currentBytes += cost
        return attempt
    }
}

/// The state's background work, as one of the application's services (stopped after the HTTP
/// server): it records the served values the server decides; on a graceful shutdown it writes what
/// is left and closes the store it opened (another server may then open its database file).
struct StateService: Service {
    let state: ServerState
    let logger: Logger

    func run() async {
        await withGracefulShutdownHandler {
            await state.recordServed(logger: logger)
        } onGracefulShutdown: {
            state.finishRecording()
        }
        await state.close(logger: logger)
    }
}
