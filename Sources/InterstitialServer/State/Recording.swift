/// The served values on their way to the store, and the responses waiting for them: a value the
/// ``ServerState`` changes under its lock through these methods, and resumes the waiters they
/// return outside it.
struct Recording: Sendable {
    /// A response waiting for its served values (`keys`) to be recorded.
    struct Waiter: Sendable {
        var id: Int
        var keys: Set<ServedKey>
        var continuation: CheckedContinuation<Bool, Never>
    }

    /// Claimed values not yet handed to the store, in claim order.
    private(set) var queue: [StoreChange] = []
    /// Keys claimed and not yet written (queued or being written).
    private(set) var pending: Set<ServedKey> = []
    private var waiters: [Waiter] = []
    /// Waiters whose time ran out before they were registered.
    private var expired: Set<Int> = []
    private var nextWaiter = 0

    /// Queues the values `claimed` for the store; returns those of `keys` not recorded yet.
    mutating func claim(_ claimed: [StoreChange], keys: [ServedKey]) -> Set<ServedKey> {
        for change in claimed {
            if case .served(let key, _) = change { pending.insert(key) }
        }
        queue += claimed
        return Set(keys).intersection(pending)
    }

    /// A new waiter's ID.
    mutating func nextID() -> Int {
        nextWaiter += 1
        return nextWaiter
    }

    /// Registers `waiter`; returns its answer when it has one already: false when its time ran
    /// out first, true when its values are recorded; nil when it now waits.
    mutating func wait(_ waiter: Waiter) -> Bool? {
        if expired.remove(waiter.id) != nil { return false }
        if waiter.keys.isDisjoint(with: pending) { return true }
        waiters.append(waiter)
        return nil
    }

    /// The waiter `id` whose time ran out, removed; nil when it is not registered (yet), which is
    /// then remembered (``forget(_:)`` drops the mark).
    mutating func expire(_ id: Int) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else {
            expired.insert(id)
            return nil
        }
        return waiters.remove(at: index)
    }

    /// Drops the mark of an expired waiter `id`.
    mutating func forget(_ id: Int) { expired.remove(id) }

    /// The queued values, taken to be written.
    mutating func takeQueue() -> [StoreChange] {
        defer { queue = [] }
        return queue
    }

    /// Puts back a `batch` the store refused, before what was queued since.
    mutating func requeue(_ batch: [StoreChange]) { queue = batch + queue }

    /// Marks `batch` written; returns the waiters whose values are all recorded now.
    mutating func written(_ batch: [StoreChange]) -> [Waiter] {
        for change in batch {
            if case .served(let key, _) = change { pending.remove(key) }
        }
        var ready: [Waiter] = []
        waiters.removeAll { waiter in
            guard waiter.keys.isDisjoint(with: pending) else { return false }
            ready.append(waiter)
            return true
        }
        return ready
    }
}
