import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import Testing

@testable import InterstitialServer

/// A PostgreSQL database that is down. Writes fail quickly with
/// `database-unavailable` (the admin API's 503), the state in memory keeps serving, and following
/// resumes when the database is back.
@Suite("A PostgreSQL store whose database is down")
struct StoreFailureTests {
    static let logger = Logger(label: "hlsi.test.store-failure")

    @Test("With no server to reach, writes fail within the deadline as database-unavailable; admin changes answer 503")
    func unreachable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-no-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = try PostgresLocation(url: "postgres://hlsi@localhost/hlsi?host=\(directory.path)")
        // The store's deadline is on a manual clock, moved past it once a write waits for it.
        let clock = ManualServerClock.starting()
        let store = PostgresStore(location, logger: Self.logger, timeout: .milliseconds(500), clock: clock)
        let error = try await failureAtDeadline(on: clock, after: .milliseconds(500)) {
            _ = try await store.write([.seeded])
        }
        let storeError = try #require(error as? StoreError, "\(String(describing: error))")
        #expect(storeError.code == .databaseUnavailable)
        #expect(storeError.message.contains("unavailable") && storeError.message.contains(location.description))
        // The pool alone would wait for its circuit breaker (60 s): the write ends by the store's
        // own deadline, which the message names.
        #expect(
            storeError.message.contains("no answer within \(Duration.milliseconds(500))"), "\(storeError)")
        let state = try ServerState(store: store, ownsStore: true)
        let ad = Ad(id: "spot", uri: "/ads/spot.m3u8", duration: MediaTime(seconds: 10))
        let refused =
            try await failureAtDeadline(on: clock, after: .milliseconds(500)) {
                _ = try await state.change { $0.apply(.saveAd(ad)) }
            } as? APIError
        #expect(refused?.statusCode == 503 && refused?.code == .storeUnavailable, "\(String(describing: refused))")
        #expect(state.snapshot == StoredState(), "nothing changed in memory")
        #expect(
            try await failureAtDeadline(on: clock, after: .milliseconds(500)) { _ = try await state.refresh() }
                is StoreError)
        await state.close(logger: Self.logger)
    }

    @Test("A replica keeps its state while the database is down and follows changes again when it is back")
    func followingResumes() async throws {
        if let reason = await PostgresCluster.unavailability() {
            try Test.cancel("PostgreSQL cannot be started here: \(reason)")
        }
        let cluster = try await PostgresCluster.startPrivate()
        let location = try PostgresCluster.location(cluster)
        let a = try ServerState(
            store: PostgresStore(location, logger: Self.logger, timeout: .seconds(2)), ownsStore: true)
        let b = try ServerState(
            store: PostgresStore(location, logger: Self.logger, timeout: .seconds(2)), ownsStore: true,
            pollInterval: .milliseconds(50))
        // The first connections to a new cluster, and its migration, may take longer than the 2 s
        // deadline on a loaded machine: each step is tried until it succeeds (the bound only
        // guards against a hang). What this test decides depends on no deadline: with the database
        // down an update fails whenever it is tried, and every other step is retried until it holds.
        #expect(try await eventually { (try? await a.open()) != nil })
        #expect(try await eventually { (try? await b.open()) != nil })
        let first = Ad(id: "first", uri: "/ads/first.m3u8", duration: MediaTime(seconds: 10))
        #expect(try await eventually { (try? await a.update { $0.apply(.saveAd(first)) }) != nil })
        let follower = Task { await b.follow(logger: Self.logger) }
        #expect(try await eventually { b.snapshot.ads[first.id] == first })

        try await PostgresCluster.stop(cluster)
        let second = Ad(id: "second", uri: "/ads/second.m3u8", duration: MediaTime(seconds: 10))
        await #expect(throws: StoreError.self) { try await a.update { $0.apply(.saveAd(second)) } }
        #expect(b.snapshot.ads[first.id] == first, "B serves what it knows")

        try await PostgresCluster.restart(cluster)
        // Each try takes up to the store's 2 s deadline; tried until it succeeds.
        #expect(try await eventually { (try? await a.update { $0.apply(.saveAd(second)) }) != nil })
        #expect(try await eventually { b.snapshot.ads[second.id] == second }, "B follows again")
        follower.cancel()
        await follower.value
        await a.close(logger: Self.logger)
        await b.close(logger: Self.logger)
        try await PostgresCluster.stop(cluster)
    }
}
