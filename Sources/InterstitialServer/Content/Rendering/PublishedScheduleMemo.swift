import NIOConcurrencyHelpers

/// The documents of the Date Range Schedules the server wrote into playlists
/// (``PublishedSchedule``), by content and schedule ID, for the `schedule.json` route.
///
/// A document is kept when a playlist naming it is written, so a player that reads the tag finds
/// its document. Bounded: at most ``limit`` documents and ``byteLimit`` bytes (a document holds at
/// most 1 MiB); when full, the oldest go first.
final class PublishedScheduleMemo: Sendable {
    /// What a document is kept by.
    struct Key: Hashable, Sendable {
        /// The content's ID.
        var content: String
        /// The schedule's ID.
        var identifier: String
    }

    private struct Store {
        var documents: [Key: [UInt8]] = [:]
        var order: [Key] = []
        var bytes = 0
    }

    private let store = NIOLockedValueBox(Store())
    /// The most documents kept.
    let limit: Int
    /// The most bytes kept.
    let byteLimit: Int

    init(limit: Int = 1024, byteLimit: Int = 64 << 20) {
        self.limit = max(0, limit)
        self.byteLimit = max(0, byteLimit)
    }

    /// Keeps `schedule`'s document for `content`.
    func keep(_ schedule: PublishedSchedule, content: String) {
        let key = Key(content: content, identifier: schedule.identifier)
        guard limit > 0, schedule.document.count <= byteLimit else { return }
        store.withLockedValue { store in
            guard store.documents[key] == nil else { return }
            while !store.order.isEmpty,
                store.order.count >= limit || store.bytes + schedule.document.count > byteLimit
            {
                let oldest = store.order.removeFirst()
                store.bytes -= store.documents.removeValue(forKey: oldest)?.count ?? 0
            }
            store.documents[key] = schedule.document
            store.order.append(key)
            store.bytes += schedule.document.count
        }
    }

    /// The document of schedule `identifier` of `content`, if kept.
    func document(content: String, identifier: String) -> [UInt8]? {
        store.withLockedValue { $0.documents[Key(content: content, identifier: identifier)] }
    }

    /// The number of documents kept.
    var count: Int { store.withLockedValue { $0.documents.count } }
}
