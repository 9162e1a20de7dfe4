import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import InterstitialServer

/// The live viewers' sessions kept for decisions made ahead (issue 32, item 2): bounded in count
/// and bytes under a flood of new IDs, least recently seen evicted first, idle ones forgotten,
/// bad IDs ignored; recorded from playlist requests on the full path and the fast lane.
@Suite("Viewer sessions")
struct ViewerSessionsTests {
    static let channel = Target(.live, "demo")

    @Test("an over-long ID, an empty one and one with bytes outside visible ASCII are ignored")
    func badIDs() {
        let sessions = ViewerSessions(limits: .init(idBytes: 16), clock: ManualServerClock.starting())
        sessions.seen(String(repeating: "a", count: 17), on: Self.channel)
        sessions.seen("", on: Self.channel)
        sessions.seen("has space", on: Self.channel)
        sessions.seen("tab\tbed", on: Self.channel)
        sessions.seen("é-accent", on: Self.channel)
        sessions.seen(nil, on: Self.channel)
        #expect(sessions.count(Self.channel) == 0)
        sessions.seen(String(repeating: "a", count: 16), on: Self.channel)
        sessions.seen("A1-b2_c3.~!", on: Self.channel)
        #expect(sessions.count(Self.channel) == 2)
        #expect(sessions.count(Target(.live, "other")) == 0)
    }

    @Test("a session seen again is counted once; sessions are kept per channel")
    func perChannel() {
        let sessions = ViewerSessions(limits: .init(playing: .zero), clock: ManualServerClock.starting())
        for _ in 0..<3 { sessions.seen("s1", on: Self.channel) }
        sessions.seen("s2", on: Self.channel)
        sessions.seen("s1", on: Target(.live, "other"))
        #expect(sessions.count(Self.channel) == 2)
        #expect(Set(sessions.playing(Self.channel)) == ["s1", "s2"])
        #expect(sessions.playing(Target(.live, "other")) == ["s1"])
        #expect(sessions.totals.count == 3)
    }

    @Test("issue 43 item 5: a session keeps its device fields, capped and counted in its bytes; none given keeps them")
    func deviceFields() {
        let clock = ManualServerClock.starting()
        let sessions = ViewerSessions(limits: .init(idle: MediaTime(seconds: 30)), clock: clock)
        sessions.seen("s1", on: Self.channel)
        #expect(sessions.device("s1", on: Self.channel) == nil)
        #expect(sessions.totals.bytes == ViewerSessions.cost(of: "s1"))
        let long = DeviceFields(userAgent: String(repeating: "u", count: 9000), ip: "192.0.2.1")
        sessions.seen("s1", on: Self.channel, device: long)
        #expect(sessions.device("s1", on: Self.channel)?.userAgent?.utf8.count == DeviceFields.maximumBytes)
        #expect(sessions.totals.bytes == ViewerSessions.overhead + 2 + DeviceFields.maximumBytes + 9)
        // A playlist request (no device given) keeps them, and its bytes, across a generation.
        clock.advance(31)
        sessions.seen("s1", on: Self.channel)
        #expect(sessions.device("s1", on: Self.channel)?.ip == "192.0.2.1")
        #expect(sessions.totals.bytes == ViewerSessions.overhead + 2 + DeviceFields.maximumBytes + 9)
        sessions.seen("s1", on: Self.channel, device: DeviceFields(userAgent: "tv", ip: nil))
        #expect(sessions.totals.bytes == ViewerSessions.overhead + 2 + 2)
        #expect(sessions.device("s1", on: Target(.live, "other")) == nil)
    }

    @Test("a session not seen for the idle time is forgotten; one seen again is kept")
    func idleExpiry() {
        let clock = ManualServerClock.starting()
        let sessions = ViewerSessions(limits: .init(idle: MediaTime(seconds: 30), playing: .zero), clock: clock)
        sessions.seen("old", on: Self.channel)
        sessions.seen("kept", on: Self.channel)
        clock.advance(20)
        sessions.seen("kept", on: Self.channel)
        clock.advance(15)
        // "old" was last seen 35 s ago: not a session of the audience any more.
        #expect(sessions.playing(Self.channel) == ["kept"])
        clock.advance(31)
        sessions.seen("new", on: Self.channel)
        clock.advance(31)
        sessions.seen("newer", on: Self.channel)
        // Two generations later, the idle ones are gone from memory too.
        #expect(sessions.count(Self.channel) == 2)
        #expect(Set(sessions.playing(Self.channel)) == ["newer"])
    }

    @Test("issue 42: the audience forgets a flood's sessions with time, though no new session arrives")
    func floodExpiresByTime() {
        let clock = ManualServerClock.starting()
        let sessions = ViewerSessions(limits: .init(idle: MediaTime(seconds: 30), playing: .zero), clock: clock)
        for index in 0..<1000 { sessions.seen("flood-\(index)", on: Self.channel) }
        #expect(sessions.count(Self.channel) == 1000)
        clock.advance(31)
        #expect(sessions.playing(Self.channel).isEmpty)
        clock.advance(30)
        #expect(sessions.count(Self.channel) == 0, "gone within twice the idle time")
        #expect(sessions.totals.count == 0 && sessions.totals.bytes == 0 && sessions.totals.playing == 0)
    }

    @Test("a flood of 1,000,000 new IDs stays within the count and byte bounds; a session seen meanwhile stays")
    func flood() {
        let limits = ViewerSessions.Limits(playing: .zero, count: 10_000, bytes: 600_000, idBytes: 128)
        let sessions = ViewerSessions(limits: limits, clock: ManualServerClock.starting())
        var largest = (count: 0, bytes: 0)
        for index in 0..<1_000_000 {
            sessions.seen("flood-\(index)", on: Self.channel)
            if index % 1000 == 0 {
                // A real viewer polls every couple of seconds, far more often than the generations turn.
                sessions.seen("viewer", on: Self.channel)
                let totals = sessions.totals
                largest = (max(largest.count, totals.count), max(largest.bytes, totals.bytes))
            }
        }
        let totals = sessions.totals
        #expect(totals.count <= limits.count && totals.bytes <= limits.bytes)
        #expect(largest.count <= limits.count && largest.bytes <= limits.bytes, "\(largest)")
        #expect(sessions.count(Self.channel) == totals.count)
        #expect(sessions.playing(Self.channel).contains("viewer"))
        // The oldest flood IDs went first.
        #expect(!sessions.playing(Self.channel).contains("flood-0"))
        #expect(sessions.playing(Self.channel).contains("flood-999999"))
    }

    @Test("each session costs well under 1 KiB as counted")
    func cost() {
        #expect(ViewerSessions.cost(of: String(repeating: "x", count: 128)) < 1024)
        #expect(ServerLimits().prefetchSessionBytes / ServerLimits().prefetchSessions <= 1024)
    }

    @Test("the request guard hands its fast lane the session header of a playlist request, of nothing else")
    func fastLane() throws {
        let seen = NIOLockedValueBox<[String?]>([])
        let lane = FastLane(serverName: "test") { _, viewer in
            seen.withLockedValue { $0.append(viewer.session) }
            return nil
        }
        let requestGuard = RequestGuard(
            limits: RequestGuard.Limits(ServerLimits()), logger: Harness.logger, clock: ManualServerClock.starting(),
            fastLane: lane)
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHandler(requestGuard)
        requestGuard.trackerAdded()
        for (path, field) in [
            ("/demo/live/video/main.m3u8", "X-Playback-Session-ID: s-1\r\n"),
            ("/demo/live/video/seg1.m4s", "X-Playback-Session-ID: s-2\r\n"),
            ("/demo/live/video/main.m3u8", ""),
        ] {
            try channel.writeInbound(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: x\r\n\(field)\r\n"))
            while try channel.readInbound(as: ByteBuffer.self) != nil {}
            requestGuard.answerEnded()
        }
        #expect(seen.withLockedValue { $0 } == ["s-1", nil, nil])
    }

    @Test(
        "the viewer's fields are found in a request head, any case, trimmed; only for playlists and asset lists")
    func header() {
        let head = Array(
            ("GET /demo/live/video/main.m3u8 HTTP/1.1\r\nHost: x\r\nx-Playback-Session-Id:  ABC-123 \r\nAccept: */*\r\n"
                + "user-agent: UA/1 (x)\r\nX-Forwarded-For: 192.0.2.1, 198.51.100.2\r\nx-forwarded-for:203.0.113.3\r\n\r\n")
                .utf8)
        let lineEnd = head.firstIndex(of: 0x0A)! + 1
        #expect(
            FastLane.viewer(in: head, fieldsStart: lineEnd)
                == RequestViewer(
                    session: "ABC-123", userAgent: "UA/1 (x)", forwardedFor: ["192.0.2.1, 198.51.100.2", "203.0.113.3"])
        )
        let none = Array("GET /a.m3u8 HTTP/1.1\r\nHost: x\r\nX-Playback-Session: no\r\n\r\n".utf8)
        #expect(FastLane.viewer(in: none, fieldsStart: none.firstIndex(of: 0x0A)! + 1) == RequestViewer())
        #expect(FastLane.isPlaylist(ArraySlice("/demo/live/video/main.m3u8?x=1".utf8)))
        #expect(!FastLane.isPlaylist(ArraySlice("/demo/live/video/seg.m4s".utf8)))
        #expect(!FastLane.isPlaylist(ArraySlice("/x?y=.m3u8".utf8)))
        #expect(FastLane.readsViewer(ArraySlice("/demo/live/asset-list.json?_HLS_interstitial_id=a".utf8)))
        #expect(!FastLane.readsViewer(ArraySlice("/demo/live/video/seg.m4s?x=/asset-list.json".utf8)))
    }
}
