import Foundation
import HLSInterstitials
import HLSPlaylist
import NIOCore
import NIOEmbedded
import Testing

@testable import InterstitialServer

/// No connection is left unanswered and open (a request the decoder would refuse,
/// a body that never comes), connections are capped in all and per peer, and a file the server
/// cannot open is not a 404.
@Suite("The request guard on a channel")
struct RequestGuardTests {
    /// A guard on an embedded channel connected from `peer`, on `clock`.
    static func channel(
        connections: ConnectionLimiter? = nil, peer: String = "127.0.0.1",
        clock: ManualServerClock = .starting()
    ) throws -> (EmbeddedChannel, RequestGuard) {
        let limits = RequestGuard.Limits(ServerLimits())
        let requestGuard = RequestGuard(
            limits: limits, logger: Harness.logger, clock: clock, connections: connections)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(requestGuard)
        // An embedded channel's remote address is where it connected.
        try channel.connect(to: SocketAddress(ipAddress: peer, port: 40000)).wait()
        return (channel, requestGuard)
    }

    static func passed(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    static func answered(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        return text
    }

    @Test(
        "What the decoder would refuse is answered 400 with Connection: close and CORS, and nothing of it passes on",
        arguments: RequestHeadReaderTests.shapes.filter { $0.refusal?.status == 400 })
    func refusedShapes(_ shape: RequestHeadReaderTests.Shape) throws {
        let (channel, _) = try Self.channel()
        defer { _ = try? channel.finish() }
        let good = "GET /first HTTP/1.1\r\nHost: x\r\n\r\n"
        try channel.writeInbound(ByteBuffer(bytes: Array(good.utf8) + shape.bytes))
        let passed = try Self.passed(channel)
        #expect(passed.hasPrefix(good))
        // Whatever passed after the good request is the refused request's own well-formed part (a head and body bytes).
        #expect(RequestHeadReaderTests.read(Array(passed.utf8)) { passed.utf8.count }.refusal == nil)
        // The handlers behind close the connection once their requests are answered: the refusal goes out then.
        channel.close(promise: nil)
        let answer = try Self.answered(channel)
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
        #expect(answer.contains("\r\nConnection: close\r\n"))
        #expect(answer.contains("\r\nAccess-Control-Allow-Origin: *\r\n"))
        #expect(answer.contains("\"code\":\"\(shape.refusal?.code.rawValue ?? "")\""))
    }

    @Test("A refused connection is closed in time even when nothing behind closes it")
    func refusedClosesInTime() throws {
        let clock = ManualServerClock.starting()
        let (channel, _) = try Self.channel(clock: clock)
        defer { _ = try? channel.finish() }
        try channel.writeInbound(ByteBuffer(string: "get / HTTP/1.1\r\n\r\n"))
        #expect(channel.isActive)
        clock.advance(9.9, on: channel)
        #expect(channel.isActive)
        clock.advance(0.1, on: channel)
        #expect(!channel.isActive)
        #expect(try Self.answered(channel).hasPrefix("HTTP/1.1 400 "))
    }

    @Test("A body that does not arrive within the body timeout of its head gets 408, even with some progress")
    func bodyTimeout() throws {
        let clock = ManualServerClock.starting()
        let (channel, requestGuard) = try Self.channel(clock: clock)
        defer { _ = try? channel.finish() }
        requestGuard.trackerAdded()
        try channel.writeInbound(ByteBuffer(string: "POST /h HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"))
        #expect(try Self.passed(channel).hasSuffix("ab"))
        for _ in 0..<29 {
            clock.advance(1, on: channel)
            try channel.writeInbound(ByteBuffer(string: "c"))
        }
        #expect(try Self.answered(channel).isEmpty)
        #expect(channel.isActive)
        clock.advance(1, on: channel)
        channel.close(promise: nil)
        let answer = try Self.answered(channel)
        #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(answer)")
        #expect(answer.contains("\"code\":\"body-timeout\""))
    }

    @Test("A body that arrives in time ends the body timeout; the connection is then idle, not timed out")
    func bodyInTime() throws {
        let clock = ManualServerClock.starting()
        let (channel, requestGuard) = try Self.channel(clock: clock)
        defer { _ = try? channel.finish() }
        requestGuard.trackerAdded()
        try channel.writeInbound(ByteBuffer(string: "POST /h HTTP/1.1\r\nContent-Length: 2\r\n\r\na"))
        clock.advance(20, on: channel)
        try channel.writeInbound(ByteBuffer(string: "b"))
        requestGuard.answerEnded()
        clock.advance(40, on: channel)
        #expect(channel.isActive)
        #expect(try Self.answered(channel).isEmpty)
    }

    @Test("Connections over the cap per peer or in all get 503 and are closed at once; a closed one frees its place")
    func connectionCaps() throws {
        let connections = ConnectionLimiter(total: 3, perPeer: 2)
        let (first, _) = try Self.channel(connections: connections)
        let (second, _) = try Self.channel(connections: connections)
        let (third, _) = try Self.channel(connections: connections)
        #expect(first.isActive && second.isActive)
        #expect(!third.isActive, "a third from the same address")
        let answer = try Self.answered(third)
        #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(answer)")
        #expect(answer.contains("\r\nRetry-After: 1\r\n") && answer.contains("too-many-connections"))
        let (other, _) = try Self.channel(connections: connections, peer: "127.0.0.2")
        let otherAnswer = try Self.answered(other)
        #expect(other.isActive, "another address: \(otherAnswer)")
        // Busy connections (a head being read) hold their places: over the total, refused.
        for channel in [first, second, other] { try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n")) }
        let (fourth, _) = try Self.channel(connections: connections, peer: "127.0.0.3")
        #expect(!fourth.isActive, "over the total")
        #expect(connections.open(from: "127.0.0.1") == (3, 2))
        _ = try first.finish()
        #expect(connections.open(from: "127.0.0.1") == (2, 1))
        let (again, _) = try Self.channel(connections: connections)
        #expect(again.isActive)
        for channel in [second, third, other, fourth, again] { _ = try? channel.finish() }
        #expect(connections.open().total == 0)
    }

    @Test("At the total cap, the connection idle the longest is closed for a new one")
    func idleEvicted() throws {
        let connections = ConnectionLimiter(total: 2, perPeer: 10)
        let (idle, _) = try Self.channel(connections: connections, peer: "127.0.0.1")
        let (busy, _) = try Self.channel(connections: connections, peer: "127.0.0.2")
        try busy.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        let (newcomer, _) = try Self.channel(connections: connections, peer: "127.0.0.3")
        let refusal = try Self.answered(newcomer)
        #expect(newcomer.isActive, "admitted: \(refusal)")
        busy.embeddedEventLoop.run()
        idle.embeddedEventLoop.run()
        #expect(!idle.isActive, "the idle one was closed")
        #expect(busy.isActive, "the busy one stays")
        #expect(connections.open() == (2, 0))
        for channel in [idle, busy, newcomer] { _ = try? channel.finish() }
        #expect(connections.open().total == 0)
    }

    @Test("IPv6 clients are counted by /64 against the per-peer cap")
    func ipv6Groups() throws {
        let connections = ConnectionLimiter(total: 10, perPeer: 1)
        let (one, _) = try Self.channel(connections: connections, peer: "2001:db8::1")
        let (two, _) = try Self.channel(connections: connections, peer: "2001:db8::2")
        #expect(one.isActive)
        #expect(!two.isActive, "another address of the same /64")
        #expect(try Self.answered(two).contains("too-many-connections"))
        for channel in [one, two] { _ = try? channel.finish() }
    }

    @Test("The total cap stays under half the descriptor limit")
    func descriptorCap() {
        #expect(ConnectionLimiter.cap(configured: 4096, descriptorLimit: 512) == 224)
        #expect(ConnectionLimiter.cap(configured: 4096, descriptorLimit: 1_048_576) == 4096)
        #expect(ConnectionLimiter.cap(configured: 4096, descriptorLimit: 10) == 1)
    }

    @Test(
        "A file that exists but cannot be opened: 503 when out of descriptors, 403 when denied, 404 when gone",
        arguments: [(EMFILE, 503), (ENFILE, 503), (ENOMEM, 503), (EACCES, 403), (ENOENT, 404), (EIO, 500)])
    func openErrors(_ code: CInt, _ status: Int) throws {
        let error = FileResponder.openError(FileBodyCache.OpenFailure(code: code), name: "/x.m4s")
        #expect(error.statusCode == status)
        #expect(FileBodyCache.OpenFailure(code: code).isExhaustion == (status == 503))
    }

    @Test("Opening a missing file throws its errno, not a trap")
    func openFailure() {
        #expect(throws: FileBodyCache.OpenFailure(code: ENOENT)) {
            try FileBodyCache.checkOpen("/nonexistent-\(UInt64.random(in: 0...UInt64.max))")
        }
    }

    @Test("Playlist files are read through the same open: missing or a folder is a 404, a file its bytes")
    func playlistReads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.m3u8").path
        try "#EXTM3U\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try PlaylistFileCache.read(file, name: "/a.m3u8", limit: 100) == Array("#EXTM3U\n".utf8))
        for (path, limit) in [(directory.path, 100), (file + ".none", 100), (file, 4)] {
            do {
                _ = try PlaylistFileCache.read(path, name: "/p.m3u8", limit: limit)
                Issue.record("read \(path)")
            } catch {
                #expect(error.statusCode == 404)
            }
        }
    }

    @Test("The new limits are read from the configuration file")
    func configuration() throws {
        let text = #"{"limits":{"bodyTimeout":5,"maxConnections":100,"maxConnectionsPerPeer":10}}"#
        let configuration = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
        #expect(configuration.limits.bodyTimeout == MediaTime(seconds: 5))
        #expect(configuration.limits.maxConnections == 100)
        #expect(configuration.limits.maxConnectionsPerPeer == 10)
        #expect(throws: APIError.self) {
            try ServerConfiguration.decode(Array(#"{"limits":{"maxConnectionsPerPeer":0}}"#.utf8), base: "/tmp")
        }
    }
}
