import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// `herd viewers`: virtual viewers of one live media playlist, each with its own session, then the
/// share of breaks the ad server filled, the asset lists' latency and the ad server's figures.
struct ViewersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewers", abstract: "Virtual viewers of a live media playlist, then the herd's figures.")

    @Option(help: "The live media playlist (http://127.0.0.1:PORT/...).")
    var url: String

    @Option(help: "How many viewers.")
    var viewers = 1500

    @Option(help: "Seconds the viewers watch.")
    var duration: Double = 120

    @Option(help: "Seconds between polls (default: the playlist's target duration).")
    var pollInterval: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds behind the live edge, LOW-HIGH (e.g. 6-8), drawn once per viewer (default: 3 target durations).",
            valueName: "low-high"))
    var behind: String?

    @Option(help: "Seconds a request may take before it counts as failed.")
    var timeout: Double = 5

    @Option(help: "The most connections from one address (hlsi allows 128 per client address by default).")
    var connections = 100

    @Option(help: "How many loopback addresses the viewers come from (127.0.0.1, 127.0.0.2, ...).")
    var addresses = 16

    @Option(help: "The herd ad server's origin, for its /stats (optional).")
    var adServer: String?

    @Option(
        help: ArgumentHelp(
            "Seconds the viewers first poll without X-PLAYBACK-SESSION-ID and request nothing else.",
            discussion: "Their connections are open then, with no session on the server: the RSS at its end "
                + "less the RSS at the break, per viewer, is the memory of an active session."))
    var warmup: Double = 0

    @Option(help: "The seed of the viewers' random timings.")
    var seed: UInt64 = 1

    @Flag(help: "Print the figures as JSON.")
    var json = false

    func validate() throws {
        guard url.hasPrefix("http://127.0.0.1:") else { throw ValidationError("--url must be on http://127.0.0.1") }
        guard (1...100_000).contains(viewers) else { throw ValidationError("--viewers must be 1 to 100000") }
        guard duration > 0, duration <= 3600 else { throw ValidationError("--duration must be 0 to 3600 s") }
        guard (1...1000).contains(connections) else { throw ValidationError("--connections must be 1 to 1000") }
        guard (1...250).contains(addresses) else { throw ValidationError("--addresses must be 1 to 250") }
        if let behind, Self.range(behind) == nil {
            throw ValidationError("--behind must be LOW-HIGH seconds, 0 <= LOW <= HIGH <= 60 (e.g. 6-8)")
        }
        guard warmup >= 0, warmup < duration else { throw ValidationError("--warmup must be 0 to --duration s") }
    }

    func run() async throws {
        // One client per source address (the pool is per client address), all on the same two
        // event loops; each viewer's timers and callbacks stay on one loop.
        let group = MultiThreadedEventLoopGroup.singleton
        let clients = (1...addresses).map { index in
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(
                idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
            configuration.timeout = .init(connect: .seconds(2), read: .seconds(Int64(timeout.rounded(.up))))
            configuration.httpVersion = .http1Only
            if addresses > 1 { configuration.localAddress = "127.0.0.\(index)" }
            return HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        }
        let results = HerdResults()
        let cache = PlaylistSnapshot.Cache()
        var context = Viewer.Context(
            cache: cache, results: results, url: url, pollInterval: pollInterval, timeout: timeout)
        context.behindSeconds = behind.flatMap(Self.range)
        let cpuBefore = WallClock.processCPU
        let start = WallClock.now
        context.warmupEnd = start + warmup
        let end = start + duration
        let spread = pollInterval ?? 2
        var runs: [EventLoopFuture<Void>] = []
        for index in 0..<viewers {
            let viewer = Viewer(
                session: UUID().uuidString, client: clients[index % addresses], loop: group.next(), context: context,
                seed: seed &* 1_000_003 &+ UInt64(index))
            runs.append(viewer.run(join: start + spread * Double(index) / Double(viewers), end: end))
        }
        try await EventLoopFuture.andAllComplete(runs, on: group.next()).get()
        let elapsed = WallClock.now - start
        let cpu = WallClock.processCPU - cpuBefore
        let stats = await adServerStats(clients[0])
        for client in clients { try await client.shutdown() }
        let report = HerdReport(
            viewers: viewers, warmup: warmup, counts: results.snapshot, parses: cache.parsed, seconds: elapsed,
            cpuSeconds: cpu,
            adServer: stats)
        print(json ? report.json : report.text)
    }

    /// `LOW-HIGH` seconds, 0 ≤ LOW ≤ HIGH ≤ 60; nil otherwise.
    static func range(_ text: String) -> ClosedRange<Double>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 2, let low = parts[0], let high = parts[1], low >= 0, low <= high, high <= 60 else {
            return nil
        }
        return low...high
    }

    /// The ad server's `/stats`, when `--ad-server` is given and answers.
    private func adServerStats(_ client: HTTPClient) async -> [String: Any]? {
        guard let adServer else { return nil }
        do {
            let response = try await client.execute(HTTPClientRequest(url: adServer + "/stats"), timeout: .seconds(5))
            let body = try await response.body.collect(upTo: 1 << 20)
            return try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        } catch {
            return nil
        }
    }
}
