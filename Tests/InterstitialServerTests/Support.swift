import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
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
}

enum Harness {
    static let token = "test-token"
    /// The sleepers a running server keeps on its clock when idle: the prefetcher's tick and the
    /// sweep of expired break notices (a test waits for them, then for its own, before it advances).
    static let idleSleepers = 2
    static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    static func demo() throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.demo()
        configuration.adminToken = token
        configuration.port = 0
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
        var now: (@Sendable () -> DateTime)?
        if let clock { now = { clock.now } }
        var server = try InterstitialServer(
            configuration: configuration, store: store, inventory: inventory, logger: logger, now: now)
        if let serverClock { server.clock = serverClock }
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
            try await server.application(client: client, adFetcher: fetcher).test(.live) { client in
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
/// runs (use it only where it is; a frozen clock where an answer must beat a deadline).
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
/// at ``RenderedPlaylistCacheTests/start``: runs `body`, then stops recording and the HTTP client,
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
        logger: Harness.logger, now: { clock.now })
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
