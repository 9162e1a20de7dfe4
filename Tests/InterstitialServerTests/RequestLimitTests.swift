import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import InterstitialServer

/// What a client sends cannot choose the URLs served, nor hold or grow a
/// connection beyond the limits.
@Suite("Request limits and the Host header")
struct RequestLimitTests {
    /// The demo; with `shortTimeouts`, a header timeout of half a second and an idle timeout of two
    /// (the test client's one connection must then not wait between requests: those tests use their
    /// own connections). The idle timeout is the longer so that, on a machine loaded enough to run a
    /// new connection's first read late, it does not close the connection before its request is read.
    static func configuration(shortTimeouts: Bool = false) throws -> ServerConfiguration {
        var configuration = try Harness.demo()
        if shortTimeouts {
            configuration.limits.headerTimeout = MediaTime(seconds: 0.5)
            configuration.limits.idleTimeout = MediaTime(seconds: 2)
        }
        return configuration
    }

    @Test("A Host header never reaches a playlist, an asset list or a stored served value")
    func hostHeaderPoisoning() async throws {
        let store = try SQLiteStore(path: nil)
        try await Harness.withServer(try Self.configuration(), store: store) { client in
            let port = try #require(client.port)
            func rawGet(_ path: String, host: String) async throws -> String {
                let (text, _) = try await RawConnection.open(port: port).exchange(
                    "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                #expect(text.hasPrefix("HTTP/1.1 200"), "\(path): \(text.prefix(200))")
                return String(text[text.range(of: "\r\n\r\n")!.upperBound...])
            }
            let media = "/demo/vod/video/main.m3u8"
            let list = "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2"
            let poisoned = try await rawGet(media, host: "evil.example")
            let poisonedList = try await rawGet(list, host: "evil.example:8080")
            #expect(!poisoned.contains("evil.example") && !poisonedList.contains("evil.example"))
            #expect(poisoned.contains("X-ASSET-URI=\"http://127.0.0.1:\(port)/ads/ad2/master.m3u8"))
            #expect(
                try await rawGet(media, host: "127.0.0.1:\(port)") == poisoned, "later requests serve the same bytes")
            let normal = try await get(port: port, media)
            #expect(normal.body == poisoned)
            #expect(try await rawGet(list, host: "localhost") == poisonedList)
        }
        let served = try store.load().served.values.map { "\($0)" }
        #expect(!served.isEmpty)
        #expect(!served.contains { $0.contains("evil") })
    }

    @Test("A configured publicURL makes the absolute URLs; a non-loopback address needs one")
    func publicURL() async throws {
        var configuration = try Self.configuration()
        configuration.publicURL = "https://cdn.example.com/origin"
        try await Harness.withServer(configuration) { client in
            let text = try await client.text("/demo/vod/video/main.m3u8")
            #expect(text.contains("X-ASSET-URI=\"https://cdn.example.com/origin/ads/ad2/master.m3u8"))
        }
        configuration.host = "0.0.0.0"
        configuration.publicURL = nil
        #expect(throws: APIError.self) { try configuration.check() }
        for bad in ["ftp://x", "https://x.example/", "https://x.example/a?b", "https://x\"y.example"] {
            configuration.publicURL = bad
            #expect(throws: APIError.self, "\(bad)") { try configuration.check() }
        }
        configuration.publicURL = "https://x.example:8443"
        try configuration.check()
    }

    @Test("A long request line is 414, large header fields are 431, bad bytes are 400; then the connection closes")
    func headLimits() async throws {
        try await Harness.withServer(try Self.configuration()) { client in
            let port = try #require(client.port)
            let long = "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n"
            let uri = try await RawConnection.open(port: port).exchange(long)
            #expect(uri.text.hasPrefix("HTTP/1.1 414 "), "\(uri.text.prefix(100))")
            #expect(uri.text.contains("\"code\":\"request-line-too-long\""))
            #expect(uri.closed)
            // Longer than NIO's own limit (80 KB), which used to close without an answer.
            let huge = "GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"
            #expect(try await RawConnection.open(port: port).exchange(huge).text.hasPrefix("HTTP/1.1 414 "))
            let fields =
                "GET / HTTP/1.1\r\nHost: x\r\n"
                + String(repeating: "X-Filler: \(String(repeating: "b", count: 1000))\r\n", count: 40) + "\r\n"
            let large = try await RawConnection.open(port: port).exchange(fields)
            #expect(large.text.hasPrefix("HTTP/1.1 431 "), "\(large.text.prefix(100))")
            #expect(large.closed)
            let many = "GET / HTTP/1.1\r\n" + (0..<150).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
            #expect(try await RawConnection.open(port: port).exchange(many).text.hasPrefix("HTTP/1.1 431 "))
            for bad in [
                "GET /a\u{1}b HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/9\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
                "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
                "POST /handoff/x HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
                // Issue 37, item 2: what NIO's decoder refuses was left unanswered and open.
                "get / HTTP/1.1\r\nHost: x\r\n\r\n", "FOO / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\nHost: x\n\n",
                "POST /handoff/x HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab",
                "POST /handoff/x HTTP/1.1\r\nContent-Length: 2, 2\r\n\r\nab",
                "POST /handoff/x HTTP/1.1\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n",
            ] {
                let answer = try await RawConnection.open(port: port).exchange(bad)
                #expect(answer.text.hasPrefix("HTTP/1.1 400 "), "\(bad.debugDescription): \(answer.text.prefix(100))")
                #expect(answer.closed)
            }
            let high = try await RawConnection.open(port: port).exchange(
                [0x47, 0x45, 0x54, 0x20, 0x2F, 0xFF, 0x20] + Array("HTTP/1.1\r\n\r\n".utf8))
            #expect(high.text.hasPrefix("HTTP/1.1 400 "))
            // After a good request on the same connection: its answer first, then the refusal.
            let pipelined = "GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n" + long
            let both = try await RawConnection.open(port: port).exchange(pipelined)
            #expect(both.text.hasPrefix("HTTP/1.1 204 "), "\(both.text.prefix(300))")
            #expect(both.text.contains("HTTP/1.1 414 "))
            #expect(both.closed)
            // Bodies (by length and chunked) and blank lines between requests are framed correctly.
            let session = #"{"url":"http://x/main.m3u8","location":{"primary":1}}"#
            let chunked =
                "POST /handoff/c1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(session.utf8.count, radix: 16) + ";ext=1\r\n" + session + "\r\n0\r\nTrailer: 1\r\n\r\n\r\n"
                + "POST /handoff/c2 HTTP/1.1\r\nHost: x\r\nContent-Length: \(session.utf8.count)\r\n\r\n" + session
                + "GET /handoff/c1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let framed = try await RawConnection.open(port: port).exchange(chunked)
            #expect(framed.text.components(separatedBy: "HTTP/1.1 202 ").count == 3, "\(framed.text)")
            #expect(framed.text.contains("HTTP/1.1 200 "))
            #expect(framed.closed)
        }
    }

    @Test("Slow heads get 408 and idle connections close, after the configured timeouts on the server's clock")
    func slowAndIdleConnections() async throws {
        // The timeouts are on the server's clock, which stands still until the test moves it: a
        // head or an idle connection times out when the clock passes its deadline, never because
        // the machine was slow (the connection's wake-up is on the clock: the test waits for it).
        let clock = ManualServerClock.starting()
        let header = MediaTime(seconds: 0.5)
        let idle = MediaTime(seconds: 2)
        try await Harness.withServer(try Self.configuration(shortTimeouts: true), serverClock: clock) { client in
            let port = try #require(client.port)
            let slowly = Task {
                try await RawConnection.open(port: port).exchange("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            }
            #expect(try await eventually { clock.waiting(for: header) == 1 }, "the head's deadline is set")
            clock.advance(0.4)
            #expect(clock.waiting(for: MediaTime(seconds: 0.1)) == 1, "not due before the header timeout")
            clock.advance(0.1)
            let slow = try await slowly.value
            #expect(slow.text.hasPrefix("HTTP/1.1 408 "), "\(slow.text.prefix(100))")
            #expect(slow.closed)
            let silently = Task { try await RawConnection.open(port: port).exchange("") }
            #expect(try await eventually { clock.waiting(for: idle) == 1 }, "the connection's idle deadline is set")
            clock.advance(1.9)
            #expect(clock.waiting(for: MediaTime(seconds: 0.1)) == 1, "not idle before the idle timeout")
            clock.advance(0.1)
            let silent = try await silently.value
            #expect(silent.closed)
            #expect(silent.text.isEmpty)
            // Once answered, a kept-alive connection closes when idle, whenever the clock passes
            // the idle timeout (it ticks on here); so do many at once, silent or with a head begun.
            let connection = try await RawConnection.open(port: port)
            let kept = try await withTimeLimit(LiveServer.hangLimit) { [channel = connection.channel] in
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: "GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n"))
                    var iterator = inbound.makeAsyncIterator()
                    var text = ""
                    while !text.contains("\r\n\r\n"), let buffer = try await iterator.next() {
                        text += String(buffer: buffer)
                    }
                    try await ticking(clock) { while try await iterator.next() != nil {} }
                    return text
                }
            }
            #expect(kept.hasPrefix("HTTP/1.1 204 "), "a kept-alive connection closes once idle, after its answer")
            let results = try await ticking(clock) {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<40 {
                        group.addTask {
                            let connection = try await RawConnection.open(port: port)
                            return try await connection.exchange(index.isMultiple(of: 2) ? "" : "GET / HTTP/1.1\r\n")
                                .closed
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
            }
            #expect(results.allSatisfy { $0 })
            let after = try await RawConnection.open(port: port).exchange(
                "GET /favicon.ico HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(after.text.hasPrefix("HTTP/1.1 204 "), "the server still answers")
        }
    }

    @Test("Body limits: 413 over 64 KiB for the admin API and hand-off sessions")
    func bodyLimits() async throws {
        try await Harness.withServer(try Self.configuration()) { client in
            let padding = String(repeating: "x", count: 70 * 1024)
            let admin = try await client.admin(
                .post, "inventory", #"{"id":"big","uri":"/a.m3u8","duration":1,"x":"\#(padding)"}"#)
            #expect(admin.status == .contentTooLarge)
            let session = #"{"url":"http://x/main.m3u8","location":{"primary":1},"pad":"\#(padding)"}"#
            let handoff = try await client.execute(
                uri: "/handoff/big", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: session))
            #expect(handoff.status == .contentTooLarge)
            #expect(handoff.errorCode == "body-too-large")
        }
    }

    @Test("The hand-off mailbox holds a bounded number of sessions, each for a bounded time")
    func mailboxLimits() async throws {
        var configuration = try Self.configuration()
        configuration.limits.handoffSessions = 2
        try await Harness.withServer(configuration) { client in
            func put(_ name: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/handoff/\(name)", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"url":"http://x/\#(name).m3u8","location":{"primary":1}}"#))
            }
            #expect(try await put("a").status == .accepted)
            #expect(try await put("b").status == .accepted)
            let full = try await put("c")
            #expect(full.status == .serviceUnavailable)
            #expect(full.errorCode == "mailbox-full")
            #expect(try await put("a").status == .accepted, "a waiting name may be replaced")
            #expect(try await client.get("/handoff/a").status == .ok)
            #expect(try await put("c").status == .accepted, "a taken session frees its place")
        }
        let clock = ManualServerClock.starting()
        let mailbox = HandoffMailbox(capacity: 1, expiry: .seconds(600), clock: clock)
        let session = #"{"url":"http://x/m.m3u8","location":{"primary":1}}"#
        try mailbox.put("old", session)
        clock.advance(601)
        #expect(await mailbox.take("old", wait: .zero) == nil, "an expired session is gone")
        try mailbox.put("new", session)
        #expect(mailbox.count == 1, "expired sessions leave room")
    }

    @Test("Viewer IDs are bounded in length, and the ledger in entries and bytes")
    func viewerLimits() async throws {
        try await Harness.withServer(try Self.configuration()) { client in
            let long = String(repeating: "v", count: 129)
            let response = try await client.get(
                "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2&_HLS_primary_id=\(long)")
            #expect(response.status == .badRequest)
            #expect(response.errorPath == "_HLS_primary_id")
        }
        var limits = ServerLimits()
        limits.ledgerEntries = 100
        limits.ledgerBytes = 8192
        let state = try ServerState(store: SQLiteStore(path: nil), limits: limits)
        #expect(
            try await state.attempt(viewer: String(repeating: "v", count: 60_000), target: Target(.vod, "a"), id: "b")
                .resolve() == 0)
        #expect(state.ledgerSize.entries == 0, "an over-long viewer ID is not kept")
        for index in 0..<10_000 {
            _ = try await state.attempt(
                viewer: "viewer-\(index)-" + String(repeating: "x", count: 100), target: Target(.vod, "a"), id: "b"
            ).resolve()
            #expect(state.ledgerSize.entries <= 100 && state.ledgerSize.bytes <= 8192)
        }
        #expect(try await state.attempt(viewer: "recent", target: Target(.vod, "a"), id: "b").resolve() == 0)
        #expect(
            try await state.attempt(viewer: "recent", target: Target(.vod, "a"), id: "b").resolve() == 1,
            "recent viewers keep their count")
    }

    @Test("The ledger keeps a viewer's count while it is used and forgets it after the viewer expiry")
    func ledgerExpiry() {
        var limits = ServerLimits()
        limits.viewerExpiry = MediaTime(seconds: 100)
        var ledger = ViewerLedger(limits: limits)
        let start = MediaTime(seconds: 1000)
        #expect(ledger.count("a", now: start) == 0)
        #expect(ledger.count("a", now: start + MediaTime(seconds: 49)) == 1)
        // Half the expiry on: a new generation, the old one still answers.
        #expect(ledger.count("b", now: start + MediaTime(seconds: 60)) == 0)
        #expect(ledger.count("a", now: start + MediaTime(seconds: 70)) == 2)
        #expect(ledger.count("b", now: start + MediaTime(seconds: 125)) == 1, "used 65 s ago: kept")
        // a was last asked at 70 s: 105 s later it is gone, and so is everything older.
        #expect(ledger.count("a", now: start + MediaTime(seconds: 231)) == 0)
        #expect(ledger.entries == 1)
    }

    @Test("Configuration files set every limit under limits; bad values name their path")
    func limitsConfiguration() throws {
        let text =
            #"{"limits":{"adminBodyBytes":2048,"idleTimeout":5,"upstreamFileBytes":134217728,"handoffExpiry":30}}"#
        let configuration = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
        #expect(configuration.limits.adminBodyBytes == 2048)
        #expect(configuration.limits.idleTimeout == MediaTime(seconds: 5))
        #expect(configuration.limits.upstreamFileBytes == 134_217_728)
        #expect(configuration.limits.handoffExpiry == MediaTime(seconds: 30))
        for (bad, path) in [
            (#"{"limits":{"adminBodyBytes":10}}"#, "limits.adminBodyBytes"),
            (#"{"limits":{"idleTimeout":0}}"#, "limits.idleTimeout"),
            (#"{"limits":{"colour":1}}"#, "limits.colour"),
            (#"{"host":"0.0.0.0"}"#, "publicURL"),
        ] {
            do {
                _ = try ServerConfiguration.decode(Array(bad.utf8), base: "/tmp")
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.path == path, "\(bad): \(error)")
            }
        }
    }
}
