import HLSPlaylist
import NIOConcurrencyHelpers

/// Upstream playlists fetched, and served, once for every viewer who asks for the same URL at
/// about the same time: one request to the origin is in flight per URL, and its answer (`Value`:
/// the playlist as served, or an error) serves every request that starts within ``reuse`` of it.
///
/// A live channel's viewers all reload its playlists every target duration; without sharing, each
/// reload is an upstream request, and everything derived from the playlist (its SCTE-35 signals,
/// its breaks, its rendering) is derived again. With it, that happens once per origin answer.
/// Bounded: at most ``countLimit`` URLs; when full, those no longer reusable are dropped, then all.
final class UpstreamPlaylistShare<Value: Sendable>: Sendable {
    private struct Entry {
        var id: UInt64
        var task: Task<Result<Value, APIError>, Never>
        /// When the fetch ended; nil while in flight.
        var ended: MediaTime?
    }

    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    private let nextID = NIOLockedValueBox<UInt64>(0)
    private let sharedCount = NIOLockedValueBox(0)
    /// How long an answer serves later requests, from the end of its fetch.
    let reuse: MediaTime
    /// The most URLs remembered.
    let countLimit: Int
    /// The server's clock: when a fetch ended, and whether its answer may still be reused.
    private let clock: any ServerClock

    /// A share whose answers serve the requests of the next `reuse` (on `clock`), for at most
    /// `countLimit` URLs.
    init(reuse: MediaTime = MediaTime(seconds: 1), countLimit: Int = 4096, clock: any ServerClock) {
        self.reuse = reuse
        self.countLimit = countLimit
        self.clock = clock
    }

    /// The answer for `url` (any key that names what is fetched and how it is served): that of a
    /// fetch in flight or ended less than ``reuse`` ago, or of a new `fetch`.
    func playlist(
        _ url: String, fetch: @escaping @Sendable () async throws(APIError) -> Value
    ) async throws(APIError) -> Value {
        let reuse = reuse
        let countLimit = countLimit
        let id = nextID.withLockedValue { id in
            id += 1
            return id
        }
        let now = clock.now
        let task = entries.withLockedValue { entries in
            if let entry = entries[url], entry.ended.map({ now - $0 < reuse }) ?? true {
                sharedCount.withLockedValue { $0 += 1 }
                return entry.task
            }
            if entries.count >= countLimit {
                entries = entries.filter { $0.value.ended.map { now - $0 < reuse } ?? true }
                if entries.count >= countLimit { entries.removeAll() }
            }
            let task = Task { () -> Result<Value, APIError> in
                let result: Result<Value, APIError>
                do throws(APIError) {
                    result = .success(try await fetch())
                } catch {
                    result = .failure(error)
                }
                self.ended(url, id)
                return result
            }
            entries[url] = Entry(id: id, task: task, ended: nil)
            return task
        }
        return try await task.value.get()
    }

    private func ended(_ url: String, _ id: UInt64) {
        let now = clock.now
        entries.withLockedValue { entries in
            if entries[url]?.id == id { entries[url]?.ended = now }
        }
    }

    /// How many requests were answered by another request's fetch.
    var shared: Int { sharedCount.withLockedValue { $0 } }

    /// The number of URLs remembered.
    var count: Int { entries.withLockedValue { $0.count } }
}
