import AdDecisioning
import AsyncHTTPClient
import Dispatch
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import InterstitialServer

/// What the server fetches from ad servers (issue 37, items 3, 4, 5 and 10): the address policy
/// against SSRF, checked after resolution and on every redirect; the per-decision budgets against
/// wrapper fan-out; a retry on a fresh connection after a stale one; blocking work off the
/// cooperative pool, abandoned at the deadline.
@Suite("Ad-server fetches: policy, budgets, retry")
struct AdServerFetchTests {
    // MARK: - Policy

    static func bytes(_ text: String) -> [UInt8] { ViewerAddress.bytes(of: text)! }

    static func policy(_ allow: [String] = [], deny: [String] = [], allowPrivate: Bool = false) -> AdServerFetchPolicy {
        AdServerFetchPolicy(
            allowPrivate: allowPrivate, allow: allow.map { AdServerFetchPolicy.Rule($0)! },
            deny: deny.map { AdServerFetchPolicy.Rule($0)! })
    }

    static func allowed(_ verdict: AdServerFetchPolicy.Verdict) -> Bool {
        if case .allowed = verdict { true } else { false }
    }

    @Test(
        "loopback, private, link-local, CGNAT, multicast, reserved ranges and IPv4 inside IPv6 are not public",
        arguments: [
            "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
            "100.64.0.1", "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1",
            "198.18.0.1", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1",
            "::ffff:10.0.0.1", "::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::1", "2002:a9fe:a9fe::",
            "64:ff9b:1::1", "2001:db8::1",
        ])
    func nonPublic(address: String) {
        // inet_pton turns ::ffff:a.b.c.d into IPv4 already; build the 16 bytes to test the IPv6 form too.
        #expect(AdServerFetchPolicy.nonPublicRange(Self.bytes(address)) != nil, "\(address)")
        #expect(!Self.allowed(Self.policy().check(host: "h", port: 80, addresses: [Self.bytes(address)])))
    }

    @Test("IPv4-mapped IPv6 bytes are judged as their IPv4 address")
    func mappedBytes() {
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1]
        #expect(AdServerFetchPolicy.nonPublicRange(mapped)?.hasPrefix("a loopback address") == true)
        let public6: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 93, 184, 216, 34]
        #expect(AdServerFetchPolicy.nonPublicRange(public6) == nil)
        #expect(Self.allowed(Self.policy(["127.0.0.1"]).check(host: "h", port: 80, addresses: [mapped])))
    }

    @Test(
        "public addresses are allowed", arguments: ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "64:ff9b::808:808"])
    func publicAddresses(address: String) {
        #expect(AdServerFetchPolicy.nonPublicRange(Self.bytes(address)) == nil)
        #expect(Self.allowed(Self.policy().check(host: "ads.example", port: 443, addresses: [Self.bytes(address)])))
    }

    @Test("allow entries name networks, host names and ports; deny wins; one refused address refuses the host")
    func rules() {
        let loop = [Self.bytes("127.0.0.1")]
        #expect(!Self.allowed(Self.policy().check(host: "localhost", port: 9000, addresses: loop)))
        #expect(Self.allowed(Self.policy(["127.0.0.1:9000"]).check(host: "x", port: 9000, addresses: loop)))
        #expect(!Self.allowed(Self.policy(["127.0.0.1:9000"]).check(host: "x", port: 9001, addresses: loop)))
        #expect(Self.allowed(Self.policy(["127.0.0.0/8"]).check(host: "x", port: 1, addresses: loop)))
        #expect(Self.allowed(Self.policy(["ads.internal"]).check(host: "ads.internal", port: 80, addresses: loop)))
        #expect(!Self.allowed(Self.policy(["ads.internal"]).check(host: "x.ads.internal", port: 80, addresses: loop)))
        #expect(Self.allowed(Self.policy(["*.internal"]).check(host: "ads.internal", port: 80, addresses: loop)))
        #expect(Self.allowed(Self.policy(["[::1]:80"]).check(host: "x", port: 80, addresses: [Self.bytes("::1")])))
        #expect(Self.allowed(Self.policy(allowPrivate: true).check(host: "x", port: 80, addresses: loop)))
        #expect(
            !Self.allowed(
                Self.policy(deny: ["127.0.0.1"], allowPrivate: true).check(host: "x", port: 80, addresses: loop)))
        #expect(
            !Self.allowed(
                Self.policy(deny: ["tracker.example"]).check(
                    host: "tracker.example", port: 80, addresses: [Self.bytes("93.184.216.34")])))
        let mixed = [Self.bytes("93.184.216.34"), Self.bytes("10.0.0.1")]
        guard case .refused(let reason) = Self.policy().check(host: "ads.example", port: 80, addresses: mixed) else {
            Issue.record("a host with a private address must be refused")
            return
        }
        #expect(reason.contains("10.0.0.1") && reason.contains("a private address"), "\(reason)")
        #expect(!Self.allowed(Self.policy().check(host: "nowhere", port: 80, addresses: [])))
        // The IPv4 address is the one connected to, when there is one.
        let both = [Self.bytes("::1"), Self.bytes("127.0.0.1")]
        #expect(
            Self.policy(["localhost"]).check(host: "localhost", port: 80, addresses: both) == .allowed(address: both[1])
        )
    }

    @Test("the configuration's adServerFetch is read, with the JSON path of a wrong entry")
    func configuration() throws {
        let good = try ServerConfiguration.decode(
            Array(
                #"{"adServerFetch": {"allowPrivate": true, "allow": ["10.1.2.0/24", "ads.internal:8080", "[fd00::/8]:443"], "deny": ["*.bad.example"]}, "limits": {"adDecisionRequests": 8, "adDecisionBytes": 65536}}"#
                    .utf8), base: "/")
        #expect(good.adServerFetch.allowPrivate)
        #expect(good.adServerFetch.allow.map(\.description) == ["10.1.2.0/24", "ads.internal:8080", "[fd00::/8]:443"])
        #expect(good.adServerFetch.deny.map(\.description) == ["*.bad.example"])
        #expect(good.limits.adDecisionRequests == 8 && good.limits.adDecisionBytes == 65536)
        #expect(ServerConfiguration().adServerFetch == AdServerFetchPolicy())
        for (json, path) in [
            (#"{"adServerFetch": {"allow": ["10.0.0.0/33"]}}"#, "adServerFetch.allow[0]"),
            (#"{"adServerFetch": {"deny": ["ok.example", "bad host"]}}"#, "adServerFetch.deny[1]"),
            (#"{"adServerFetch": {"allow": ["h:99999"]}}"#, "adServerFetch.allow[0]"),
            (#"{"adServerFetch": {"allowPrivate": "yes"}}"#, "adServerFetch.allowPrivate"),
            (#"{"adServerFetch": {"other": 1}}"#, "adServerFetch.other"),
            (#"{"limits": {"adDecisionRequests": 0}}"#, "limits.adDecisionRequests"),
        ] {
            #expect(throws: APIError.self, "\(json)") { try ServerConfiguration.decode(Array(json.utf8), base: "/") }
            do {
                _ = try ServerConfiguration.decode(Array(json.utf8), base: "/")
            } catch {
                #expect(error.path == path, "\(json): \(error)")
            }
        }
    }

    @Test("decimal, octal and hexadecimal IPv4 forms resolve to the address they name")
    func numericForms() {
        for form in ["2130706433", "0177.0.0.1", "0x7f.1", "127.1", "0x7f000001"] {
            #expect(AdServerFetcher.addresses(of: form) == [[127, 0, 0, 1]], "\(form)")
        }
        #expect(AdServerFetcher.parse("http://[::1]:8080/a?b#c")?.host == "::1")
        #expect(AdServerFetcher.parse("http://user@Ads.Example.:81/p?q=1#f")?.rest == "/p?q=1")
        #expect(AdServerFetcher.parse("http://user@Ads.Example.:81/p?q=1#f")?.authority == "Ads.Example.:81")
        #expect(AdServerFetcher.parse("http://ads.example?x")?.rest == "/?x")
        #expect(AdServerFetcher.parse("file:///etc/passwd") == nil)
    }

    // MARK: - Fetches against a local ad server

    /// The clients of a fetcher: pooled, and one for retries.
    static func withFetcher(
        _ policy: AdServerFetchPolicy, clock: any ServerClock = SystemServerClock(),
        _ body: (AdServerFetcher) async throws -> Void
    ) async throws {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let fresh = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(
                AdServerFetcher(client: client, freshClient: fresh, policy: policy, clock: clock))
        } catch {
            try? await client.shutdown()
            try? await fresh.shutdown()
            throw error
        }
        try await client.shutdown()
        try await fresh.shutdown()
    }

    /// A deadline for requests that answer or fail at once: ten minutes, a hang guard only, so that
    /// a loaded machine's slowness is never what a test sees.
    static var soon: NIODeadline { .now() + .seconds(600) }

    static func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let failure as AdServerFetcher.Failure {
            return failure.kind == .refused ? failure.description : nil
        } catch {
            return nil
        }
    }

    @Test("loopback is refused by default, in every form, and the ad server hears nothing; allowed, it is fetched")
    func loopbackRefused() async throws {
        try await ScriptedServer.with { _ in
            .init(body: "ok")
        } _: { server in
            try await Self.withFetcher(AdServerFetchPolicy()) { fetcher in
                for url in [
                    "http://127.0.0.1:\(server.port)/a", "http://2130706433:\(server.port)/a",
                    "http://0x7f.1:\(server.port)/a", "http://localhost:\(server.port)/a",
                    "http://[::ffff:127.0.0.1]:\(server.port)/a",
                ] {
                    let reason = await Self.refusal { _ = try await fetcher.get(url, deadline: Self.soon) }
                    #expect(reason?.contains("loopback") == true, "\(url): \(reason ?? "not refused")")
                }
            }
            #expect(server.requests.isEmpty)
            try await Self.withFetcher(Self.policy(["127.0.0.1:\(server.port)"])) { fetcher in
                let response = try await fetcher.get("http://2130706433:\(server.port)/a?x=1", deadline: Self.soon)
                #expect(response.status == .ok)
                // Sent to the checked address, with the URL's host in Host.
                #expect(server.requests == ["/a?x=1"])
                #expect(server.hosts == ["2130706433:\(server.port)"])
                let other = await Self.refusal {
                    _ = try await fetcher.get("http://127.0.0.1:\(server.port + 1)/a", deadline: Self.soon)
                }
                #expect(other != nil)
            }
        }
    }

    @Test(
        "every redirect is checked: one to another loopback port or the admin API is refused; allowed ones are followed"
    )
    func redirects() async throws {
        try await ScriptedServer.with { path in
            switch path {
            case "/to-admin": .init(status: .found, headers: [("Location", "http://127.0.0.1:1/admin/v1/breaks")])
            case "/to-decimal": .init(status: .found, headers: [("Location", "http://2130706433:1/")])
            case "/relative": .init(status: .movedPermanently, headers: [("Location", "/final")])
            case "/loop": .init(status: .temporaryRedirect, headers: [("Location", "/loop")])
            case "/final": .init(body: "final")
            default: .init(status: .found, headers: [("Location", path + "x")])
            }
        } _: { server in
            try await Self.withFetcher(Self.policy(["127.0.0.1:\(server.port)"])) { fetcher in
                let base = "http://127.0.0.1:\(server.port)"
                for path in ["/to-admin", "/to-decimal"] {
                    let reason = await Self.refusal { _ = try await fetcher.get(base + path, deadline: Self.soon) }
                    #expect(
                        reason?.contains("127.0.0.1:1/") == true || reason?.contains("2130706433:1") == true, "\(path)")
                }
                let response = try await fetcher.get(base + "/relative", deadline: Self.soon)
                #expect(String(buffer: try await response.body.collect(upTo: 100)) == "final")
                await #expect(throws: AdServerFetcher.Failure.self) {
                    _ = try await fetcher.get(base + "/loop", deadline: Self.soon)
                }
                let before = server.requests.count
                await #expect(throws: AdServerFetcher.Failure.self) {
                    _ = try await fetcher.get(base + "/chain", deadline: Self.soon)
                }
                #expect(server.requests.count - before == 6, "the first request and 5 redirects")
            }
        }
    }

    @Test("a request on a pooled connection the ad server closed is retried once on a fresh connection")
    func staleConnectionRetried() async throws {
        try await ScriptedServer.with(answersPerConnection: 1) { _ in
            .init(body: "ok")
        } _: { server in
            let url = "http://127.0.0.1:\(server.port)/vast"
            try await Self.withFetcher(Self.policy(["127.0.0.1"])) { fetcher in
                // The situation: the pooled connection fails the second request.
                let first = try await fetcher.client.execute(HTTPClientRequest(url: url), deadline: Self.soon)
                _ = try await first.body.collect(upTo: 100)
                await #expect(throws: (any Error).self) {
                    _ = try await fetcher.client.execute(HTTPClientRequest(url: url), deadline: Self.soon)
                }
                // Through the fetcher: the second request of a connection fails and is retried.
                for _ in 0..<3 {
                    let response = try await fetcher.get(url, deadline: Self.soon)
                    #expect(response.status == .ok)
                    #expect(String(buffer: try await response.body.collect(upTo: 100)) == "ok")
                }
            }
        }
    }

    /// The deadline of the budget tests: far enough that only the budget ends them, even on a loaded
    /// machine (one took 27 s for the 21 requests of the byte budget with both cores busy).
    static let budgetDecides = MediaTime(seconds: 300)

    @Test("a wrapper tree that fans out makes at most the decision's request budget of requests")
    func fanOut() async throws {
        try await ScriptedServer.with { path in
            guard !path.hasPrefix("/err") else { return .init() }
            let ads = (0..<8).map { index in
                """
                <Ad id="w\(index)" sequence="\(index + 1)"><Wrapper allowMultipleAds="true"><AdSystem>t</AdSystem>
                <VASTAdTagURI>\(path)/\(index)</VASTAdTagURI><Error>/err</Error></Wrapper></Ad>
                """
            }
            return .init(body: "<VAST version=\"4.2\">" + ads.joined() + "</VAST>")
        } _: { server in
            // On a clock that stands still: the decision's deadline cannot pass before its budget
            // is spent, however slow the machine (a loaded run once saw 9 requests of 20 at a real deadline).
            let clock = ManualServerClock.starting()
            try await Self.withFetcher(Self.policy(["127.0.0.1:\(server.port)"]), clock: clock) { fetcher in
                let dispatcher = TrackingDispatcher(fetcher: fetcher, logger: Harness.logger)
                let client = VASTDecisionClient(
                    fetcher: fetcher, dispatcher: dispatcher, logger: Harness.logger, maximumRequests: 20)
                let url = "http://127.0.0.1:\(server.port)/w"
                let outcome = await client.decide(
                    url: url, settings: AdServerSettings(vast: url), headers: [], deadline: Self.budgetDecides,
                    cacheBuster: "1")
                #expect(outcome.requests == 20)
                // The decision may end with requests still on their way: the server has seen at most
                // the budget, never more (it records a request only once its head arrives).
                #expect(server.requests.count <= 20)
                #expect(outcome.errors.contains { $0.reason == .requestBudget })
                #expect(!outcome.timedOut)
            }
        }
    }

    @Test("a decision's documents share one byte budget")
    func byteBudget() async throws {
        let padding = String(repeating: " ", count: 3000)
        try await ScriptedServer.with { path in
            let ads = (0..<4).map { index in
                """
                <Ad id="w\(index)" sequence="\(index + 1)"><Wrapper allowMultipleAds="true"><AdSystem>t</AdSystem>
                <VASTAdTagURI>\(path)/\(index)</VASTAdTagURI></Wrapper></Ad>
                """
            }
            return .init(body: "<VAST version=\"4.2\">" + ads.joined() + padding + "</VAST>")
        } _: { server in
            // On a clock that stands still: the deadline cannot pass before the byte budget is spent.
            let clock = ManualServerClock.starting()
            try await Self.withFetcher(Self.policy(["127.0.0.1:\(server.port)"]), clock: clock) { fetcher in
                let dispatcher = TrackingDispatcher(fetcher: fetcher, logger: Harness.logger)
                let client = VASTDecisionClient(
                    fetcher: fetcher, dispatcher: dispatcher, logger: Harness.logger, maximumRequests: 1000,
                    maximumBytes: 16 * 1024)
                let url = "http://127.0.0.1:\(server.port)/w"
                let outcome = await client.decide(
                    url: url, settings: AdServerSettings(vast: url), headers: [], deadline: Self.budgetDecides,
                    cacheBuster: "1")
                // About 3.5 KB each: at most 4 documents fit in 16 KiB; those beyond fail as 302.
                #expect(outcome.requests <= 1 + 4 + 4 * 4)
                #expect(outcome.errors.contains { $0.code == .wrapperLimit })
            }
        }
    }

    // MARK: - Blocking work off the cooperative pool

    @Test("a caller cancelled while its work runs stops waiting at once; queued work it abandoned never runs")
    func poolAbandons() async throws {
        let pool = BlockingWorkPool(label: "test", threads: 1, capacity: 8)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let ranSecond = NIOLockedValueBox(false)
        let first = Task {
            await pool.run {
                started.signal(); gate.wait(); return 1
            }
        }
        // Wait on a dispatch thread, not on the cooperative pool, for the first item to start.
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                continuation.resume()
            }
        }
        let second = Task {
            await pool.run {
                ranSecond.withLockedValue { $0 = true }; return 2
            }
        }
        first.cancel()
        second.cancel()
        #expect(await first.value == nil)
        #expect(await second.value == nil)
        gate.signal()
        #expect(await pool.run { 3 } == 3)
        #expect(!ranSecond.withLockedValue { $0 })
        // A full pool refuses at once.
        let full = BlockingWorkPool(label: "full", threads: 1, capacity: 1)
        let holding = Task {
            await full.run {
                started.signal(); gate.wait(); return 0
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                continuation.resume()
            }
        }
        #expect(await full.run { 1 } == nil)
        gate.signal()
        #expect(await holding.value == 0)
    }
}

/// A scripted HTTP/1.1 server on 127.0.0.1 for ad-server fetches: answers by path, records what it
/// received, and can close a connection instead of answering its later requests (a stale pooled
/// connection, as when an ad server restarts or drops idle connections).
final class ScriptedServer: Sendable {
    struct Answer: Sendable {
        var status: HTTPResponseStatus = .ok
        var headers: [(String, String)] = []
        var body = ""
    }

    typealias Script = @Sendable (String) -> Answer

    let port: Int
    private let log: NIOLockedValueBox<[(uri: String, host: String)]>

    private init(port: Int, log: NIOLockedValueBox<[(uri: String, host: String)]>) {
        self.port = port
        self.log = log
    }

    /// The URIs received, in order.
    var requests: [String] { log.withLockedValue { $0.map(\.uri) } }
    /// The Host fields received, in order.
    var hosts: [String] { log.withLockedValue { $0.map(\.host) } }

    /// Runs `body` with a server that answers `answersPerConnection` requests per connection (nil:
    /// any number) and closes the connection on the next one without answering.
    static func with(
        answersPerConnection: Int? = nil, _ script: @escaping Script, _ body: (ScriptedServer) async throws -> Void
    ) async throws {
        let log = NIOLockedValueBox<[(uri: String, host: String)]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(script: script, log: log, limit: answersPerConnection))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = ScriptedServer(port: channel.localAddress?.port ?? 0, log: log)
        do {
            try await body(server)
        } catch {
            try? await channel.close()
            throw error
        }
        try await channel.close()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let script: Script
        let log: NIOLockedValueBox<[(uri: String, host: String)]>
        let limit: Int?
        var answered = 0
        var uri = "/"

        init(script: @escaping Script, log: NIOLockedValueBox<[(uri: String, host: String)]>, limit: Int?) {
            self.script = script
            self.log = log
            self.limit = limit
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                uri = head.uri
                if let limit, answered >= limit {
                    context.close(promise: nil)
                    return
                }
                log.withLockedValue { $0.append((head.uri, head.headers.first(name: "host") ?? "")) }
            case .body: break
            case .end:
                guard limit.map({ answered < $0 }) ?? true else { return }
                answered += 1
                let answer = script(String(uri.split(separator: "?").first ?? ""))
                var headers = HTTPHeaders(answer.headers)
                headers.add(name: "Content-Length", value: String(answer.body.utf8.count))
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))),
                    promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
