import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The server's state in memory, written through to its ``ServerStore``.
///
/// Requests read a snapshot under a lock that is only ever held for memory operations. Writers
/// (the admin ``Catalog``, the seed) take the writer lock, which readers never take: they decide their
/// change against a snapshot, write it to the store with no state lock held, then apply it to the
/// state in memory briefly and bump the version (``versioned``) so cached playlists are rebuilt.
/// The first serving of a date range is decided in memory (the first request wins; every request
/// serves the decided value; the version moves on too) and recorded in the store by
/// ``StateService``; a response that carries a value not yet recorded waits until it is
/// (``awaitRecorded(_:timeout:)``), so a value is on disk before any viewer sees it, while requests
/// for playlists with nothing new never wait on the disk.
///
/// The state is read from the store by ``open()``, before the server serves. A store that other
/// servers share (``ServerStore/isShared``) is followed by ``follow(logger:)``: every
/// ``pollInterval`` it reads the store's change count, and only when the count moved does it load the
/// store again and swap the state in memory. Requests never touch the database themselves.
final class ServerState: Sendable {
    let store: any ServerStore
    let limits: ServerLimits
    private let box: NIOLockedValueBox<(state: StoredState, version: Int)>
    private let writer = AsyncLock()
    private let ledger: NIOLockedValueBox<ViewerLedger>
    /// Served values decided but not yet written, the responses waiting for them, and the signal
    /// that there are some.
    private let recording = NIOLockedValueBox(Recording())
    private let signal: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)

    /// The store's change count the state in memory reflects (nil until ``open()``).
    private let followed = NIOLockedValueBox<Int64?>(nil)
    /// The requests being counted in a shared store in the background (``attemptHere(viewer:target:id:logger:)``).
    /// The requests counted here on their way to a shared store (``attemptHere(viewer:target:id:logger:)``).
    private let backgroundCounts: BackgroundViewerCounts

    /// Whether the state opened its store (and closes it when the server stops).
    let ownsStore: Bool
    /// How often ``follow(logger:)`` reads a shared store's change count.
    let pollInterval: Duration
    /// The server's clock: the viewer ledger's time, the waits for records and the follower's pace.
    let clock: any ServerClock

    /// Creates an empty state on `store`, on `clock` (the system's unless another is given);
    /// ``open()`` reads the store.
    init(
        store: any ServerStore, ownsStore: Bool = false, limits: ServerLimits = ServerLimits(),
        pollInterval: Duration = .milliseconds(250), clock: any ServerClock = SystemServerClock()
    ) throws {
        self.store = store
        self.clock = clock
        self.ownsStore = ownsStore
        self.limits = limits
        self.pollInterval = pollInterval
        box = NIOLockedValueBox((StoredState(), 0))
        ledger = NIOLockedValueBox(ViewerLedger(limits: limits))
        signal = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        backgroundCounts = BackgroundViewerCounts(
            store: store, expiry: limits.viewerExpiry.duration, timeout: limits.viewerStoreTimeout, clock: clock)
    }

    /// Reads the state from the store (before the server serves).
    func open() async throws {
        try await writer.withLock {
            let count = try await store.changeCount()
            try await replace(with: store.load(), count: count)
        }
    }

    /// Loads the store again when another server changed it (its change count moved since the state
    /// was read); a store that only this server writes is never read again.
    ///
    /// - Returns: whether the state in memory changed (its version moved on).
    @discardableResult
    func refresh() async throws -> Bool {
        guard store.isShared else { return false }
        let count = try await store.changeCount()
        guard followed.withLockedValue({ $0 }) != count else { return false }
        return try await writer.withLock {
            // Read again under the writer lock: a write of this server may have moved it meanwhile.
            let count = try await store.changeCount()
            guard followed.withLockedValue({ $0 }) != count else { return false }
            return try await replace(with: store.load(), count: count)
        }
    }

    /// Swaps in a state loaded from the store at change count `count` (or later), keeping served
    /// values decided in memory that the store does not have yet (they are on their way to it);
    /// a served value the store has is the one that counts, even if this server decided another.
    ///
    /// The caller holds the writer lock.
    @discardableResult
    private func replace(with loaded: StoredState, count: Int64) -> Bool {
        defer { followed.withLockedValue { $0 = count } }
        return box.withLockedValue { value in
            var next = loaded
            for (key, attributes) in value.state.served where next.served[key] == nil {
                next.served[key] = attributes
            }
            guard next != value.state else { return false }
            value.state = next
            value.version += 1
            return true
        }
    }

    /// Follows a shared store (``StoreFollower``): ``refresh()`` every ``pollInterval`` until
    /// cancelled, and drops its expired viewer counts every ``StoreFollower/pruneInterval`` (a store
    /// that only this server writes returns at once). A failing store is logged and tried again.
    func follow(logger: Logger) async {
        await StoreFollower(state: self, clock: clock, pollInterval: pollInterval).run(logger: logger)
    }

    var snapshot: StoredState { box.withLockedValue { $0.state } }
    /// The state and its version, read together. The version moves on with every change of the
    /// state in memory: each ``update(_:)`` that writes (admin changes, early returns, the seed) and
    /// each ``claimServed(_:)`` that decides a new served value; equal versions mean equal states.
    var versioned: (state: StoredState, version: Int) { box.withLockedValue { $0 } }
    /// The state's version alone (see ``versioned``).
    var version: Int { box.withLockedValue { $0.version } }

    /// Stores the seed's entries on the first start, in one transaction; later starts leave the
    /// admin API's changes alone.
    ///
    /// - Throws: ``StoreError`` `seed` when the store refuses the transaction: then nothing of the
    ///   seed is stored, on disk or in memory, and the next start tries again.
    func seed(_ seed: ServerConfiguration.Seed) async throws {
        do {
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
        } catch {
            throw StoreError(
                code: StoreError.Code.seed,
                "cannot store the configuration's seed (\(seed.inventory.count) ads, \(seed.schedules.count) schedules, \(seed.breaks.count) breaks); nothing of it was stored: \(error)"
            )
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

    /// ``update(_:)`` for the admin ``Catalog``: store failures become 500 errors that say so; a
    /// database that is unavailable (``StoreError`` `database-unavailable`) a 503 `store-unavailable`
    /// (try again later; nothing was changed).
    func change<T: Sendable>(_ body: (inout Transaction) throws -> T) async throws(APIError) -> T {
        do {
            return try await update(body)
        } catch let error as APIError {
            throw error
        } catch let error as StoreError where error.code == .databaseUnavailable {
            throw APIError(status: 503, code: .storeUnavailable, "nothing was changed: \(error.message)")
        } catch {
            throw APIError(status: 500, code: .store, "the database failed: \(error)")
        }
    }

    /// Decides the first serving of date ranges: entries whose key has no served value yet become
    /// the served value (memory only; ``StateService`` stores them).
    ///
    /// - Returns: nil when another request decided one of them first with other attributes, so the
    ///   caller must plan again; else the keys among `entries` whose values are not yet recorded,
    ///   which the caller awaits with ``awaitRecorded(_:timeout:)`` before it answers.
    func claimServed(_ entries: [(ServedKey, AttributeList)]) -> Set<ServedKey>? {
        guard !entries.isEmpty else { return [] }
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
            // A new served value changes what a playlist renders to: cached playlists are rebuilt.
            if !claimed.isEmpty { value.version += 1 }
            return agreed
        }
        let unsettled = recording.withLockedValue { $0.claim(claimed, keys: entries.map(\.0)) }
        if !claimed.isEmpty { signal.continuation.yield() }
        return agreed ? unsettled : nil
    }

    /// Takes the store's served values where they differ from the ones decided here (another
    /// replica recorded first); a playlist being answered with the value decided here plans again
    /// (``agrees(_:)``).
    private func adopt(_ stored: [ServedKey: AttributeList]) {
        box.withLockedValue { value in
            var changed = false
            for (key, attributes) in stored where value.state.served[key] != attributes {
                value.state.served[key] = attributes
                changed = true
            }
            if changed { value.version += 1 }
        }
    }

    /// Whether the served values of `entries` are still those given (false when another replica's
    /// values were recorded first and adopted).
    func agrees(_ entries: [(ServedKey, AttributeList)]) -> Bool {
        box.withLockedValue { value in entries.allSatisfy { value.state.served[$0.0] == $0.1 } }
    }

    /// Waits until the served values of `keys` are recorded in the store, at most `timeout` of the
    /// state's clock.
    ///
    /// - Returns: false when the store did not record them in time (the caller answers anyway: a
    ///   stuck database must not stop playback; the values stay queued and are retried).
    func awaitRecorded(_ keys: Set<ServedKey>, timeout: Duration) async -> Bool {
        guard !keys.isEmpty else { return true }
        let id = recording.withLockedValue { $0.nextID() }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let settled = self.recording.withLockedValue {
                        $0.wait(Recording.Waiter(id: id, keys: keys, continuation: continuation))
                    }
                    if let settled { continuation.resume(returning: settled) }
                }
            }
            group.addTask {
                try? await self.clock.sleep(for: MediaTime(timeout))
                let waiter = self.recording.withLockedValue { $0.expire(id) }
                waiter?.continuation.resume(returning: false)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            // A timer that found no waiter (it had been resumed) leaves its mark: drop it.
            await group.waitForAll()
            recording.withLockedValue { $0.forget(id) }
            return first
        }
    }

    /// Writes the served values decided by ``claimServed(_:)`` to the store, in batches, until
    /// ``finishRecording()``; each batch is one transaction, taken with the writer lock. A batch the
    /// store refuses is kept and retried (every `retry`), never dropped.
    func recordServed(logger: Logger, retry: Duration = .seconds(1)) async {
        /// Whether everything queued was written.
        func flush() async -> Bool {
            let batch = recording.withLockedValue { $0.takeQueue() }
            guard !batch.isEmpty else { return true }
            do {
                try await writer.withLock { try await store.write(batch) }
            } catch {
                logger.error("cannot record \(batch.count) served date ranges (will retry): \(error)")
                recording.withLockedValue { $0.requeue(batch) }
                return false
            }
            if store.isShared {
                // Another replica may have recorded other values for some keys first: theirs count.
                let keys = batch.compactMap { change -> ServedKey? in
                    if case .served(let key, _) = change { return key }
                    return nil
                }
                if let stored = try? await store.servedValues(for: keys) { adopt(stored) }
            }
            let ready = recording.withLockedValue { $0.written(batch) }
            for waiter in ready { waiter.continuation.resume(returning: true) }
            return true
        }
        for await _ in signal.stream {
            while await !flush() {
                try? await clock.sleep(for: MediaTime(retry))
                if Task.isCancelled { break }
            }
        }
        _ = await flush()
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

    /// The number of earlier requests of this viewer for this break (this one is counted for the
    /// next); a viewer ID longer than ``ServerLimits/viewerIDBytes`` is not counted.
    ///
    /// The server's own ledger counts at once (``Pending/now(_:)``) when it counts viewers itself
    /// (its store is not shared), and there is nothing to count without a viewer. A shared store
    /// counts them, so that every replica sees a viewer's requests
    /// (``ServerStore/countViewerRequest(viewer:target:id:expiry:)``): that is waited for
    /// (``Pending/later(_:)``, which counts nothing until awaited), and when the store does not
    /// answer within ``ServerLimits/viewerStoreTimeout``, or keeps no viewers, the server's own
    /// ledger counts.
    func attempt(viewer: String?, target: Target, id: String, logger: Logger? = nil) -> Pending<Int> {
        guard let viewer, viewer.utf8.count <= limits.viewerIDBytes else { return .now(0) }
        guard store.isShared else { return .now(count(viewer: viewer, target: target, id: id)) }
        let store = store
        let expiry = limits.viewerExpiry.duration
        let timeout = limits.viewerStoreTimeout
        return .later { [self] in
            // On the server's clock: the store's answer, or nil when it failed or took too long.
            let counted = await clock.within(timeout) {
                try await store.countViewerRequest(viewer: viewer, target: target, id: id, expiry: expiry)
            }
            if let counted = counted ?? nil { return counted }
            if counted == nil {
                logger?.debug("counting the viewer's request in memory: the store did not count it in time")
            }
            return count(viewer: viewer, target: target, id: id)
        }
    }

    /// The number of earlier requests of this viewer for this break as this replica counted them,
    /// at once (this one is counted for the next): for a request whose answer must not wait for the
    /// database (``DecisionMachine/Live/countsHere``). A viewer ID longer than
    /// ``ServerLimits/viewerIDBytes`` is not counted.
    ///
    /// With a shared store the request is also counted there, in the background and its answer not
    /// waited for, so that the other replicas see it: batched with the others counted meanwhile
    /// (``BackgroundViewerCounts``, at most ``BackgroundViewerCounts/maximumPending`` waiting, each
    /// batch within ``ServerLimits/viewerStoreTimeout``); past that bound, or when the store fails,
    /// it is counted here alone.
    func attemptHere(viewer: String?, target: Target, id: String, logger: Logger? = nil) -> Int {
        guard let viewer, viewer.utf8.count <= limits.viewerIDBytes else { return 0 }
        let counted = count(viewer: viewer, target: target, id: id)
        guard store.isShared else { return counted }
        if !backgroundCounts.add(ViewerRequestKey(viewer: viewer, target: target, id: id)) {
            logger?.debug("too many viewer requests waiting for the store (counted here)")
        }
        return counted
    }

    /// How many distinct requests wait to be counted in a shared store (for tests).
    var backgroundCountsPending: Int { backgroundCounts.pending }

    /// Counts the request in the server's own ledger.
    private func count(viewer: String, target: Target, id: String) -> Int {
        let now = clock.now
        return ledger.withLockedValue { $0.count("\(viewer)|\(target)|\(id)", now: now) }
    }

    /// Drops a shared store's expired viewer counts and those beyond ``ServerLimits/ledgerEntries``.
    func pruneViewers(logger: Logger) async {
        guard store.isShared else { return }
        do {
            let dropped = try await store.pruneViewerRequests(limit: limits.ledgerEntries)
            if dropped > 0 { logger.debug("dropped \(dropped) viewer counts from the store") }
        } catch {
            logger.warning("cannot drop expired viewer counts (will retry): \(error)")
        }
    }

    /// The number of entries and bytes the ledger holds (for tests).
    var ledgerSize: (entries: Int, bytes: Int) { ledger.withLockedValue { ($0.entries, $0.bytes) } }
}
