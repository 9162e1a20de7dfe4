import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

@Suite("GET /metrics")
struct MetricsRouteTests {
    /// Runs `body` against the server's routes built around `metrics`, without listening.
    static func withRoutes(
        _ configuration: ServerConfiguration, metrics: ServerMetrics,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let server = try InterstitialServer(configuration: configuration, logger: Harness.logger)
        let client = server.makeHTTPClient()
        let library = ContentLibrary(
            configuration: configuration, state: server.state, inventory: StoredInventory(state: server.state),
            client: client, logger: Harness.logger, now: { DateTime(Date()) })
        let routes = Routes(
            library: library, admin: AdminAPI(library: library),
            mailbox: HandoffMailbox(capacity: 1, expiry: .seconds(1), clock: SystemServerClock()), metrics: metrics)
        do {
            try await Application(router: routes.router(), logger: Harness.logger).test(.router, body)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test("with an admin token, /metrics needs it as a bearer token, as the admin API does")
    func token() async throws {
        try await Harness.withServer { client in
            for header in [nil, "Bearer wrong", "Bearer ", "Basic \(Harness.token)", Harness.token] as [String?] {
                var headers: HTTPFields = [:]
                if let header { headers[.authorization] = header }
                let response = try await client.get("/metrics", headers: headers)
                #expect(response.status == .unauthorized, "\(header ?? "no header")")
                #expect(response.errorCode == "unauthorized")
                #expect(response.headers[.wwwAuthenticate] != nil)
            }
            let response = try await client.get("/metrics", headers: [.authorization: "Bearer \(Harness.token)"])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.eTag] == nil)
            _ = try ExpositionText(response.text)
        }
    }

    #if canImport(Glibc)
        @Test("/metrics reports the heap in use (glibc), and it grows with what the process keeps")
        func heap() async throws {
            let before = try #require(HeapUsage.bytesInUse())
            // 64 MiB kept: other tests running meanwhile allocate and free far less.
            let kept = [UInt8](repeating: 1, count: 64 << 20)
            let after = try #require(HeapUsage.bytesInUse())
            #expect(after - before >= kept.count / 2)
            try await Harness.withServer { client in
                let response = try await client.get("/metrics", headers: [.authorization: "Bearer \(Harness.token)"])
                let lines = String(buffer: response.body).split(separator: "\n")
                let line = lines.first { $0.hasPrefix("hlsi_heap_bytes ") }
                let value = try #require(line.flatMap { Double($0.split(separator: " ")[1]) })
                #expect(value > 0)
            }
            withExtendedLifetime(kept) {}
        }
    #endif

    @Test("without an admin token, /metrics is open on a loopback address")
    func loopback() async throws {
        var configuration = try Harness.demo()
        configuration.adminToken = nil
        #expect(ServerConfiguration.isLoopback(configuration.host))
        try await Harness.withServer(configuration) { client in
            let response = try await client.get("/metrics")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == ServerMetrics.contentType)
            // No CORS: a page in a browser on this machine cannot read the counts.
            let crossOrigin = try await client.get("/metrics", headers: [.origin: "https://elsewhere.example"])
            #expect(crossOrigin.headers[.accessControlAllowOrigin] == nil)
            #expect(try await client.get("/demo/vod/master.m3u8").headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test(
        "without an admin token, /metrics is refused with 403 on an address that is not loopback",
        arguments: ["0.0.0.0", "::", "192.0.2.1"])
    func notLoopback(host: String) async throws {
        var configuration = try Harness.demo()
        configuration.adminToken = nil
        configuration.host = host
        configuration.publicURL = "https://origin.example.com"
        try await Self.withRoutes(configuration, metrics: ServerMetrics()) { client in
            let response = try await client.get("/metrics")
            #expect(response.status == .forbidden)
            #expect(response.errorCode == "forbidden")
        }
        configuration.adminToken = Harness.token
        try await Self.withRoutes(configuration, metrics: ServerMetrics()) { client in
            #expect(try await client.get("/metrics").status == .unauthorized)
            let response = try await client.get("/metrics", headers: [.authorization: "Bearer \(Harness.token)"])
            #expect(response.status == .ok)
        }
    }

    @Test("the route serves the counts of the metrics it was given, as they change")
    func sharedCounts() async throws {
        let metrics = ServerMetrics()
        try await Self.withRoutes(try Harness.demo(), metrics: metrics) { client in
            let headers: HTTPFields = [.authorization: "Bearer \(Harness.token)"]
            let before = try ExpositionText(try await client.get("/metrics", headers: headers).text)
            // The heap gauge is read at each scrape (where glibc says it).
            #expect(before.samples.filter { $0.key != "hlsi_heap_bytes" } == ["hlsi_fast_answers_total": 0])
            metrics.assetListAnswered(target: "vod/demo", source: "vast", ads: 2, filled: true)
            metrics.assetListAnswered(target: "vod/demo", source: "vast", ads: 0, filled: false)
            metrics.vastDecision(target: "vod/demo", seconds: 1.2, requests: 2, errorCodes: [301], timedOut: true)
            let after = try ExpositionText(try await client.get("/metrics", headers: headers).text)
            let series = ["target": "vod/demo", "source": "vast"]
            #expect(after.value("hlsi_asset_list_requests_total", series) == 2)
            #expect(after.value("hlsi_asset_list_filled_total", series) == 1)
            #expect(after.value("hlsi_asset_list_ads_total", series) == 2)
            #expect(after.value("hlsi_vast_errors_total", ["target": "vod/demo", "code": "301"]) == 1)
            #expect(after.value("hlsi_vast_timeouts_total", ["target": "vod/demo"]) == 1)
            #expect(after.value("hlsi_vast_request_duration_seconds_bucket", ["target": "vod/demo", "le": "1.0"]) == 0)
            #expect(after.value("hlsi_vast_request_duration_seconds_bucket", ["target": "vod/demo", "le": "1.5"]) == 1)
        }
    }
}
