import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// A request a replica counts itself is sent to the shared store in batches: every request counted
/// while a batch is written goes in the next one, within the bound (issue 43: a cue's herd costs the
/// database a few statements, not one a viewer).
@Suite("Background viewer counts")
struct BackgroundViewerCountsTests {
    /// A shared store whose batch writes wait until the test lets them through, one at a time.
    final class GatedStore: ServerStore {
        let base: SQLiteStore
        private let state = NIOLockedValueBox<(batches: [[ViewerRequestKey: Int]], open: Int)>(([], 0))

        init() throws { base = try SQLiteStore(path: nil) }

        var isShared: Bool { true }
        /// The batches the store was given, in order.
        var batches: [[ViewerRequestKey: Int]] { state.withLockedValue { $0.batches } }
        /// Lets one more batch be written.
        func open() { state.withLockedValue { $0.open += 1 } }

        func load() throws -> StoredState { try base.load() }
        func write(_ changes: [StoreChange]) async throws { try await base.write(changes) }
        func countViewerRequest(viewer: String, target: Target, id: String, expiry: Duration) async throws -> Int? {
            Issue.record("a request counted alone, not in a batch")
            return 0
        }
        func countViewerRequests(_ counts: [ViewerRequestKey: Int], expiry: Duration) async throws {
            let index = state.withLockedValue { state in
                state.batches.append(counts)
                return state.batches.count
            }
            while state.withLockedValue({ $0.open < index }) { try await Task.sleep(for: .milliseconds(5)) }
        }
        func close() throws { try base.close() }
    }

    static let target = Target(.live, "channel")

    static func key(_ viewer: String) -> ViewerRequestKey {
        ViewerRequestKey(viewer: viewer, target: target, id: "break-1")
    }

    /// Counts on a ``GatedStore``, each batch within a deadline nobody reaches (a manual clock that
    /// stands still): only the store ends a batch.
    static func gated() throws -> (GatedStore, BackgroundViewerCounts) {
        let store = try GatedStore()
        let clock = ManualServerClock(wall: DateTime(nanosecondsSinceEpoch: 0))
        return (
            store,
            BackgroundViewerCounts(store: store, expiry: .seconds(60), timeout: MediaTime(seconds: 3600), clock: clock)
        )
    }

    @Test("the requests counted while a batch is written go together in the next; none is lost or sent twice")
    func batches() async throws {
        let (store, counts) = try Self.gated()
        #expect(counts.add(Self.key("v1")))
        #expect(try await eventually { store.batches.count == 1 })
        for viewer in ["v2", "v2", "v3", "v2", "v1"] { #expect(counts.add(Self.key(viewer))) }
        #expect(counts.pending == 3)
        store.open()
        #expect(try await eventually { store.batches.count == 2 })
        store.open()
        #expect(try await eventually { counts.pending == 0 && store.batches.count == 2 })
        #expect(store.batches[0] == [Self.key("v1"): 1])
        #expect(store.batches[1] == [Self.key("v2"): 3, Self.key("v3"): 1, Self.key("v1"): 1])
        // Nothing waits: the next request starts a batch of its own.
        #expect(counts.add(Self.key("v4")))
        #expect(try await eventually { store.batches.count == 3 })
        #expect(store.batches[2] == [Self.key("v4"): 1])
        store.open()
    }

    @Test("bounded: past the most requests waiting one is not sent; a batch carries at most the most a batch takes")
    func bounded() async throws {
        let (store, counts) = try Self.gated()
        #expect(counts.add(Self.key("first")))
        #expect(try await eventually { store.batches.count == 1 })
        for index in 0..<BackgroundViewerCounts.maximumPending { #expect(counts.add(Self.key("v\(index)"))) }
        #expect(!counts.add(Self.key("one too many")), "the bound: counted by the replica alone")
        #expect(counts.add(Self.key("v0")), "a request already waiting is counted in its entry")
        let batches = 1 + BackgroundViewerCounts.maximumPending / BackgroundViewerCounts.maximumBatch
        for _ in 0..<batches { store.open() }
        // Every batch taken and handed to the store (a batch is taken before the store sees it).
        #expect(try await eventually { counts.pending == 0 && store.batches.count == batches })
        let sent = store.batches.dropFirst()
        #expect(sent.allSatisfy { $0.count <= BackgroundViewerCounts.maximumBatch })
        #expect(sent.map(\.count).reduce(0, +) == BackgroundViewerCounts.maximumPending)
        #expect(sent.compactMap { $0[Self.key("v0")] }.reduce(0, +) == 2)
        #expect(!sent.contains { $0[Self.key("one too many")] != nil })
    }
}
