import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import InterstitialServer

/// The request-head checks are a value (bytes in; pass, refuse or answer out)
/// that refuses whatever NIO's decoder would refuse, whatever the reads.
@Suite("The request head reader")
struct RequestHeadReaderTests {
    /// A request's bytes and what the reader must decide: nil to accept it whole, or the status and
    /// code of its refusal; `nioRefuses` says what NIO's llhttp decoder does with it (nil: not compared,
    /// the reader being stricter there).
    struct Shape: CustomTestStringConvertible, Sendable {
        var text: String
        var refusal: (status: Int, code: RequestHeadReader.Refusal.Code)?
        var nioRefuses: Bool?

        var bytes: [UInt8] { Array(text.utf8) }
        var testDescription: String { text.debugDescription }

        static func accept(_ text: String) -> Shape { Shape(text: text, refusal: nil, nioRefuses: false) }
        static func refuse(
            _ text: String, _ code: RequestHeadReader.Refusal.Code, status: Int = 400, nio: Bool? = true
        ) -> Shape {
            Shape(text: text, refusal: (status, code), nioRefuses: nio)
        }
    }

    static let chunked = "POST /h HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"

    static let shapes: [Shape] = [
        .accept("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
        .accept("GET /a?b=c#d HTTP/1.0\r\n\r\n"),
        .accept("\r\n\r\nGET / HTTP/1.1\r\nX-Empty:\r\nX-Obs: caf\u{E9}\r\n\r\n"),
        .accept("GET /a\"<>{}|\\^`'[]!$&()*+,;=:@~ HTTP/1.1\r\n\r\n"),
        .accept("POST /h HTTP/1.1\r\ncontent-length:  03 \r\n\r\nabc"),
        .accept("POST /h HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET / HTTP/1.1\r\n\r\n"),
        .accept(chunked + "3;a=b;c=\"x\\\"y\";d\r\nabc\r\n0\r\nX-T: 1\r\n\r\n"),
        .accept("PATCH /x HTTP/1.1\r\nTransfer-Encoding: CHUNKED\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n"),
        .accept("OPTIONS * HTTP/1.1\r\n\r\n"),
        .accept("GET http://example.com:80/x?y HTTP/1.1\r\n\r\n"),
        .accept("GET https://user@[::1]:8443?q HTTP/1.1\r\n\r\n"),
        .accept("GET /a##b?c?d#e?f HTTP/1.1\r\n\r\n"),
        .refuse("GET http://a@b@c/ HTTP/1.1\r\n\r\n", .badRequestLine, nio: nil),
        .accept("DELETE /x HTTP/1.1\r\n\r\nHEAD /y HTTP/1.1\r\n\r\n"),
        // The issue's shapes: answered 400, as NIO's decoder refuses them.
        .refuse("get / HTTP/1.1\r\n\r\n", .badRequestLine),
        .refuse("FOO / HTTP/1.1\r\n\r\n", .badRequestLine),
        .refuse("GET / HTTP/1.1\nHost: x\n\n", .badLineEnding),
        .refuse("GET / HTTP/1.1\r\nHost: x\n\r\n", .badLineEnding),
        .refuse("GET / HTTP/1.1\r\nHost: x\r\n\n", .badLineEnding),
        .refuse("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab", .badFraming),
        .refuse("POST / HTTP/1.1\r\nContent-Length: 2, 2\r\n\r\nab", .badFraming),
        .refuse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n", .badFraming),
        .refuse("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .badFraming),
        .refuse("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .badFraming),
        .refuse("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", .badFraming),
        .refuse(chunked + "5\nhello\r\n0\r\n\r\n", .badFraming),
        .refuse(chunked + "5\r\nhelloX0\r\n\r\n", .badFraming),
        .refuse(chunked + "5 \r\nhello\r\n0\r\n\r\n", .badFraming),
        .refuse(chunked + "0\r\nBad Name: x\r\n\r\n", .badHeader),
        .refuse(chunked + "0\r\nX: 1\n\r\n", .badHeader),
        .refuse("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", .badHeader),
        .refuse("GET / HTTP/1.1\r\nX: a\u{7F}\r\n\r\n", .badHeader),
        .refuse("GET / HTTP/1.1\r\n: x\r\n\r\n", .badHeader),
        .refuse("GET / HTTP/9\r\n\r\n", .badRequestLine),
        .refuse("GET /a\u{1}b HTTP/1.1\r\n\r\n", .badRequestLine),
        // A request line without its target or version, or with more after it.
        .refuse("GET /\r\n\r\n", .badRequestLine, nio: nil),
        .refuse("GET\r\n\r\n", .badRequestLine, nio: nil),
        .refuse("GET / HTTP/1.1 x\r\n\r\n", .badRequestLine, nio: nil),
        // Stricter than the decoder: forms and codings the server does not serve.
        .refuse("GET  / HTTP/1.1\r\n\r\n", .badRequestLine, nio: nil),
        .refuse("GET * HTTP/1.1\r\n\r\n", .badRequestLine, nio: nil),
        .refuse("CONNECT example.com:443 HTTP/1.1\r\n\r\n", .badRequestLine, nio: nil),
        .refuse("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", .badFraming, nio: nil),
        .refuse(chunked + "0\r\nContent-Length: 1\r\n\r\n", .badFraming, nio: nil),
        .refuse("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", .badHeader, nio: nil),
        .refuse(
            "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\r\n", .requestLineTooLong, status: 414,
            nio: nil),
        .refuse(
            "GET / HTTP/1.1\r\n" + String(repeating: "X-A: 1\r\n", count: 101) + "\r\n", .headersTooLarge,
            status: 431,
            nio: nil),
    ]

    /// What the reader made of a connection's bytes, whatever the reads.
    struct Outcome: Hashable, CustomStringConvertible {
        var heads: [RequestHeadReader.Body] = []
        var blankBytes = 0
        var bodyBytes = 0
        var refusal: RequestHeadReader.Refusal?
        var pending = false

        var description: String {
            "\(heads) blank \(blankBytes) body \(bodyBytes) refusal \(refusal?.code.rawValue ?? "none")"
        }
    }

    static let limits = RequestHeadReader.Limits(requestLineBytes: 8 * 1024, headerBytes: 32 * 1024, headerCount: 100)

    /// Reads `bytes` in parts of the sizes `next` gives.
    static func read(_ bytes: [UInt8], parts next: () -> Int) -> Outcome {
        var reader = RequestHeadReader(limits: limits)
        var outcome = Outcome()
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + max(1, next()))
            var offset = index
            while offset < end {
                switch reader.read(bytes[offset..<end]) {
                case .blank(let count): offset += count; outcome.blankBytes += count
                case .partial(let count): offset += count
                case .head(let count, let head):
                    offset += count
                    outcome.heads.append(head.body)
                    #expect(reader.head.count <= limits.requestLineBytes + limits.headerBytes + 4)
                case .body(let count):
                    #expect(count > 0)
                    offset += count
                    outcome.bodyBytes += count
                case .refuse(let refusal):
                    outcome.refusal = refusal
                    #expect(reader.refusal == refusal)
                    return outcome
                }
            }
            index = end
        }
        outcome.pending = reader.readingHead || reader.readingBody
        return outcome
    }

    /// Whether NIO's HTTP/1 request decoder refuses `bytes`.
    static func nioRefuses(_ bytes: [UInt8]) -> Bool {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
        defer { _ = try? channel.finish() }
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
            while try channel.readInbound(as: HTTPServerRequestPart.self) != nil {}
            return false
        } catch {
            return true
        }
    }

    @Test("Each shape is accepted whole or refused with its status and code, as NIO's decoder would", arguments: shapes)
    func shape(_ shape: Shape) {
        let outcome = Self.read(shape.bytes) { shape.bytes.count }
        if let refusal = shape.refusal {
            #expect(outcome.refusal?.status == refusal.status, "\(outcome)")
            #expect(outcome.refusal?.code == refusal.code, "\(outcome.refusal?.message ?? "")")
        } else {
            #expect(outcome.refusal == nil, "\(outcome.refusal?.message ?? "")")
            #expect(!outcome.heads.isEmpty && !outcome.pending, "\(outcome)")
        }
        if let nioRefuses = shape.nioRefuses {
            #expect(Self.nioRefuses(shape.bytes) == nioRefuses, "NIO's decoder")
        }
    }

    @Test("The same decision whatever the reads: every part size up to 9, and random parts", arguments: shapes)
    func splits(_ shape: Shape) {
        let whole = Self.read(shape.bytes) { shape.bytes.count }
        for size in 1...9 {
            #expect(Self.read(shape.bytes) { size } == whole, "parts of \(size)")
        }
        var random = SeededGenerator(state: UInt64(shape.bytes.count))
        for _ in 0..<20 {
            #expect(Self.read(shape.bytes) { Int.random(in: 1...40, using: &random) } == whole)
        }
    }

    @Test("A head is held until whole, then the body's bytes pass as they come; a body never sent stays pending")
    func bodyPending() {
        var reader = RequestHeadReader(limits: Self.limits)
        let head = Array("POST /h HTTP/1.1\r\nContent-Length: 10\r\n\r\n".utf8)
        #expect(reader.read(head[...]) == .partial(18))
        #expect(reader.read(head[18...]) == .partial(head.count - 20))
        #expect(
            reader.read(head[(head.count - 2)...])
                == .head(2, .init(body: .length(10), requestLineEnd: 18, special: true)))
        #expect(reader.head == head)
        #expect(reader.read(Array("ab".utf8)[...]) == .body(2))
        #expect(reader.readingBody && !reader.readingHead)
        #expect(reader.read(Array("cdefghijGET".utf8)[...]) == .body(8))
        #expect(!reader.readingBody)
        #expect(reader.read(Array("GET / HT".utf8)[...]) == .partial(8))
        #expect(reader.readingHead)
    }
}
