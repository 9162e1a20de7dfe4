import ArgumentParser
import AsyncHTTPClient
import Foundation

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

    @Option(help: "Seconds a request may take before it counts as failed.")
    var timeout: Double = 5

    @Option(help: "The most connections to the origin (hlsi allows 128 per client address by default).")
    var connections = 100

    @Option(help: "The herd ad server's origin, for its /stats (optional).")
    var adServer: String?

    @Option(help: "The seed of the viewers' random timings.")
    var seed: UInt64 = 1

    @Flag(help: "Print the figures as JSON.")
    var json = false

    func validate() throws {
        guard url.hasPrefix("http://127.0.0.1:") else { throw ValidationError("--url must be on http://127.0.0.1") }
        guard (1...100_000).contains(viewers) else { throw ValidationError("--viewers must be 1 to 100000") }
        guard duration > 0, duration <= 3600 else { throw ValidationError("--duration must be 0 to 3600 s") }
        guard (1...1000).contains(connections) else { throw ValidationError("--connections must be 1 to 1000") }
    }

    func run() async throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(Int64(timeout.rounded(.up))))
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let results = HerdResults()
        let cache = PlaylistSnapshot.Cache()
        let context = Viewer.Context(
            client: client, cache: cache, results: results, url: url, pollInterval: pollInterval, timeout: timeout)
        let cpuBefore = WallClock.processCPU
        let start = WallClock.now
        let end = start + duration
        let spread = pollInterval ?? 2
        await withDiscardingTaskGroup { group in
            for index in 0..<viewers {
                let viewer = Viewer(session: UUID().uuidString, context: context)
                let join = start + spread * Double(index) / Double(viewers)
                let viewerSeed = seed &* 1_000_003 &+ UInt64(index)
                group.addTask { await viewer.run(join: join, end: end, seed: viewerSeed) }
            }
        }
        let elapsed = WallClock.now - start
        let cpu = WallClock.processCPU - cpuBefore
        let stats = await adServerStats(client)
        try await client.shutdown()
        let report = HerdReport(
            viewers: viewers, counts: results.snapshot, parses: cache.parsed, seconds: elapsed, cpuSeconds: cpu,
            adServer: stats)
        print(json ? report.json : report.text)
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
