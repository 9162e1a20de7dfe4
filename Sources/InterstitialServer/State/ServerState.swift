import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers

/// The server's state in memory, written through to its ``ServerStore``.
///
/// Requests read a snapshot without touching the database; the admin API's changes go to the store
/// first, then into memory, and bump ``version`` so cached playlists are rebuilt.
final class ServerState: Sendable {
    let store: any ServerStore
    private let box: NIOLockedValueBox<(state: StoredState, version: Int)>
    /// How many times each viewer asked for each break: (viewer, target, ID) → count.
    private let ledger = NIOLockedValueBox<[String: Int]>([:])
    private static let ledgerLimit = 200_000

    init(store: any ServerStore) throws {
        self.store = store
        box = NIOLockedValueBox((try store.load(), 0))
    }

    var snapshot: StoredState { box.withLockedValue { $0.state } }
    var versioned: (state: StoredState, version: Int) { box.withLockedValue { $0 } }

    /// Stores the seed's entries on the first start; later starts leave the admin API's changes alone.
    func seed(_ seed: ServerConfiguration.Seed) throws {
        guard !snapshot.isSeeded else { return }
        try update { store, state in
            for ad in seed.inventory where state.ads[ad.id] == nil { try store.put(ad, in: &state) }
            for schedule in seed.schedules where state.schedules[schedule.target] == nil {
                try store.put(schedule, in: &state)
            }
            for item in seed.breaks where state.breaks[item.id] == nil { try store.put(item, in: &state) }
            try store.markSeeded()
            state.isSeeded = true
        }
    }

    /// Applies a change: `body` writes to the store and edits the state; both or neither happen.
    func update<T>(_ body: (any ServerStore, inout StoredState) throws -> T) throws -> T {
        try box.withLockedValue { value in
            var state = value.state
            let result = try body(store, &state)
            value.state = state
            value.version += 1
            return result
        }
    }

    /// ``update(_:)`` for the admin API: store failures become 500 errors that say so.
    func change<T>(_ body: (any ServerStore, inout StoredState) throws -> T) throws(APIError) -> T {
        do {
            return try update(body)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(status: 500, code: "store", "the database failed: \(error)")
        }
    }

    /// Records date ranges as first served (output does not change, so the version stays).
    func recordServed(_ entries: [(ServedKey, AttributeList)], logger: Logger) {
        guard !entries.isEmpty else { return }
        box.withLockedValue { value in
            for (key, attributes) in entries where value.state.served[key] == nil {
                do {
                    try store.recordServed(key, attributes: attributes)
                    value.state.served[key] = attributes
                } catch {
                    logger.error("cannot record served date range \(key.id) of \(key.target): \(error)")
                }
            }
        }
    }

    /// The number of earlier requests of this viewer for this break, counting this one.
    func attempt(viewer: String?, target: Target, id: String) -> Int {
        guard let viewer else { return 0 }
        let key = "\(viewer)|\(target)|\(id)"
        return ledger.withLockedValue { counts in
            if counts.count >= Self.ledgerLimit, counts[key] == nil { counts.removeAll(keepingCapacity: true) }
            let attempt = counts[key, default: 0]
            counts[key] = attempt + 1
            return attempt
        }
    }
}

extension ServerStore {
    func put(_ ad: Ad, in state: inout StoredState) throws {
        try save(ad)
        state.ads[ad.id] = ad
    }

    func put(_ schedule: BreakSchedule, in state: inout StoredState) throws {
        try save(schedule)
        state.schedules[schedule.target] = schedule
    }

    func put(_ item: Break, in state: inout StoredState) throws {
        try save(item)
        state.breaks[item.id] = item
    }
}
