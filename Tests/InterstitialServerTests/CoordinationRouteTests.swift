import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

@Suite("Server: groups and hand-off")
struct CoordinationRouteTests {
    @Test("hand-off: a session is stored once and taken once; bad input gets a located 400")
    func handoff() async throws {
        try await Harness.withServer { client in
            let session = #"{"url":"http://x/main.m3u8","location":{"primary":12.5},"rate":1}"#
            let stored = try await client.execute(
                uri: "/handoff/tv", method: .post, body: ByteBuffer(string: session))
            #expect(stored.status == .accepted)
            // HEAD says a session waits and leaves it there.
            #expect(try await client.execute(uri: "/handoff/tv", method: .head).status == .ok)
            #expect(try await client.execute(uri: "/handoff/tv", method: .head).status == .ok)
            let taken = try await client.get("/handoff/tv")
            #expect(taken.status == .ok)
            #expect(taken.text.contains(#""primary":12.5"#))
            // Taken: the next receiver finds nothing (204) after waiting.
            #expect(try await client.get("/handoff/tv?wait=0.2").status == .noContent)
            #expect(try await client.execute(uri: "/handoff/tv", method: .head).status == .noContent)
            let bad = try await client.execute(
                uri: "/handoff/tv", method: .post,
                body: ByteBuffer(string: #"{"url":"u","location":{"primary":1},"rate":100}"#))
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "session-schema" && bad.errorPath == "rate")
            let notJSON = try await client.execute(uri: "/handoff/tv", method: .post, body: ByteBuffer(string: "{"))
            #expect(notJSON.errorCode == "session-json")
            #expect(try await client.get("/handoff/tv?wait=600").errorPath == "wait")
            #expect(try await client.get("/handoff/a%20b").errorCode == "bad-name")
        }
    }

    @Test("hand-off: a waiting receiver gets a session posted while it waits")
    func handoffWaits() async throws {
        // The receiver's wait is on the server's clock, which stands still: it cannot end before the
        // session comes, and the test posts once it waits (the clock holds its 10 s sleep, whatever
        // else sleeps on it), not after a pause.
        let clock = ManualServerClock.starting()
        try await Harness.withServer(serverClock: clock) { client in
            async let waiting = client.get("/handoff/lounge?wait=10")
            #expect(try await eventually { clock.waiting(for: MediaTime(seconds: 10)) == 1 })
            // A second connection: the test client's one is busy with the waiting request.
            let port = try #require(client.port)
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/handoff/lounge")
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: #"{"url":"http://x/main.m3u8","location":{"primary":3}}"#))
            let posted = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
            #expect(posted.status == .accepted)
            let response = try await waiting
            #expect(response.status == .ok)
            #expect(response.text.contains(#""primary":3"#))
        }
    }

    @Test("a group over WebSocket: welcome, state to all, pong; bad frames get an error and the connection stays")
    func group() async throws {
        let received = NIOLockedValueBox<[String]>([])
        try await Harness.withServer { client in
            try await client.ws("/group/room") { inbound, outbound, _ in
                try await outbound.write(.text("not json"))
                try await outbound.write(.text(#"{"type":"propose"}"#))
                try await outbound.write(.text(#"{"type":"join","name":"t"}"#))
                try await outbound.write(.text(#"{"type":"ping","sent":7}"#))
                try await outbound.write(
                    .text(
                        #"{"type":"propose","state":{"playing":true,"rate":1,"location":{"primary":4},"referenceTime":1}}"#
                    ))
                var count = 0
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    guard case .text(let text) = frame else { continue }
                    received.withLockedValue { $0.append(text) }
                    count += 1
                    if count == 6 { break }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        let messages = received.withLockedValue { $0 }
        #expect(messages.count == 6, "\(messages)")
        #expect(messages[0].contains(#""type":"error""#) && messages[0].contains("coordination-json"))
        #expect(messages[1].contains("[coordination-schema] state: missing"))
        #expect(messages[2].contains(#""type":"welcome""#) && messages[2].contains(#""state":null"#))
        #expect(messages[3].contains(#""type":"participants""#))
        #expect(messages[4].contains(#""type":"pong""#) && messages[4].contains(#""sent":7"#))
        #expect(messages[5].contains(#""type":"state""#) && messages[5].contains(#""revision":1"#))
    }
}
