import AsyncHTTPClient
import Foundation
import HLSLoading
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

/// A raw TCP client, for requests no HTTP client would send.
struct RawConnection {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    static func open(port: Int) async throws -> RawConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return RawConnection(channel: channel)
    }

    /// Sends `text`, then reads until the server closes the connection (at most `limit`), and
    /// returns what it answered and whether it closed.
    func exchange(_ text: String, limit: Duration = LiveServer.hangLimit) async throws -> (text: String, closed: Bool) {
        try await exchange(Array(text.utf8), limit: limit)
    }

    func exchange(_ bytes: [UInt8], limit: Duration = LiveServer.hangLimit) async throws -> (text: String, closed: Bool)
    {
        let answer = NIOLockedValueBox<[UInt8]>([])
        let closed: Bool
        do {
            closed = try await withTimeLimit(limit) { [channel] in
                try await channel.executeThenClose { inbound, outbound in
                    if !bytes.isEmpty { try await outbound.write(ByteBuffer(bytes: bytes)) }
                    for try await buffer in inbound { answer.withLockedValue { $0 += Array(buffer: buffer) } }
                }
                return true
            }
        } catch is TimeLimitExceeded {
            closed = false
        } catch {
            // The server closed the connection while we wrote or closed (a reset, or I/O on a closed channel).
            closed = true
        }
        return (String(decoding: answer.withLockedValue { $0 }, as: UTF8.self), closed)
    }
}

/// A tiny upstream origin on 127.0.0.1 whose routes can answer a head and then stall.
final class TestOrigin: Sendable {
    struct Answer: Sendable {
        var status: HTTPResponseStatus = .ok
        var contentType = "application/vnd.apple.mpegurl"
        var body: [UInt8] = []
        /// Send the head and this many bytes of the body, then nothing more.
        var stallAfter: Int? = nil
    }

    typealias Routes = @Sendable (_ path: String) -> Answer

    private let channel: any Channel
    let port: Int
    /// Requests received, by path.
    let received: NIOLockedValueBox<[String: Int]>
    /// Every request's URI (path and query), in order of arrival.
    let uris: NIOLockedValueBox<[String]>
    /// Every request's URI and header fields, in order of arrival.
    let heads: NIOLockedValueBox<[(uri: String, headers: HTTPHeaders)]>
    /// The connections accepted.
    private let connections: NIOLockedValueBox<[any Channel]>

    private init(
        channel: any Channel, received: NIOLockedValueBox<[String: Int]>, uris: NIOLockedValueBox<[String]>,
        heads: NIOLockedValueBox<[(uri: String, headers: HTTPHeaders)]>, connections: NIOLockedValueBox<[any Channel]>
    ) {
        self.channel = channel
        self.received = received
        self.uris = uris
        self.heads = heads
        self.connections = connections
        port = channel.localAddress?.port ?? 0
    }

    /// Closes every connection accepted so far (stalled answers end there, cut short).
    func dropConnections() {
        for connection in connections.withLockedValue({ $0 }) { connection.close(promise: nil) }
    }

    /// The header fields of the requests whose path is `path`.
    func headers(_ path: String) -> [HTTPHeaders] {
        heads.withLockedValue { $0.filter { $0.uri == path || $0.uri.hasPrefix(path + "?") }.map(\.headers) }
    }

    /// The URIs received whose path is `path`.
    func requests(_ path: String) -> [String] {
        uris.withLockedValue { $0.filter { $0 == path || $0.hasPrefix(path + "?") } }
    }

    var origin: String { "http://127.0.0.1:\(port)" }

    func count(_ path: String) -> Int { received.withLockedValue { $0[path, default: 0] } }

    static func withOrigin(routes: @escaping Routes, _ body: (TestOrigin) async throws -> Void) async throws {
        let counter = NIOLockedValueBox<[String: Int]>([:])
        let uris = NIOLockedValueBox<[String]>([])
        let heads = NIOLockedValueBox<[(uri: String, headers: HTTPHeaders)]>([])
        let connections = NIOLockedValueBox<[any Channel]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                connections.withLockedValue { $0.append(channel) }
                return channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(routes: routes, received: counter, uris: uris, heads: heads))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let origin = TestOrigin(
            channel: channel, received: counter, uris: uris, heads: heads, connections: connections)
        do {
            try await body(origin)
        } catch {
            try? await channel.close()
            throw error
        }
        try await channel.close()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let routes: Routes
        let received: NIOLockedValueBox<[String: Int]>
        let uris: NIOLockedValueBox<[String]>
        let heads: NIOLockedValueBox<[(uri: String, headers: HTTPHeaders)]>
        var path = "/"

        init(
            routes: @escaping Routes, received: NIOLockedValueBox<[String: Int]>, uris: NIOLockedValueBox<[String]>,
            heads: NIOLockedValueBox<[(uri: String, headers: HTTPHeaders)]>
        ) {
            self.routes = routes
            self.received = received
            self.uris = uris
            self.heads = heads
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                path = String(head.uri.split(separator: "?").first ?? "")
                uris.withLockedValue { $0.append(head.uri) }
                heads.withLockedValue { $0.append((head.uri, head.headers)) }
            case .body: break
            case .end:
                received.withLockedValue { $0[path, default: 0] += 1 }
                let answer = routes(path)
                var headers = HTTPHeaders([("Content-Type", answer.contentType)])
                headers.add(name: "Content-Length", value: String(answer.body.count))
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))),
                    promise: nil)
                let sent = answer.stallAfter.map { min($0, answer.body.count) } ?? answer.body.count
                context.write(
                    wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body.prefix(sent))))), promise: nil)
                if answer.stallAfter == nil {
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                } else {
                    context.flush()
                }
            }
        }
    }
}

/// GET on a connection of its own (the test client sends its requests one after another on one).
func get(port: Int, _ path: String) async throws -> (status: Int, body: String) {
    let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(600))
    let body = try await response.body.collect(upTo: 16 << 20)
    return (Int(response.status.code), String(buffer: body))
}

/// Waits until `condition` holds, checking after each yield (at most `limit`: generous, as the whole
/// suite runs at once on two cores; a condition that holds returns at once).
func eventually(_ limit: Duration = .seconds(300), _ condition: @Sendable () async throws -> Bool) async throws -> Bool
{
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

/// A loopback TCP port that refuses every connection at once and that no other test can take while
/// `body` runs: a socket bound to it and not listening. (A port bound and closed again is free for
/// the next server any test starts, which then answers in its place.)
func withRefusingPort(_ body: (Int) async throws -> Void) async throws {
    struct SocketFailure: Error, CustomStringConvertible {
        var call: String
        var description: String { "\(call) failed: errno \(errno)" }
    }
    #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw SocketFailure(call: "socket") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound else { throw SocketFailure(call: "bind") }
    try await body(Int(UInt16(bigEndian: address.sin_port)))
}
