import NIOCore
import NIOEmbedded
import Testing

@testable import InterstitialServer

/// A request whose `Connection` field carries the `close` option in any form (`keep-alive, close`,
/// `Close`, two field lines) gets its connection closed once answered (RFC 9112 §9.6), not left
/// open until the idle timeout: Hummingbird closes only after exactly `Connection: close`, so the
/// request guard passes such a head on with that field.
@Suite("Connection: close")
struct ConnectionCloseTests {
    /// A `Connection` field's lines, and whether they carry the `close` option.
    struct Field: CustomTestStringConvertible, Sendable {
        var lines: [String]
        var closes: Bool
        var testDescription: String { lines.map(\.debugDescription).joined(separator: " + ") }

        init(_ lines: String..., closes: Bool) {
            self.lines = lines
            self.closes = closes
        }
    }

    static let fields: [Field] = [
        Field("close", closes: true),
        Field("Close", closes: true),
        Field("CLOSE", closes: true),
        Field("keep-alive, close", closes: true),
        Field(" close ", closes: true),
        Field("\tclose\t", closes: true),
        Field("close,TE", closes: true),
        Field("close , TE", closes: true),
        Field("Upgrade, HTTP2-Settings, close", closes: true),
        Field(", ,close,", closes: true),
        Field("keep-alive", "close", closes: true),
        Field("keep-alive", "TE, Close", closes: true),
        Field(String(repeating: "a, ", count: 2730) + "close", closes: true),
        Field("closed", closes: false),
        Field("enclose", closes: false),
        Field("close-ish", closes: false),
        Field("\"close\"", closes: false),
        Field("close;q=1", closes: false),
        Field("clo se", closes: false),
        Field("keep-alive", closes: false),
        Field("keep-alive", "TE", closes: false),
        Field("", closes: false),
        Field(",", closes: false),
        Field(String(repeating: "x", count: 8192), closes: false),
        Field(String(repeating: "closed, ", count: 1024), closes: false),
    ]

    @Test("The close option is a whole token of the list, any case, in any of the field's lines", arguments: fields)
    func carriesClose(_ field: Field) {
        #expect(ConnectionOptions.carriesClose(field.lines.map { Array($0.utf8)[...] }) == field.closes)
    }

    /// A `Connection` field's lines of an HTTP/1.0 request, and whether the connection closes after it.
    static let http10Fields: [Field] = [
        Field(closes: true),
        Field("TE", closes: true),
        Field("keep-alive", closes: false),
        Field("Keep-Alive", closes: false),
        Field("TE, keep-alive", closes: false),
        Field("TE", "keep-alive", closes: false),
        Field("keep-alive, close", closes: true),
        Field("keep-alived", closes: true),
        Field("\"keep-alive\"", closes: true),
    ]

    @Test(
        "HTTP/1.0 closes after the answer unless keep-alive is listed (RFC 9112 §9.3); HTTP/1.1 only on close",
        arguments: http10Fields)
    func closesAfterAnswer(_ field: Field) {
        let values = field.lines.map { Array($0.utf8)[...] }
        #expect(ConnectionOptions.closesAfterAnswer(values, http10: true) == field.closes)
        #expect(ConnectionOptions.closesAfterAnswer(values, http10: false) == ConnectionOptions.carriesClose(values))
    }

    // MARK: The guard

    /// A GET with `fields` (whole lines, without CRLF) between `Host` and `Accept`.
    static func head(_ fields: [String]) -> String {
        "GET /demo/vod/video/main.m3u8 HTTP/1.1\r\nHost: x\r\n" + fields.map { $0 + "\r\n" }.joined()
            + "Accept: */*\r\n\r\n"
    }

    /// What the guard passes on of `text`, sent in two reads split at each of `splits`.
    static func passed(_ text: String, splits: [Int]? = nil) throws -> [String] {
        let bytes = Array(text.utf8)
        return try (splits ?? [0, 20, bytes.count / 2, bytes.count - 1]).map { split in
            let (channel, _) = try RequestGuardTests.channel()
            defer { _ = try? channel.finish() }
            if split > 0 { try channel.writeInbound(ByteBuffer(bytes: bytes[..<split])) }
            try channel.writeInbound(ByteBuffer(bytes: bytes[split...]))
            return try RequestGuardTests.passed(channel)
        }
    }

    /// The `Connection` fields of a head, and those it must pass on with.
    struct Rewrite: CustomTestStringConvertible, Sendable {
        var fields: [String]
        var passed: [String]
        var testDescription: String { fields.joined(separator: " | ") }
    }

    static let rewrites: [Rewrite] = [
        Rewrite(fields: ["Connection: keep-alive, close"], passed: ["Connection: close"]),
        Rewrite(fields: ["connection:Close"], passed: ["Connection: close"]),
        Rewrite(fields: ["Connection: close , TE", "TE: trailers"], passed: ["Connection: close", "TE: trailers"]),
        Rewrite(
            fields: ["Connection: keep-alive", "X-A: 1", "CONNECTION: close"], passed: ["Connection: close", "X-A: 1"]),
        Rewrite(fields: ["Connection: close"], passed: ["Connection: close"]),
        // `Upgrade: h2c` is left out as before (RFC 9110 §7.8).
        Rewrite(
            fields: ["Connection: Upgrade, HTTP2-Settings, close", "Upgrade: h2c", "HTTP2-Settings: AAMAAABk"],
            passed: ["Connection: close", "HTTP2-Settings: AAMAAABk"]),
        Rewrite(
            fields: ["Upgrade: h2c", "Connection: Upgrade, close"], passed: ["Connection: close"]),
    ]

    @Test(
        "A head carrying the close option passes on with exactly one Connection: close, split anywhere",
        arguments: rewrites)
    func rewritten(_ rewrite: Rewrite) throws {
        for passed in try Self.passed(Self.head(rewrite.fields)) {
            #expect(passed == Self.head(rewrite.passed))
        }
    }

    @Test(
        "A head without the close option, or a WebSocket upgrade, passes on byte for byte",
        arguments: [
            ["Connection: keep-alive"], ["Connection: closed, enclose"], ["Connection: keep-alive", "Connection: TE"],
            ["Connection: Upgrade, close", "Upgrade: websocket"], [],
        ])
    func untouched(_ fields: [String]) throws {
        let text = Self.head(fields)
        for passed in try Self.passed(text) { #expect(passed == text) }
    }

    /// `head(_:)` as an HTTP/1.0 request.
    static func head10(_ fields: [String]) -> String {
        head(fields).replacingOccurrences(of: " HTTP/1.1\r\n", with: " HTTP/1.0\r\n")
    }

    @Test(
        "An HTTP/1.0 head without keep-alive passes on with Connection: close, added before its end when it has none",
        arguments: [
            Rewrite(fields: [], passed: ["Accept: */*", "Connection: close"]),
            Rewrite(fields: ["Connection: TE", "TE: trailers"], passed: ["Connection: close", "TE: trailers"]),
            Rewrite(fields: ["Connection: keep-alive, close"], passed: ["Connection: close"]),
            Rewrite(fields: ["Upgrade: h2c"], passed: ["Accept: */*", "Connection: close"]),
        ])
    func http10Rewritten(_ rewrite: Rewrite) throws {
        // Accept ends the head: a passed list starting with it names the head's own last field.
        let expected =
            rewrite.passed.first == "Accept: */*"
            ? "GET /demo/vod/video/main.m3u8 HTTP/1.0\r\nHost: x\r\nAccept: */*\r\nConnection: close\r\n\r\n"
            : Self.head10(rewrite.passed)
        for passed in try Self.passed(Self.head10(rewrite.fields)) { #expect(passed == expected) }
    }

    @Test(
        "An HTTP/1.0 head with keep-alive, or a WebSocket upgrade, passes on byte for byte",
        arguments: [["Connection: keep-alive"], ["Connection: TE", "Connection: Keep-Alive"]])
    func http10KeptAlive(_ fields: [String]) throws {
        let text = Self.head10(fields)
        for passed in try Self.passed(text) { #expect(passed == text) }
    }

    @Test("Requests on one connection are each rewritten or not by their own Connection field")
    func pipelined() throws {
        let first = Self.head(["Connection: keep-alive"])
        let second = Self.head(["Connection: keep-alive, close"])
        let passed = try Self.passed(first + second, splits: [0, first.utf8.count, first.utf8.count + 30])
        for text in passed { #expect(text == first + Self.head(["Connection: close"])) }
    }

    @Test("After a request carrying the close option, the fast lane answers no further request on the connection")
    func noFastAnswerAfterClose() throws {
        let (channel, requestGuard) = try FastLaneTests.channel()
        defer { _ = try? channel.finish() }
        requestGuard.trackerAdded()
        let kept = FastLaneTests.get("/kept")
        // Answered here while the connection is kept.
        try channel.writeInbound(ByteBuffer(string: kept))
        #expect(try FastLaneTests.answered(channel).hasSuffix("hello"))
        let closing = FastLaneTests.get("/kept", "Connection: keep-alive, close\r\n")
        try channel.writeInbound(ByteBuffer(string: closing))
        #expect(try FastLaneTests.passed(channel) == FastLaneTests.get("/kept", "Connection: close\r\n"))
        // Its answer ended behind, the connection closing: a request sent meanwhile is not answered here.
        requestGuard.answerEnded()
        try channel.writeInbound(ByteBuffer(string: kept))
        #expect(try FastLaneTests.answered(channel).isEmpty)
        #expect(try FastLaneTests.passed(channel) == kept)
    }

    // MARK: The server

    @Test("The server closes the connection after answering a request with Connection: keep-alive, close")
    func serverCloses() async throws {
        // The server's clock does not move: only the close option can end the connection (the idle
        // timeout never comes), and the answer is read until the server closes it.
        try await Harness.withServer(serverClock: ManualServerClock.starting()) { client in
            let port = try #require(client.port)
            let answer = try await RawConnection.open(port: port).exchange(
                Self.head(["Connection: keep-alive, close"]))
            #expect(answer.closed, "closed by the server after its answer")
            #expect(answer.text.hasPrefix("HTTP/1.1 200 "), "\(answer.text.prefix(200))")
            #expect(answer.text.contains("#EXTM3U"))
        }
    }

    @Test("The server closes the connection after answering an HTTP/1.0 request without keep-alive")
    func serverClosesHTTP10() async throws {
        try await Harness.withServer(serverClock: ManualServerClock.starting()) { client in
            let port = try #require(client.port)
            let answer = try await RawConnection.open(port: port).exchange(Self.head10([]))
            #expect(answer.closed, "closed by the server after its answer")
            #expect(answer.text.hasPrefix("HTTP/1."), "\(answer.text.prefix(200))")
            #expect(answer.text.contains("#EXTM3U"))
        }
    }
}
