import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

/// Issue 42, items 7 and 8: flattening an upstream's schedules is bounded in total, its documents
/// are fetched concurrently, and a document that failed is not fetched again on every render.
@Suite("Schedule flattening bounds")
struct ScheduleFlatteningBoundsTests {
    /// An upstream VOD media playlist whose schedule tags name `documents` (ID `s<i>`, X-URI the document).
    static func playlist(_ documents: [String], segments: Int = 15) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-03-01T10:00:00.000Z\n"
        for (index, document) in documents.enumerated() {
            text +=
                #"#EXT-X-DATERANGE:ID="s\#(index)",CLASS="com.apple.hls.daterange-schedule",START-DATE="2026-03-01T10:00:00.000Z",X-URI="\#(document)""#
            text += "\n"
        }
        for index in 0..<segments { text += "#EXTINF:4.0,\nseg\(index).ts\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// A schedule document of `count` interstitials (IDs `<prefix><i>`) within the first 50 s.
    static func document(_ count: Int, prefix: String = "e") -> String {
        let entries = (0..<count).map { index in
            #"{"ID":"\#(prefix)\#(index)","CLASS":"com.apple.hls.interstitial","X-SCHEDULE-OFFSET":\#(index % 50),"DURATION":1,"X-ASSET-URI":"https://ads.example/a/master.m3u8"}"#
        }
        return #"{"DATERANGES":["# + entries.joined(separator: ",") + "]}"
    }

    /// Runs `body` with a server proxying an upstream VOD at `/up/vod` (entry `main.m3u8`, answered
    /// with `playlist`) that flattens schedules, the upstream answering `/up/NAME` with `documents[NAME]`.
    static func withFlattening(
        playlist: String, documents: [String: TestOrigin.Answer], clock: TestClock? = nil,
        serverClock: ManualServerClock? = nil, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol, TestOrigin) async throws -> Void
    ) async throws {
        try await TestOrigin.withOrigin(routes: { path in
            if path == "/up/main.m3u8" { return .init(body: Array(playlist.utf8)) }
            if path.hasPrefix("/up/"), let answer = documents[String(path.dropFirst(4))] { return answer }
            return .init(status: .notFound, contentType: "text/plain", body: Array("no".utf8))
        }) { origin in
            var configuration = try Harness.demo()
            configuration.allowedOrigins = [origin.origin]
            var content = ServerConfiguration.Content(
                id: "up", path: "/up/vod", origin: .upstream(origin.origin + "/up/main.m3u8"), entry: "main.m3u8")
            content.flattensSchedules = true
            configuration.vod.append(content)
            configure(&configuration)
            try await Harness.withServer(configuration, clock: clock, serverClock: serverClock) { client in
                try await body(client, origin)
            }
        }
    }

    static func json(_ text: String) -> TestOrigin.Answer {
        .init(contentType: "application/json", body: Array(text.utf8))
    }

    @Test("More than 16 schedule tags: 502, and no document is fetched")
    func tooManyScheduleTags() async throws {
        let names = (0..<17).map { _ in "d.json" }
        try await Self.withFlattening(
            playlist: Self.playlist(names), documents: ["d.json": Self.json(Self.document(2))]
        ) {
            client, origin in
            let response = try await client.get("/up/vod/main.m3u8")
            #expect(response.status == .badGateway, "\(response.text.prefix(300))")
            #expect(response.errorCode == "upstream-too-large")
            #expect(response.text.contains("at most 16"))
            #expect(origin.count("/up/d.json") == 0)
        }
    }

    @Test("Schedules that flatten into more than 1,000 date ranges in all: 502")
    func tooManyEntries() async throws {
        // Two 600-entry documents: 1,200 date ranges (each within the document limit).
        try await Self.withFlattening(
            playlist: Self.playlist(["a.json", "b.json"]),
            documents: [
                "a.json": Self.json(Self.document(600, prefix: "a")),
                "b.json": Self.json(Self.document(600, prefix: "b")),
            ]
        ) { client, _ in
            let response = try await client.get("/up/vod/main.m3u8")
            #expect(response.status == .badGateway, "\(response.text.prefix(300))")
            #expect(response.errorCode == "upstream-too-large")
            #expect(response.text.contains("1200 date ranges"), "\(response.text)")
        }
        // 16 documents of 60 entries (960): served.
        let names = (0..<16).map { "d\($0).json" }
        try await Self.withFlattening(
            playlist: Self.playlist(names),
            documents: Dictionary(
                uniqueKeysWithValues: names.enumerated().map { ($1, Self.json(Self.document(60, prefix: "d\($0)-"))) })
        ) { client, _ in
            let response = try await client.get("/up/vod/main.m3u8")
            #expect(response.status == .ok, "\(response.text.prefix(300))")
            #expect(dateRangeLines(response.text).count == 960)
        }
    }

    @Test("A flattened playlist larger than upstreamPlaylistBytes: 502")
    func tooManyBytes() async throws {
        try await Self.withFlattening(
            // A 2.6 KB playlist and a 2.3 KB document, each within the 4 KiB, flatten into 5 KB.
            playlist: Self.playlist(["d.json"], segments: 100), documents: ["d.json": Self.json(Self.document(15))],
            configure: { $0.limits.upstreamPlaylistBytes = 4096 }
        ) { client, _ in
            let response = try await client.get("/up/vod/main.m3u8")
            #expect(response.status == .badGateway, "\(response.text.prefix(300))")
            #expect(response.errorCode == "upstream-too-large")
            #expect(response.text.contains("with its schedules flattened"), "\(response.text)")
        }
    }

    @Test("A playlist's documents are fetched at once, not one after another")
    func concurrentFetches() async throws {
        let stalled = TestOrigin.Answer(
            contentType: "application/json", body: Array(Self.document(1).utf8), stallAfter: 5)
        try await Self.withFlattening(
            playlist: Self.playlist(["a.json", "b.json", "c.json"]),
            documents: ["a.json": stalled, "b.json": stalled, "c.json": stalled],
            serverClock: ManualServerClock.starting(),
            configure: { $0.limits.upstreamTimeout = MediaTime(seconds: 120) }
        ) { client, origin in
            let port = try #require(client.port)
            let render = Task { try await get(port: port, "/up/vod/main.m3u8") }
            // All three are asked while none has answered. One after another, the second would wait
            // for the first's stalled body, whose timeout is on the server's clock, which stays
            // still: it would never be asked (the bound only keeps that failure from hanging).
            #expect(
                try await eventually {
                    ["a", "b", "c"].allSatisfy { origin.count("/up/\($0).json") == 1 }
                })
            origin.dropConnections()
            let response = try await render.value
            #expect(response.status == 200, "the documents failed: the playlist is served without them")
            #expect(dateRangeLines(response.body).isEmpty)
        }
    }

    @Test("A document that failed is not fetched again for 30 s on the server's clock")
    func failureMemory() async throws {
        let clock = TestClock(DateTime(iso8601: "2026-03-01T12:00:00.000Z")!)
        try await Self.withFlattening(
            playlist: Self.playlist(["missing.json"]), documents: [:], clock: clock,
            // Every request renders again (no sharing of answers).
            configure: { $0.limits.upstreamPlaylistReuse = MediaTime(seconds: 0) }
        ) { client, origin in
            @Sendable func render() async throws -> Int { Int(try await client.get("/up/vod/main.m3u8").status.code) }
            let first = try await render()
            #expect(first == 200)
            #expect(origin.count("/up/missing.json") == 1)
            for _ in 0..<3 {
                let again = try await render()
                #expect(again == 200)
            }
            #expect(origin.count("/up/missing.json") == 1, "remembered as failed")
            clock.advance(29)
            let before = try await render()
            #expect(before == 200)
            #expect(origin.count("/up/missing.json") == 1, "still remembered")
            clock.advance(2)
            let after = try await render()
            #expect(after == 200)
            #expect(origin.count("/up/missing.json") == 2, "tried again after 30 s")
        }
    }
}
