import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import InterstitialServer

/// Issue 42, item 8 (low): an `Upgrade` the server does not speak is ignored and answered, and an
/// admin request with a wrong token is refused without waiting for its body.
@Suite("HTTP edges")
struct HTTPEdgeTests {
    static let h2c =
        "GET /demo/vod/video/main.m3u8 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings, close\r\n"
        + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n"

    @Test(
        "The guard passes a head with Upgrade: h2c on without its Upgrade field, its Connection field reduced to close, split anywhere"
    )
    func guardDropsUpgrade() throws {
        let bytes = Array(Self.h2c.utf8)
        for split in [0, 20, bytes.count - 30, bytes.count - 1] {
            let (channel, _) = try RequestGuardTests.channel()
            defer { _ = try? channel.finish() }
            if split > 0 { try channel.writeInbound(ByteBuffer(bytes: bytes[..<split])) }
            try channel.writeInbound(ByteBuffer(bytes: bytes[split...]))
            let passed = try RequestGuardTests.passed(channel)
            let expected = Self.h2c.replacingOccurrences(of: "Upgrade: h2c\r\n", with: "")
                .replacingOccurrences(of: "Connection: Upgrade, HTTP2-Settings, close", with: "Connection: close")
            #expect(passed == expected, "split at \(split)")
        }
    }

    @Test("A WebSocket upgrade keeps its Upgrade field")
    func webSocketKept() throws {
        let text = "GET /group/a HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
        let (channel, _) = try RequestGuardTests.channel()
        defer { _ = try? channel.finish() }
        try channel.writeInbound(ByteBuffer(string: text))
        #expect(try RequestGuardTests.passed(channel) == text)
    }

    @Test("A playlist request with Upgrade: h2c is answered over HTTP/1.1, and closed for its close option")
    func h2cAnswered() async throws {
        try await Harness.withServer { client in
            let port = try #require(client.port)
            // Read until the server closes: `Connection: Upgrade, HTTP2-Settings, close` carries the
            // close option (RFC 9112 §9.6; ``ConnectionCloseTests``).
            let answer = try await RawConnection.open(port: port).exchange(Self.h2c)
            #expect(answer.closed, "closed by the server after its answer")
            #expect(answer.text.hasPrefix("HTTP/1.1 200 "), "\(answer.text.prefix(200))")
            #expect(answer.text.contains("#EXTM3U"))
        }
    }

    @Test("An admin POST with a wrong token gets 401 before its body is sent")
    func adminRefusedBeforeBody() async throws {
        try await Harness.withServer { client in
            let port = try #require(client.port)
            for authorization in ["Authorization: Bearer wrong\r\n", ""] {
                // `Connection: close`: the exchange ends with the answer (the server would
                // otherwise read the body that never comes until the body timeout).
                // The head announces a body that never comes: the answer must not wait for it.
                let answer = try await RawConnection.open(port: port).exchange(
                    "POST /admin/v1/breaks HTTP/1.1\r\nHost: x\r\n\(authorization)Content-Type: application/json\r\n"
                        + "Connection: close\r\nContent-Length: 60000\r\n\r\n{\"id\":")
                #expect(answer.text.hasPrefix("HTTP/1.1 401 "), "\(authorization): \(answer.text.prefix(200))")
                #expect(answer.text.contains("unauthorized"))
            }
        }
    }
}
