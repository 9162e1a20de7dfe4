import Foundation
import HLSInterstitials
import HLSPlaylist
import HummingbirdTesting
import Logging
import Testing

@testable import InterstitialServer

/// Two replicas deciding ahead on a real PostgreSQL ledger
/// (``PostgresDecisionLedger``) ask the ad server once per viewer; with PostgreSQL down, each decides
/// for the viewers it sees itself.
@Suite("Decisions made ahead by replicas on PostgreSQL")
struct PrefetchReplicaTests {
    static let logger = Logger(label: "hlsi.test.prefetch-replicas")

    /// Two replicas of the demo, the live channel filled by a test VAST ad server, each with its
    /// ledger; `prepare` runs once both serve (before any viewer is seen); then each replica sees
    /// its `viewers` on the live playlist, and `body` gets the clients, the ad server's requests per
    /// session, and the sessions.
    ///
    static func run(
        ledgers: (any DecisionLedger, any DecisionLedger), viewers: ([String], [String]),
        prepare: @Sendable () async throws -> Void = {},
        _ body:
            @Sendable (
                _ first: any TestClientProtocol, _ second: any TestClientProtocol,
                _ asked: @Sendable (String) -> Int, _ total: @Sendable () -> Int, _ clock: ManualServerClock
            ) async throws -> Void
    ) async throws {
        try await PrefetchTests.withVASTServer { adServer, demo in
            var configuration = demo
            configuration.live[0].adServer = try AdServerSettings.decode(
                .object(["vast": .string(adServer.origin + "/vast?sid=[SESSIONID]&cb=[CACHEBUSTING]")]))
            // Both replicas on one server clock: the break 34 s on. The viewers reload 6 s on (a playing
            // span), when its retrieval window is [0, 10 s) from then. The clock ticks 3 s into the
            // window once the viewers are playing and stops there:
            // however late the machine runs the decisions, they are made before the break, and none
            // of their deadlines (5 s on) passes.
            let clock = ManualServerClock.starting()
            let start = clock.wall + MediaTime(seconds: 34)
            let breakJSON = #"{"id":"herd","target":"live/demo","date":"\#(start.iso8601)","duration":10}"#
            let replica = configuration
            try await PrefetchTests.withReplica(replica, ledger: ledgers.0, clock: clock) { first in
                try await PrefetchTests.withReplica(replica, ledger: ledgers.1, clock: clock) { second in
                    for client in [first, second] {
                        #expect(try await client.admin(.post, "breaks", breakJSON).status == .created)
                    }
                    try await prepare()
                    // Each viewer plays: it reloads its playlist a playing span later, on the manual clock
                    // (still in the window).
                    try await PlayingViewers.play(
                        viewers.0.map { (first, PlayingViewers.videoPath, $0) }
                            + viewers.1.map { (second, PlayingViewers.videoPath, $0) },
                        clock: clock, span: replica.limits.prefetchPlayingSpan)
                    let ticker = tick(clock, to: clock.now + MediaTime(seconds: 3))
                    defer { ticker.cancel() }
                    try await body(
                        first, second,
                        { session in adServer.requests("/vast").filter { $0.contains("sid=\(session)&") }.count },
                        { adServer.requests("/vast").count }, clock)
                    #expect(clock.wall < start, "all of it before the break")
                }
            }
        }
    }

    /// Moves `clock` on by `step` whenever something waits on it, until cancelled: each store
    /// deadline on it passes as soon as it is waited for (checked every millisecond of real time;
    /// what passes is decided by who waits, not by when).
    static func passing(_ clock: ManualServerClock, by step: MediaTime) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                if clock.sleepers > 0 { clock.advance(by: step) }
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
        }
    }

    /// The asset-list path of the demo's live break for `session`.
    static func list(_ session: String) -> String {
        "/demo/live/asset-list.json?_HLS_interstitial_id=herd&_HLS_primary_id=\(session)"
    }

    /// Each of `clients` answered `count` asset lists from decisions made ahead.
    static func expectAnsweredAhead(_ clients: [any TestClientProtocol], _ count: Int) async throws {
        for client in clients {
            #expect(
                try await AdServerProtectionTests.metric(
                    client, "hlsi_ad_decisions_total{target=\"live/demo\",path=\"prefetch\"}") == "\(count)")
        }
    }

    @Test(
        "two replicas sharing a ledger (in memory, and on one PostgreSQL database): each viewer is decided once, whichever replicas see it, and answered from that decision on either",
        arguments: ["memory", "postgres"]
    )
    func sharedLedger(_ kind: String) async throws {
        var stores: [PostgresStore] = []
        let ledgers: (any DecisionLedger, any DecisionLedger)
        if kind == "postgres" {
            if let reason = await PostgresCluster.unavailability() {
                try Test.cancel("PostgreSQL cannot be started here: \(reason)")
            }
            let location = try await PostgresCluster.database()
            stores = [
                PostgresStore(location, logger: Self.logger, timeout: .seconds(600)),
                PostgresStore(location, logger: Self.logger, timeout: .seconds(600)),
            ]
            ledgers = (try #require(stores[0].decisionLedger), try #require(stores[1].decisionLedger))
        } else {
            let ledger = LocalDecisionLedger(isShared: true)
            ledgers = (ledger, ledger)
        }
        let sessions = ["v1", "v2", "v3", "v4", "v5", "v6"]
        let viewers = (["v1", "v2", "v5", "v6"], ["v3", "v4", "v5", "v6"])
        try await Self.run(ledgers: ledgers, viewers: viewers) { first, second, asked, total, clock in
            #expect(await PrefetchTests.until(300) { sessions.allSatisfy { asked($0) >= 1 } })
            // Each replica holds every decision, its own and those the other published, before the
            // viewers ask (on a loaded machine, publishing and reading can trail the ad server's
            // answer). A replica follows the ledger on the clock: it ticks 6 s more, still in the
            // window, all decisions made, a quarter second each real second (PostgreSQL may be slow
            // to answer the follower's reads on a loaded machine).
            let following = tick(clock, to: clock.now + MediaTime(seconds: 6), every: MediaTime(seconds: 1))
            defer { following.cancel() }
            #expect(
                try await PrefetchTests.until(300) {
                    for client in [first, second] {
                        let kept = try await AdServerProtectionTests.metric(client, "hlsi_prefetch_decisions")
                        guard kept.flatMap(Double.init) == Double(sessions.count) else { return false }
                    }
                    return true
                })
            for (client, session) in [(first, "v3"), (second, "v1"), (first, "v6"), (second, "v5")] {
                let answer = try await client.get(Self.list(session))
                #expect(answer.status == .ok && answer.text.contains("/ads/a1/master.m3u8"), "\(answer.text)")
            }
            try await Self.expectAnsweredAhead([first, second], 2)
            #expect(sessions.allSatisfy { asked($0) == 1 })
            #expect(total() == sessions.count, "the ad server heard each viewer once, not once per replica")
        }
        for store in stores { await store.shutdown() }
    }

    @Test(
        "PostgreSQL down: each replica decides ahead for the viewers it sees itself, and answers them from those decisions"
    )
    func databaseDown() async throws {
        if let reason = await PostgresCluster.unavailability() {
            try Test.cancel("PostgreSQL cannot be started here: \(reason)")
        }
        let cluster = try await PostgresCluster.startPrivate()
        let location = try PostgresCluster.location(cluster)
        // The stores' deadlines are on a manual clock of their own, which the test moves past each
        // deadline as soon as an operation waits for it: the database is down, so none could
        // answer, and an operation fails at its deadline however slow the machine. The replicas'
        // clock stays where `run` puts it, before the break.
        let deadlines = ManualServerClock.starting()
        let stores = [
            PostgresStore(location, logger: Self.logger, timeout: .seconds(2), clock: deadlines),
            PostgresStore(location, logger: Self.logger, timeout: .seconds(2), clock: deadlines),
        ]
        let passing = Self.passing(deadlines, by: MediaTime(seconds: 2))
        defer { passing.cancel() }
        let ledgers = try stores.map { try #require($0.decisionLedger) }
        let sessions = ["d1", "d2", "d3", "d4"]
        try await Self.run(
            ledgers: (ledgers[0], ledgers[1]), viewers: (["d1", "d2"], ["d3", "d4"]),
            prepare: { try await PostgresCluster.stop(cluster) }
        ) { first, second, asked, total, _ in
            #expect(await PrefetchTests.until(300) { sessions.allSatisfy { asked($0) >= 1 } })
            for (client, session) in [(first, "d1"), (first, "d2"), (second, "d3"), (second, "d4")] {
                let answer = try await client.get(Self.list(session))
                #expect(answer.status == .ok && answer.text.contains("/ads/a1/master.m3u8"), "\(answer.text)")
            }
            try await Self.expectAnsweredAhead([first, second], 2)
            #expect(total() == sessions.count, "each viewer decided once, by the replica that saw it")
        }
        for store in stores { await store.shutdown() }
        try? await PostgresCluster.stop(cluster)
    }
}
