import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackCoordination
import PlaybackEngine
import Testing

/// Players in one in-process group on one manual clock.
struct Group {
    let clock = ManualClock()
    let players: [Player]
    let coordinators: [PlaybackCoordinator]
    let hub: InProcessCoordinationGroup

    /// `count` players of `path`, with primary IDs `p1`, `p2`…, joined in order.
    init(_ origin: TestOrigin, _ path: String = "/main.m3u8", count: Int) async throws {
        hub = InProcessCoordinationGroup(clock: clock)
        var players: [Player] = []
        var coordinators: [PlaybackCoordinator] = []
        for index in 1...count {
            let player = Player(
                item: PlayerItem(url: origin.url(path)),
                configuration: .init(primaryID: "p\(index)", loadsSegments: false), clock: clock)
            let coordinator = PlaybackCoordinator(player: player, transport: hub.transport())
            try await coordinator.join(name: "p\(index)")
            players.append(player)
            coordinators.append(coordinator)
        }
        self.players = players
        self.coordinators = coordinators
    }

    /// Runs every player to `seconds` on the shared clock.
    func run(to seconds: Double) async { await Player.run(players, until: .nanoseconds(s(seconds).nanoseconds)) }

    /// The largest distance between participants now, in seconds; nil when they are not at
    /// comparable places (primary and an interstitial, or different interstitials).
    var drift: Double? {
        let locations = players.map(\.coordinatedLocation)
        var worst = 0.0
        for location in locations.dropFirst() {
            guard let distance = location.distance(to: locations[0]) else { return nil }
            worst = max(worst, distance.seconds)
        }
        return worst
    }

    func shutdown() async {
        for coordinator in coordinators { await coordinator.leave() }
        for player in players { await player.shutdown() }
    }
}

@Suite("Coordinated playback")
struct CoordinationTests {
    static let files = vod(
        [
            Content.interstitial(
                "same", at: 20, "DURATION=5,X-ASSET-URI=\"/a.m3u8\",X-RESUME-OFFSET=0,X-CONTENT-MAY-VARY=\"NO\""),
            Content.interstitial("own", at: 40, "DURATION=5,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0"),
        ], ads)

    /// The files, with an asset list that depends on the session: p1 gets 5 s, the others 10 s.
    static func varying(_ path: String, _ query: [String: String]) -> TestOrigin.Reply? {
        if path == "/list.json" {
            let long = query["_HLS_primary_id"] != "p1"
            return .init(
                contentType: "application/json",
                body: Content.assetList([(long ? "/long.m3u8" : "/a.m3u8", long ? 10 : 5)]))
        }
        return TestOrigin.reply(files, path)
    }

    @Test("play, pause, rate and seek by any participant are applied by all: drift under 50 ms after every command")
    func commands() async throws {
        try await TestOrigin.with(Self.varying) { origin in
            let group = try await Group(origin, count: 3)
            let (a, b, c) = (group.players[0], group.players[1], group.players[2])
            a.play()
            var drifts: [Double?] = []
            let steps: [(Double, Player, PlaybackCommand)] = [
                (2, b, .pause), (3, c, .play), (5, a, .seek(s(12))), (6, b, .setRate(2)), (7, c, .setRate(1)),
                (9, a, .seek(s(3))), (10, c, .pause), (11.5, b, .play),
            ]
            for (time, player, command) in steps {
                await group.run(to: time)
                player.perform(command)
                await group.run(to: time + 0.5)
                drifts.append(group.drift)
            }
            // Every participant applied every command: they are paused and playing together.
            #expect(group.players.allSatisfy { $0.timeControlStatus == .playing })
            for drift in drifts { #expect(drift != nil && drift! < 0.05, "drift \(String(describing: drift))") }
            // a's seek to 3 at 9 s and b's play at 11.5 s: 3 + (10 − 9) + 0.5 = 4.5.
            #expect(a.currentTime == s(4.5))
            #expect(group.coordinators[0].groupState?.revision ?? 0 >= steps.count)
            await group.shutdown()
        }
    }

    @Test("through an event whose content may not vary the group stays coordinated, seeks out of it included")
    func sameContent() async throws {
        try await TestOrigin.with(Self.varying) { origin in
            let group = try await Group(origin, count: 2)
            let (a, b) = (group.players[0], group.players[1])
            a.play()
            await group.run(to: 21)
            #expect(group.players.allSatisfy { $0.reasonForWaitingToPlay == .interstitialEvent })
            #expect(group.drift == 0)
            b.pause()
            await group.run(to: 22)
            #expect(a.timeControlStatus == .paused)
            a.perform(.seekInInterstitial(s(0.5)))
            a.play()
            await group.run(to: 22.5)
            #expect(b.coordinatedLocation == .interstitial(group: "same", event: "same", offset: s(1), resume: nil))
            #expect(group.drift == 0)
            // A seek out of the event by one participant takes all of them out.
            b.seek(to: s(30))
            await group.run(to: 23)
            #expect(group.players.allSatisfy { $0.currentTime == s(30.5) && $0.reasonForWaitingToPlay == nil })
            #expect(group.drift == 0)
            await group.shutdown()
        }
    }

    @Test("through an event whose content may vary each plays its own, and the group resumes together")
    func ownContent() async throws {
        try await TestOrigin.with(Self.varying) { origin in
            let group = try await Group(origin, count: 2)
            let (a, b) = (group.players[0], group.players[1])
            a.play()
            // "same" plays 20–25 s on the clock, so primary reaches "own" (40) at 45 s.
            await group.run(to: 52)
            // p1's break is 5 s, p2's 10 s: p1 finished at 50 s and waits for p2.
            #expect(a.reasonForWaitingToPlay == .waitingForCoordinatedPlayback)
            #expect(a.timeControlStatus == .waitingToPlayAtSpecifiedRate)
            #expect(a.currentTime == s(40))
            #expect(b.reasonForWaitingToPlay == .interstitialEvent)
            // Commands inside one's own break stay local: p2 goes back to 1 s, so it ends at 61 s.
            b.perform(.seekInInterstitial(s(1)))
            #expect(a.coordinatedLocation == .primary(s(40), after: "own"))
            await group.run(to: 70)
            for player in [a, b] {
                let released = player.trace.last { $0.kind == .coordinated }
                #expect(released?.seconds == s(61), "\(player.trace.lines([.primaryResumed, .coordinated]))")
                #expect(player.currentTime == s(49))
            }
            #expect(a.trace.first(.waitingForGroup) != nil)
            #expect(group.drift == 0)
            await group.shutdown()
        }
    }

    @Test("two participants that start at once, each with its own pre-roll, end up together: none waits forever")
    func startTogether() async throws {
        let files = vod(
            [Content.interstitial("pre", at: 0, "CUE=\"PRE\",X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")], ads)
        try await TestOrigin.with({ path, query in
            path == "/list.json" ? Self.varying(path, query) : TestOrigin.reply(files, path)
        }) { origin in
            let group = try await Group(origin, count: 2)
            // Both propose a start at the same moment (as `hlsi play --group-size` does once the group
            // is full): the later proposal may take the other out of its pre-roll.
            for player in group.players { player.play() }
            await group.run(to: 30)
            for player in group.players {
                #expect(
                    player.reasonForWaitingToPlay != .waitingForCoordinatedPlayback,
                    "\(player.trace.lines([.interstitialStarted, .interstitialEnded, .waitingForGroup, .coordinated]))")
                #expect(player.timeControlStatus == .playing)
            }
            #expect(group.drift == 0)
            await group.shutdown()
        }
    }

    @Test("a participant that joins late starts where the group is")
    func lateJoiner() async throws {
        try await TestOrigin.with(Self.varying) { origin in
            let group = try await Group(origin, count: 1)
            group.players[0].play()
            await group.run(to: 8)
            let late = Player(
                item: PlayerItem(url: origin.url("/main.m3u8")),
                configuration: .init(primaryID: "late", loadsSegments: false), clock: group.clock)
            let coordinator = PlaybackCoordinator(player: late, transport: group.hub.transport())
            try await coordinator.join(name: "late")
            await Player.run(group.players + [late], until: .nanoseconds(s(10).nanoseconds))
            #expect(late.currentTime == group.players[0].currentTime)
            #expect(group.hub.participants.count == 2)
            await coordinator.leave()
            await late.shutdown()
            await group.shutdown()
        }
    }
}
