import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import InterstitialServer

/// A wall clock that tests set.
final class TestClock: Sendable {
    private let box: NIOLockedValueBox<DateTime>
    init(_ date: DateTime) { box = NIOLockedValueBox(date) }
    var now: DateTime { box.withLockedValue { $0 } }
    func set(_ date: DateTime) { box.withLockedValue { $0 = date } }
    func advance(_ seconds: Double) { box.withLockedValue { $0 = $0 + MediaTime(seconds: seconds) } }
}

extension ManualServerClock {
    /// A manual clock whose wall clock starts at `wall` (by default 2026-11-28T00:00:00Z).
    static func starting(at wall: DateTime = DateTime(iso8601: "2026-11-28T00:00:00Z")!) -> ManualServerClock {
        ManualServerClock(wall: wall)
    }

    /// Moves both clocks on by `seconds`.
    func advance(_ seconds: Double) { advance(by: MediaTime(seconds: seconds)) }

    /// Moves both clocks on by `seconds`, then runs on `channel`'s event loop what the alarms due
    /// handed to it (a request guard's timeouts).
    func advance(_ seconds: Double, on channel: EmbeddedChannel) {
        advance(seconds)
        channel.embeddedEventLoop.run()
    }
}

/// A server clock whose wall clock is a ``TestClock`` the test sets, and whose monotonic clock
/// (deadlines, expiry, how long a session was seen) moves only when ``monotonic`` is advanced: a
/// library on it does not age with the real time a loaded machine takes.
struct WallTestServerClock: ServerClock {
    let wallClock: TestClock
    let monotonic: ManualServerClock

    var now: MediaTime { monotonic.now }
    var wall: DateTime { wallClock.now }

    func sleep(for duration: MediaTime) async throws {
        try await monotonic.sleep(for: duration)
    }

    func wake(
        at time: MediaTime, on eventLoop: any EventLoop, _ body: @escaping @Sendable () -> Void
    ) -> ServerClockAlarm {
        monotonic.wake(at: time, on: eventLoop, body)
    }
}

enum Harness {
    static let token = "test-token"
    static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    /// The demo on a free port, with the admin token, and with the limits that run on real time in
    /// a server on the system's clock (a connection's idle and header timeouts, an upstream's, the
    /// waits for the store) long: on a loaded machine a test's request or upstream may be slow,
    /// which is no outcome of the test. A test of one of those limits sets it (on a manual clock
    /// where it can).
    static func demo() throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.demo()
        configuration.adminToken = token
        configuration.port = 0
        let long = MediaTime(seconds: 600)
        for keyPath in [
            \ServerLimits.headerTimeout, \.bodyTimeout, \.idleTimeout, \.upstreamTimeout, \.upstreamTransferTimeout,
            \.servedRecordTimeout, \.viewerStoreTimeout,
        ] {
            configuration.limits[keyPath: keyPath] = long
        }
        return configuration
    }

    /// Runs `body` against a live server: on the wall clock `clock` when given, or on the
    /// `serverClock` (monotonic and wall) when given, which then moves only when the test says.
    static func withServer(
        _ configuration: ServerConfiguration? = nil, store: (any ServerStore)? = nil,
        inventory: (any AdInventory)? = nil, clock: TestClock? = nil, serverClock: ManualServerClock? = nil,
        logger: Logger = Harness.logger, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let configuration = try configuration ?? demo()
        let wall = clock.map { clock in SystemServerClock(date: { clock.now }) }
        let ports = LiveServer.ports()
        let server = try InterstitialServer(
            configuration: configuration, store: store, inventory: inventory, logger: logger,
            clock: serverClock ?? wall ?? SystemServerClock(), onServerRunning: { ports.continuation.yield($0) })
        // The HTTP clients `run()` makes: ad servers are asked as in production.
        let client = server.makeHTTPClient()
        let adClient = server.makeAdServerClient()
        let freshAdClient = server.makeAdServerClient(fresh: true)
        let fetcher = AdServerFetcher(
            client: adClient, freshClient: freshAdClient, policy: configuration.adServerFetch, clock: server.clock)
        func shutdown() async throws {
            for each in [client, adClient, freshAdClient] { try await each.shutdown() }
        }
        do {
            try await LiveServer.run(server.application(client: client, adFetcher: fetcher), ports: ports) { client in
                try await body(client)
            }
        } catch {
            try? await shutdown()
            throw error
        }
        try await shutdown()
    }
}

extension TestClientProtocol {
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: headers)
    }

    func text(_ uri: String) async throws -> String {
        let response = try await get(uri)
        #expect(response.status == .ok, "GET \(uri): \(String(buffer: response.body))")
        return String(buffer: response.body)
    }

    func admin(
        _ method: HTTPRequest.Method, _ path: String, _ json: String? = nil, token: String? = Harness.token
    )
        async throws -> TestResponse
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(
            uri: "/admin/v1/" + path, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    var json: JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(buffer: body)) }
    var text: String { String(buffer: body) }
    var errorCode: String? {
        guard case .object(let root)? = json, case .object(let error)? = root["error"],
            case .string(let code)? = error["code"]
        else { return nil }
        return code
    }
    var errorPath: String? {
        guard case .object(let root)? = json, case .object(let error)? = root["error"],
            case .string(let path)? = error["path"]
        else { return nil }
        return path
    }
}

/// `body`'s result, while `clock` moves on by `step` every millisecond of real time: the server's
/// deadlines on it pass, and an outcome decided by a deadline is the same however fast the machine
/// runs (use it only where it is; a frozen clock where an answer must beat a deadline). A
/// connection's timeouts are on the clock too: give the server ``ServerConfiguration/ticked``'s.
func ticking<Value: Sendable>(
    _ clock: ManualServerClock, by step: MediaTime = MediaTime(seconds: 0.1),
    _ body: () async throws -> Value
) async throws -> Value {
    let ticker = Task {
        while !Task.isCancelled {
            clock.advance(by: step)
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
    }
    defer { ticker.cancel() }
    return try await body()
}

extension ServerConfiguration {
    /// This configuration with connection timeouts (header, body, idle) of a day: on a clock that
    /// ``ticking(_:by:_:)`` moves 100 s every real second, the test client's connection must not be
    /// closed as idle, nor its head time out, when the machine is slow to send or read it.
    var ticked: ServerConfiguration {
        var configuration = self
        for keyPath in [\ServerLimits.headerTimeout, \.bodyTimeout, \.idleTimeout] {
            configuration.limits[keyPath: keyPath] = MediaTime(seconds: 86_400)
        }
        return configuration
    }
}

/// Moves `clock` on by `step` every `every` of real time (`step` by default) until it reaches `end`, then leaves it
/// there: a prefetcher ticks into a break's retrieval window and stops inside it, so that its
/// decisions, however late a loaded machine makes them, are made in the window, and none of their
/// deadlines (further on than `end`) can pass. Cancel the task when done.
func tick(
    _ clock: ManualServerClock, to end: MediaTime, step: MediaTime = MediaTime(seconds: 0.25), every: MediaTime? = nil
) -> Task<Void, Never> {
    Task {
        while !Task.isCancelled, clock.now < end {
            try? await Task.sleep(nanoseconds: UInt64((every ?? step).nanoseconds))
            let left = end - clock.now
            if left > .zero { clock.advance(by: min(step, left)) }
        }
    }
}

/// The error `operation` fails with when a deadline of `deadline` on `clock` is what ends it (a
/// store whose database is down): the clock moves past the deadline once the operation waits for
/// it, however long a loaded machine takes to get there; or the operation's own error when it
/// fails first. Nil, with an issue recorded, when it succeeds.
func failureAtDeadline(
    on clock: ManualServerClock, after deadline: Duration, _ operation: @escaping @Sendable () async throws -> Void
) async throws -> (any Error)? {
    let done = NIOLockedValueBox(false)
    let task = Task { () -> (any Error)? in
        defer { done.withLockedValue { $0 = true } }
        do {
            try await operation()
            return nil
        } catch {
            return error
        }
    }
    #expect(try await eventually { done.withLockedValue { $0 } || clock.waiting(for: MediaTime(deadline)) >= 1 })
    if !done.withLockedValue({ $0 }) { clock.advance(by: MediaTime(deadline)) }
    guard let error = await task.value else {
        Issue.record("the operation succeeded")
        return nil
    }
    return error
}

/// The EXT-X-DATERANGE lines of a playlist.
func dateRangeLines(_ text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("#EXT-X-DATERANGE:") }
}

func demoMedia(_ name: String) throws -> MediaPlaylist {
    let configuration = try ServerConfiguration.demo()
    guard case .directory(let directory) = configuration.vod[0].origin,
        let data = FileManager.default.contents(atPath: directory + "/" + name),
        case .media(let playlist) = PlaylistParser.parse(Array(data)).playlist
    else { throw APIError.notFound(name) }
    return playlist
}

/// SplitMix64: the same sequence of random numbers for the same seed, for seeded random tests.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The demo's content library on an in-memory store, its served values recorded, on a test clock
/// at ``RenderedPlaylistCacheTests/start`` (its monotonic clock standing still): runs `body`, then stops recording and the HTTP client,
/// whether `body` threw or not.
func withDemoLibrary(
    _ body: (_ library: ContentLibrary, _ state: ServerState, _ clock: TestClock) async throws -> Void
) async throws {
    let configuration = try Harness.demo()
    let state = try ServerState(store: SQLiteStore(path: nil))
    try await state.seed(configuration.seed)
    let recorder = Task { await state.recordServed(logger: Harness.logger) }
    let clock = TestClock(RenderedPlaylistCacheTests.start)
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let library = ContentLibrary(
        configuration: configuration, state: state, inventory: StoredInventory(state: state), client: client,
        logger: Harness.logger, now: { clock.now },
        clock: WallTestServerClock(wallClock: clock, monotonic: .starting()))
    var failure: (any Error)?
    do { try await body(library, state, clock) } catch { failure = error }
    state.finishRecording()
    await recorder.value
    try await client.shutdown()
    if let failure { throw failure }
}

/// The fast lane of a server on `library` (its routes', as the request guard gets it).
func fastLane(_ library: ContentLibrary) -> (FastLane, Routes) {
    let routes = Routes(
        library: library, admin: AdminAPI(library: library),
        mailbox: HandoffMailbox(capacity: 1, expiry: .seconds(1), clock: library.clock))
    return (routes.fastLane(serverName: "test"), routes)
}
