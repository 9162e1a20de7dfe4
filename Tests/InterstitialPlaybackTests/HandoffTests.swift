import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackCoordination
import PlaybackEngine
import Testing

@Suite("Hand-off")
struct HandoffTests {
    static let files = vod(
        [
            Content.interstitial("pre", at: 0, "DURATION=4,X-ASSET-URI=\"/b.m3u8\",CUE=\"PRE,ONCE\""),
            Content.interstitial(
                "brk", at: 20, "DURATION=5,X-ASSET-URI=\"/a.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""),
        ], ads)

    /// A receiver on its own manual clock, run for `seconds` with a script.
    func receive(
        _ session: PlaybackSession, _ seconds: Double, script: [(Double, PlaybackCommand)] = []
    ) async -> Player {
        let player = Player(
            session: session, configuration: .init(primaryID: "rx", loadsSegments: false), clock: ManualClock())
        for (time, command) in script { player.schedule(command, at: .nanoseconds(s(time).nanoseconds)) }
        await player.run(until: .nanoseconds(s(seconds).nanoseconds))
        await player.shutdown()
        return player
    }

    @Test("the session carries position, rate, client events with overridden restrictions and the ONCE history")
    func restrictionsOverridden() async throws {
        try await TestOrigin.with(files: Self.files) { origin in
            // The sender plays the pre-roll, takes JUMP away from "brk" (keeping SKIP) and adds an
            // event of its own with JUMP at 40.
            var extra = InterstitialEvent(identifier: "mine", time: s(40))
            extra.assetURI = origin.url("/c.m3u8")
            extra.restrictTokens = ["JUMP"]
            extra.resumptionOffset = .time(.zero)
            let sender = await play(
                origin, "/main.m3u8", until: 10,
                script: [(5, .setRestrictions(eventID: "brk", [.skip])), (5.5, .setRate(2))])
            var session = sender.session()
            session.events?.append(extra)
            // The pre-roll resumes at 4 (its duration: no X-RESUME-OFFSET); 4 + 1.5 + 2 × 4.5 = 14.5.
            #expect(session.location == .primary(s(14.5), after: nil))
            #expect(session.rate == 2)
            #expect(session.playedOnce == ["pre"])
            // Through JSON, as it travels.
            let decoded = try PlaybackSession(json: Array(session.text.utf8))
            #expect(decoded == session)
            let receiver = await receive(decoded, 20, script: [(1, .seek(s(30))), (2, .seek(s(50)))])
            let trace = receiver.trace
            // Position and rate: 14.5 + 2 × 1 s before the first seek. No pre-roll (ONCE, played).
            #expect(trace.first(.seekRequested)?.primaryTime == s(16.5))
            #expect(trace.first(.interstitialStarted, id: "pre") == nil)
            // "brk" lost JUMP: the seek across it completes at once; "mine" has JUMP: crossing it plays it.
            #expect(trace.first(.interstitialStarted, id: "brk") == nil)
            #expect(trace.first(.seekCompleted)?["to"] == .time(s(30)))
            #expect(trace.first(.interstitialStarted, id: "mine")?.seconds == s(2))
        }
    }

    @Test("a session handed off inside an interstitial continues it there, under its restrictions")
    func insideInterstitial() async throws {
        try await TestOrigin.with(files: Self.files) { origin in
            let sender = await play(origin, "/main.m3u8", until: 22)
            let session = sender.session()
            // Pre-roll 4 s (primary resumes at 4), primary reaches 20 at 20 s, then 2 s into "brk".
            #expect(session.location == .interstitial(group: "brk", event: "brk", offset: s(2), resume: nil))
            let receiver = await receive(session, 10, script: [(1, .seekInInterstitial(s(4))), (1.5, .setRate(2))])
            #expect(receiver.trace.first(.seekRefused)?.seconds == s(1))
            #expect(receiver.trace.first(.rateRefused)?.seconds == s(1.5))
            // The rest of "brk" (3 s) plays, then primary resumes at 20.
            #expect(receiver.trace.first(.interstitialEnded, id: "brk")?.seconds == s(3))
            #expect(receiver.trace.last { $0.kind == .primaryResumed }?.primaryTime == s(20))
        }
    }
}
