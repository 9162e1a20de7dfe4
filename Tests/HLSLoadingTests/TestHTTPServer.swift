import HLSLoading
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 with canned routes, for loader tests.
final class TestHTTPServer: Sendable {
    struct Response: Sendable {
        var status: HTTPResponseStatus = .ok
        var headers: [(String, String)] = [("Content-Type", "application/vnd.apple.mpegurl")]
        var body: [UInt8] = []
        var delay: TimeAmount? = nil
        /// Send the head and this many bytes of the body, then nothing more.
        var stallAfter: Int? = nil
        /// Send the head and this many bytes of the body, then close the connection.
        var closeAfter: Int? = nil
    }

    typealias Routes = @Sendable (_ path: String) -> Response

    private let channel: any Channel
    private let answeredPaths: NIOLockedValueBox<[String]>
    let port: Int

    private init(channel: any Channel, answered: NIOLockedValueBox<[String]>) {
        self.channel = channel
        self.answeredPaths = answered
        self.port = channel.localAddress?.port ?? 0
    }

    /// The paths of the requests the server has read, in order, each added once its response was
    /// sent as far as the route sends it (for a delayed route: once the delay started). A test
    /// waits for a request to have arrived before it moves a clock.
    var answered: [String] { answeredPaths.withLockedValue { $0 } }

    static func start(routes: @escaping Routes) async throws -> TestHTTPServer {
        let answered = NIOLockedValueBox<[String]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(Handler(routes: routes, answered: answered))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestHTTPServer(channel: channel, answered: answered)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Runs `body` with a server on `routes` and a loader, and shuts both down, also on failure.
    /// With a `timer`, the loader's whole-response deadline is on it (see ``ManualTimer``).
    static func withServerAndLoader(
        routes: @escaping Routes, timeout: Duration, maximumBodySize: Int = 64 << 20, timer: ManualTimer? = nil,
        started: (TestHTTPServer) -> Void = { _ in },
        _ body: (TestHTTPServer, PlaylistLoader) async throws -> Void
    ) async throws {
        let server = try await start(routes: routes)
        started(server)
        let configuration = PlaylistLoader.Configuration(timeout: timeout, maximumBodySize: maximumBodySize)
        let loader =
            timer.map { PlaylistLoader(configuration: configuration, logger: nil, sleep: $0.sleep) }
            ?? PlaylistLoader(configuration: configuration)
        do {
            try await body(server, loader)
        } catch {
            try? await loader.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await loader.shutdown()
        try await server.shutdown()
    }

    func shutdown() async throws { try await channel.close() }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let routes: Routes
        let answered: NIOLockedValueBox<[String]>
        var path = "/"

        init(routes: @escaping Routes, answered: NIOLockedValueBox<[String]>) {
            self.routes = routes
            self.answered = answered
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): path = head.uri
            case .body: break
            case .end:
                let response = routes(path)
                let send = { [self] in
                    var headers = HTTPHeaders(response.headers)
                    headers.add(name: "Content-Length", value: String(response.body.count))
                    context.write(
                        wrapOutboundOut(
                            .head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))),
                        promise: nil)
                    if let closeAfter = response.closeAfter {
                        let part = ByteBuffer(bytes: response.body.prefix(closeAfter))
                        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(part))), promise: nil)
                        context.close(promise: nil)
                        return
                    }
                    if let stallAfter = response.stallAfter {
                        let part = ByteBuffer(bytes: response.body.prefix(stallAfter))
                        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(part))), promise: nil)
                        return
                    }
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                }
                if let delay = response.delay {
                    context.eventLoop.assumeIsolated().scheduleTask(in: delay) { send() }
                } else {
                    send()
                }
                let read = path
                answered.withLockedValue { $0.append(read) }
            }
        }
    }
}
