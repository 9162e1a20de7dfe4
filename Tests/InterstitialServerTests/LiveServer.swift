import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

@testable import HummingbirdTesting

/// A live server under test, and a client on its port: HummingbirdTesting's `.live`, without its
/// 20-second read timeout.
///
/// A request to a server in a test is answered when the machine gets round to it: on a loaded
/// machine (the whole suite on two busy cores) that is no outcome of the test. The client waits
/// as long as the server takes; its limit only keeps a hung server from hanging the suite.
enum LiveServer {
    /// How long a request may take before the client gives up: a hung server, not a slow one.
    static let hangLimit = Duration.seconds(600)

    /// Where a server reports its port once it listens (its `onServerRunning`), for ``run(_:ports:_:)``.
    typealias Ports = (stream: AsyncStream<Int>, continuation: AsyncStream<Int>.Continuation)

    /// A place for a server's port.
    static func ports() -> Ports {
        AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Runs `application` (which yields its port to `ports` once it listens) and `body` with a client
    /// on that port, then shuts both down; a server that fails to start throws its error.
    static func run<App: ApplicationProtocol, Value: Sendable>(
        _ application: App, ports: Ports, logger: Logger = Logger(label: "test"),
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Void.self) { group in
            let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
            group.addTask {
                // The port stream ends with the server: a server that never listened throws here.
                defer { ports.continuation.finish() }
                try await services.run()
            }
            var iterator = ports.stream.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw CancellationError()
            }
            let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: hangLimit))
            client.connect()
            let result: Result<Value, any Error>
            do {
                result = .success(try await body(Client(client: client, port: port)))
            } catch {
                result = .failure(error)
            }
            try? await client.shutdown()
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return try result.get()
        }
    }

    /// The client: HummingbirdTesting's own, with keep-alive, as `.live` makes it.
    struct Client: TestClientProtocol {
        let client: TestClient
        let port: Int?

        func executeRequest(
            uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?
        ) async throws -> TestResponse {
            var headers = headers
            headers[.connection] = "keep-alive"
            let request = TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body)
            let response = try await client.execute(request)
            return TestResponse(
                head: response.head, body: response.body ?? ByteBuffer(), trailerHeaders: response.trailerHeaders)
        }
    }
}
