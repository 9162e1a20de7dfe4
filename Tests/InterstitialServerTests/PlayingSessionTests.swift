import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// Issue 43, item 7: the ad server's budget is spent ahead of a break only on viewers the server has
/// seen play (``ViewerActivity``): a session whose requests span `prefetchPlayingSpan`, as a
/// player's reloads do. A made-up ID named on one request is in the audience, but takes no
/// decision ahead, neither for a known break nor a standing one.
@Suite("Playing sessions")
struct PlayingSessionTests {
    static let channel = Target(.live, "demo")

    /// A pattern of requests (seconds from the first) and whether the session then plays.
    struct Pattern: Sendable, CustomTestStringConvertible {
        var name: String
        var requests: [Double]
        var span: Double = 6
        var playing: Bool
        var testDescription: String { name }
    }

    static let patterns: [Pattern] = [
        Pattern(name: "one request", requests: [0], playing: false),
        Pattern(name: "the multivariant and media playlists at once", requests: [0, 0.1], playing: false),
        Pattern(name: "two within a target duration", requests: [0, 3], playing: false),
        Pattern(name: "three within a target duration", requests: [0, 2, 4], playing: false),
        Pattern(name: "two spanning one target duration", requests: [0, 6], playing: true),
        Pattern(name: "a player reloading every 2 s, the fourth request", requests: [0, 2, 4, 6], playing: true),
        Pattern(name: "a reload 29 s on, within the idle time", requests: [0, 29], playing: true),
        Pattern(name: "a request after the idle time starts a new run", requests: [0, 6, 36], playing: false),
        Pattern(name: "the new run plays once it spans the span", requests: [0, 6, 36, 42], playing: true),
        Pattern(name: "two requests 30 s apart: a new run, not a span", requests: [0, 30], playing: false),
        Pattern(name: "a request read from the clock before the last keeps it", requests: [0, 6, 5], playing: true),
        Pattern(name: "a span of 0: one request plays", requests: [0], span: 0, playing: true),
        Pattern(name: "a span of 10 s: two reloads of a 5 s player", requests: [0, 5, 10], span: 10, playing: true),
        Pattern(name: "a span of 10 s: one reload of a 5 s player", requests: [0, 5], span: 10, playing: false),
    ]

    @Test("the rule over a table of request patterns", arguments: patterns)
    func rule(_ pattern: Pattern) throws {
        let base = MediaTime(seconds: 1000)
        let times = pattern.requests.map { base + MediaTime(seconds: $0) }
        let first = try #require(times.first)
        var activity = ViewerActivity(at: first)
        for time in times.dropFirst() {
            activity = activity.requested(at: time, idle: MediaTime(seconds: 30))
        }
        #expect(activity.isPlaying(span: MediaTime(seconds: pattern.span)) == pattern.playing, "\(activity)")
    }

    @Test(
        "the limit prefetchPlayingSpan: 6 s by default, 0 to 600 s, anything else refused at its path",
        arguments: [("0", 0.0), ("12.5", 12.5), ("600", 600), ("-1", nil), ("601", nil)] as [(String, Double?)])
    func setting(_ text: String, _ seconds: Double?) throws {
        #expect(ServerLimits().prefetchPlayingSpan == MediaTime(seconds: 6))
        let value = try JSONValue.parse(Array(#"{"prefetchPlayingSpan": \#(text)}"#.utf8), code: .json)
        if let seconds {
            #expect(try ServerLimits.decode(value, path: "limits").prefetchPlayingSpan == MediaTime(seconds: seconds))
        } else {
            let error = #expect(throws: APIError.self) { try ServerLimits.decode(value, path: "limits") }
            #expect(error?.path == "limits.prefetchPlayingSpan", "\(String(describing: error))")
        }
    }

    @Test("the sessions kept decide ahead only for the playing ones; the gauge counts them across generations")
    func sessions() {
        let clock = ManualServerClock.starting()
        let sessions = ViewerSessions(
            limits: .init(idle: MediaTime(seconds: 30), playing: MediaTime(seconds: 6)), clock: clock)
        for index in 0..<100 { sessions.seen("flood-\(index)", on: Self.channel) }
        for _ in 0..<3 {
            sessions.seen("viewer", on: Self.channel)
            #expect(sessions.playing(Self.channel).isEmpty)
            clock.advance(2)
        }
        sessions.seen("viewer", on: Self.channel)
        #expect(sessions.playing(Self.channel) == ["viewer"])
        #expect(sessions.count(Self.channel) == 101, "the flood is in the audience")
        #expect(sessions.totals.playing == 1)
        // A new generation: the viewer moves into it, still playing, counted once.
        clock.advance(25)
        sessions.seen("viewer", on: Self.channel)
        #expect(sessions.playing(Self.channel) == ["viewer"])
        #expect(sessions.totals.playing == 1 && sessions.totals.count == 101)
        // Idle past the idle time: no longer decided ahead; seen again, it starts a new run.
        clock.advance(31)
        #expect(sessions.playing(Self.channel).isEmpty)
        sessions.seen("viewer", on: Self.channel)
        #expect(sessions.playing(Self.channel).isEmpty)
        #expect(sessions.totals.playing == 0)
        clock.advance(6)
        sessions.seen("viewer", on: Self.channel)
        #expect(sessions.playing(Self.channel) == ["viewer"])
        #expect(sessions.totals.playing == 1 && sessions.totals.count == 1, "the flood is forgotten")
    }

    @Test(
        "end to end: a flood of one-request sessions takes no decision ahead, for a known break or a standing one; sessions that reload as players do are decided for both"
    )
    func floodTakesNoDecisionAhead() async throws {
        try await PrefetchTests.withVASTServer { adServer, demo in
            var configuration = demo
            configuration.live[0].adServer = try AdServerSettings.decode(
                .object([
                    "vast": .string(adServer.origin + "/vast?sid=[SESSIONID]&brk=[BREAKID]&cb=[CACHEBUSTING]"),
                    "prefetch": .object(["expectedBreak": .number(30)]),
                ]))
            // On the server's clock: the players reload 3 s and 6 s after their first request (the
            // flood names each ID once, or twice 3 s apart); then the break is made 25 s on and the
            // clock ticks 3 s into its retrieval window, and stops there.
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration, serverClock: clock) { client in
                let players = ["p1", "p2"]
                let flood = (0..<60).map { "flood-\($0)" }
                func get(_ session: String) async throws {
                    let playlist = try await client.get(
                        "/demo/live/video/main.m3u8", headers: [Routes.sessionField: session])
                    #expect(playlist.status == .ok)
                }
                for session in players + flood { try await get(session) }
                clock.advance(3)
                for session in players + flood.prefix(30) { try await get(session) }
                clock.advance(3)
                for session in players { try await get(session) }
                let start = clock.wall + MediaTime(seconds: 25)
                let created = try await client.admin(
                    .post, "breaks", #"{"id":"herd","target":"live/demo","date":"\#(start.iso8601)","duration":10}"#)
                #expect(created.status == .created, "\(created.text)")
                let ticker = tick(clock, to: clock.now + MediaTime(seconds: 3))
                defer { ticker.cancel() }
                func asked(_ session: String, _ breakID: String) -> Int {
                    adServer.requests("/vast").filter { $0.contains("sid=\(session)&brk=\(breakID)") }.count
                }
                #expect(
                    await PrefetchTests.until {
                        players.allSatisfy { asked($0, "herd&") == 1 && asked($0, "standing-") == 1 }
                    }, "\(adServer.requests("/vast"))")
                #expect(
                    try await PrefetchTests.until {
                        try await AdServerProtectionTests.metric(
                            client, "hlsi_ad_decisions_total{target=\"live/demo\",path=\"prefetched\"}") == "4"
                    })
                await ticker.value
                // The flood: in the audience, not playing, and the ad server never asked for it.
                #expect(
                    try await PrefetchTests.until {
                        try await AdServerProtectionTests.metric(client, "hlsi_viewer_sessions") == "62.0"
                    })
                #expect(try await AdServerProtectionTests.metric(client, "hlsi_viewer_sessions_playing") == "2.0")
                #expect(
                    !adServer.requests("/vast").contains { $0.contains("sid=flood-") }, "\(adServer.requests("/vast"))")
                #expect(adServer.requests("/vast").count == 4)
            }
        }
    }
}
