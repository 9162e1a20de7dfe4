import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import InterstitialServer

/// The guard's own answers (a request it refuses before the server has it) carry what every public
/// answer carries (`docs/http.md`): CORS, and a `Cache-Control` from ``CachePolicy``.
@Suite("The request guard's refusals")
struct GuardRefusalTests {
    /// One row: what is sent, and the status and code it is refused with.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var status: String
        var code: String
        /// How long the client then waits before the guard answers (408).
        var wait: Double = 0

        var testDescription: String { name }
    }

    static let limits = ServerLimits()

    static let rows: [Row] = [
        Row(
            name: "400 bad request line", bytes: Array("get / HTTP/1.1\r\n\r\n".utf8), status: "400 Bad Request",
            code: "bad-request-line"),
        Row(
            name: "400 bad framing",
            bytes: Array("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n".utf8),
            status: "400 Bad Request", code: "bad-framing"),
        Row(
            name: "408 head too slow", bytes: Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8),
            status: "408 Request Timeout", code: "header-timeout",
            wait: limits.headerTimeout.seconds + 1),
        Row(
            name: "414 request line too long",
            bytes: Array("GET /\(String(repeating: "a", count: limits.requestLineBytes)) HTTP/1.1\r\n\r\n".utf8),
            status: "414 URI Too Long", code: "request-line-too-long"),
        Row(
            name: "431 header fields too large",
            bytes: Array("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "b", count: limits.headerBytes))\r\n\r\n".utf8),
            status: "431 Request Header Fields Too Large", code: "headers-too-large"),
        Row(
            name: "431 too many header fields",
            bytes: Array(
                ("GET / HTTP/1.1\r\n" + (0...limits.headerCount).map { "X-\($0): 1\r\n" }.joined() + "\r\n").utf8),
            status: "431 Request Header Fields Too Large", code: "headers-too-large"),
    ]

    /// The guard's answer to `row`'s bytes: its head's lines and its body.
    static func answer(_ row: Row) throws -> (lines: [String], body: String) {
        let clock = ManualServerClock.starting()
        let requestGuard = RequestGuard(limits: RequestGuard.Limits(limits), logger: Harness.logger, clock: clock)
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHandler(requestGuard)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
        try channel.writeInbound(ByteBuffer(bytes: row.bytes))
        if row.wait > 0 { clock.advance(row.wait, on: channel) }
        // The handlers behind close once their requests are answered: the refusal goes out then.
        channel.close(promise: nil)
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        let parts = text.components(separatedBy: "\r\n\r\n")
        return (parts[0].components(separatedBy: "\r\n"), parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test("Each refusal has its status, CORS, Cache-Control from CachePolicy, and the JSON error", arguments: rows)
    func refusal(_ row: Row) throws {
        let (lines, body) = try Self.answer(row)
        #expect(lines.first == "HTTP/1.1 \(row.status)")
        let fields = Dictionary(
            lines.dropFirst().map { line -> (String, String) in
                let parts = line.split(separator: ":", maxSplits: 1)
                return (parts[0].lowercased(), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
            }, uniquingKeysWith: { first, _ in first })
        #expect(fields["access-control-allow-origin"] == "*")
        #expect(fields["access-control-expose-headers"] == HTTPSemanticsMiddleware<ServerRequestContext>.exposedHeaders)
        #expect(fields["cache-control"] == CachePolicy.noStore)
        #expect(fields["content-type"] == "application/json")
        #expect(fields["connection"] == "close")
        #expect(fields["content-length"] == String(body.utf8.count))
        #expect(body.contains("\"code\":\"\(row.code)\""), "\(body)")
        #expect(body.contains("\"status\":\(row.status.prefix(3))"), "\(body)")
    }

    @Test(
        "Each refusal code of the request reader is written as the API code of the same name",
        arguments: RequestHeadReader.Refusal.Code.allCases)
    func refusalCode(_ code: RequestHeadReader.Refusal.Code) {
        #expect(APIError.Code(code).rawValue == code.rawValue)
    }

    @Test("A connection over a cap gets 503 with Retry-After, CORS and Cache-Control from CachePolicy")
    func connectionRefusal() throws {
        let response = RequestGuard.response(
            .init(status: 503, reason: "Service Unavailable", code: .tooManyConnections, message: "full"),
            retryAfter: 1, allocator: ByteBufferAllocator())
        let text = String(buffer: response)
        #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(text.contains("\r\nRetry-After: 1\r\n"))
        #expect(text.contains("\r\nAccess-Control-Allow-Origin: *\r\n"))
        #expect(text.contains("\r\nCache-Control: \(CachePolicy.noStore)\r\n"))
    }

    // MARK: The head, read as a value

    /// What the fast lane is asked for each whole head in `bytes`, read in two parts split at `split`.
    static func requests(_ bytes: [UInt8], split: Int) -> [FastLane.Request?] {
        var reader = RequestHeadReader(limits: RequestGuard.Limits(limits).head)
        var found: [FastLane.Request?] = []
        for part in [bytes[..<split], bytes[split...]] {
            var offset = part.startIndex
            while offset < part.endIndex {
                switch reader.read(part[offset...]) {
                case .blank(let count), .partial(let count), .body(let count): offset += count
                case .head(let count, let head):
                    offset += count
                    found.append(FastLane.Request(head: reader.head, head))
                case .refuse: return found
                }
            }
        }
        return found
    }

    @Test("The head says what the fast lane may answer, whatever the reads: plain GETs over HTTP/1.1 only")
    func fastLaneRequests() {
        let text =
            "GET /a/main.m3u8 HTTP/1.1\r\nHost: x\r\nX-Playback-Session-Id:  S-1 \r\n\r\n"
            + "GET /a/seg.m4s?x=1 HTTP/1.1\r\nX-Playback-Session-Id: S-2\r\n\r\n"
            + "GET /a/main.m3u8 HTTP/1.0\r\n\r\n" + "HEAD /a/main.m3u8 HTTP/1.1\r\n\r\n"
            + "GET /a/m%61in.m3u8 HTTP/1.1\r\n\r\n" + "GET /a/main.m3u8 HTTP/1.1\r\nRange: bytes=0-1\r\n\r\n"
            + "GET /a/main.m3u8 HTTP/1.1\r\nIf-None-Match: \"x\"\r\n\r\n"
            + "GET /a/main.m3u8 HTTP/1.1\r\nConnection: close\r\n\r\n"
            + "GET /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nab" + "GET /last HTTP/1.1\r\n\r\n"
        let expected: [FastLane.Request?] = [
            FastLane.Request(target: "/a/main.m3u8", viewer: RequestViewer(session: "S-1")),
            FastLane.Request(target: "/a/seg.m4s?x=1"),
            nil, nil, nil, nil, nil, nil, nil, FastLane.Request(target: "/last"),
        ]
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            #expect(Self.requests(bytes, split: split) == expected, "split at \(split)")
        }
    }
}
