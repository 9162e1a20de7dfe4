import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination
import Testing

func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

@Suite("Coordination protocol")
struct CoordinationGroupTests {
    static let state = GroupState(
        originator: "p1", playing: true, rate: 1.5,
        location: .interstitial(group: "brk", event: "ad-2", offset: s(1.25), resume: s(40)), referenceTime: 123)

    @Test(
        "messages round-trip through their JSON text",
        arguments: [
            CoordinationMessage.join(name: "tv"), .propose(state), .state(state), .suspend(group: "brk"),
            .arrive(group: "brk", resume: s(20)), .ping(sent: 5),
            .welcome(participant: "p2", state: nil, participants: ["p1", "p2"]),
            .welcome(participant: "p2", state: state, participants: ["p2"]), .release(group: "brk", state: state),
            .participants(["p1"]), .pong(sent: 5, time: 9), .error("no"),
        ])
    func roundTrip(_ message: CoordinationMessage) throws {
        #expect(try CoordinationMessage(text: message.text) == message)
    }

    @Test(
        "bad messages are refused with the JSON path and the reason",
        arguments: [
            ("{", "coordination-json", ""),
            (##"{"type":"dance"}"##, "coordination-schema", "type"),
            (
                ##"{"type":"propose","state":{"playing":true,"location":{"primary":1},"referenceTime":1,"rate":-1}}"##,
                "coordination-schema", "state.rate"
            ),
            (
                ##"{"type":"propose","state":{"playing":true,"location":{"primary":"x"},"referenceTime":1}}"##,
                "coordination-schema", "state.location.primary"
            ),
            (##"{"type":"arrive","group":"g"}"##, "coordination-schema", "resume"),
            (##"{"type":"join","name":"a","extra":1}"##, "coordination-schema", "extra"),
        ])
    func badMessages(_ text: String, _ code: String, _ path: String) {
        #expect {
            try CoordinationMessage(text: text)
        } throws: { error in
            guard let error = error as? CoordinationError else { return false }
            return error.code.rawValue == code && error.path == path
        }
    }

    @Test("proposals get increasing revisions and go to everyone")
    func proposals() {
        var group = CoordinationGroup(name: "room")
        let (a, welcome) = group.join(name: "a")
        #expect(welcome.first == .send(to: a, .welcome(participant: a, state: nil, participants: [a])))
        let (b, _) = group.join(name: "b")
        var proposed = Self.state
        proposed.originator = "forged"
        let outputs = group.receive(.propose(proposed), from: b, now: 10)
        guard case .broadcast(.state(let accepted))? = outputs.first else {
            Issue.record("expected a broadcast state, got \(outputs)")
            return
        }
        #expect(accepted.revision == 1 && accepted.originator == b)
        #expect(group.receive(.propose(proposed), from: a, now: 11).count == 1)
        #expect(group.state?.revision == 2)
        #expect(
            group.receive(.state(proposed), from: a, now: 12) == [
                .send(to: a, .error("a participant cannot send a state message"))
            ])
        #expect(group.receive(.ping(sent: 3), from: a, now: 12) == [.send(to: a, .pong(sent: 3, time: 12))])
    }

    @Test("the barrier of an event played alone releases everyone at the earliest resume point once all arrived")
    func barrier() {
        var group = CoordinationGroup(name: "room")
        let a = group.join(name: "a").id
        let b = group.join(name: "b").id
        _ = group.receive(.propose(Self.state), from: a, now: 1)
        _ = group.receive(.suspend(group: "brk"), from: a, now: 2)
        _ = group.receive(.suspend(group: "brk"), from: b, now: 2)
        #expect(group.receive(.arrive(group: "brk", resume: s(30)), from: a, now: 5).isEmpty)
        let outputs = group.receive(.arrive(group: "brk", resume: s(29.5)), from: b, now: 9)
        guard case .broadcast(.release("brk", let released))? = outputs.first else {
            Issue.record("expected a release, got \(outputs)")
            return
        }
        #expect(released.location == .primary(s(29.5), after: "brk"))
        #expect(released.referenceTime == 9 && released.rate == 1.5 && released.playing)
    }

    @Test(
        "a participant that played an event alone (a late pre-roll) rejoins the group's state; leaving completes a barrier"
    )
    func outOfStepAndLeave() {
        var group = CoordinationGroup(name: "room")
        let a = group.join(name: "a").id
        _ = group.receive(.propose(Self.state), from: a, now: 1)
        let late = group.join(name: "late").id
        _ = group.receive(.suspend(group: "pre"), from: late, now: 2)
        let current = group.state!
        #expect(
            group.receive(.arrive(group: "pre", resume: s(0)), from: late, now: 3) == [
                .send(to: late, .release(group: "pre", state: current))
            ])
        #expect(group.state == current)
        // Both in an event; one arrives, the other leaves: the barrier completes.
        _ = group.receive(.suspend(group: "brk"), from: a, now: 4)
        _ = group.receive(.suspend(group: "brk"), from: late, now: 4)
        #expect(group.receive(.arrive(group: "brk", resume: s(12)), from: late, now: 5).isEmpty)
        let outputs = group.leave(a, now: 6)
        #expect(outputs.contains { if case .broadcast(.release("brk", _)) = $0 { true } else { false } })
        #expect(group.participants == [late])
    }

    @Test("sessions round-trip through JSON, events as EXT-X-DATERANGE tags with their times and asset lists")
    func sessionJSON() throws {
        var event = InterstitialEvent(identifier: "mine", time: s(40))
        event.assetList = AssetList(assets: [.init(uri: "https://ads/a.m3u8", duration: s(5))])
        event.restrictTokens = ["SKIP"]
        let session = PlaybackSession(
            url: "https://x/main.m3u8", location: .primary(s(12), after: "brk"), playing: false, rate: 2,
            events: [event], automaticallyHandlesInterstitialEvents: false, playedOnce: ["pre"],
            tracks: TrackSelection(
                audio: MediaOption(
                    language: "fr", characteristics: ["public.accessibility.describes-video"], name: "FR AD")))
        let decoded = try PlaybackSession(json: Array(session.text.utf8))
        #expect(decoded == session)
        #expect(decoded.events?.first?.restrictions == [.skip])
        #expect(session.text.contains(##""tag":"#EXT-X-DATERANGE:ID=\"mine\""##))
    }

    @Test("an event tag with 100,000 repeated attributes is refused in one pass")
    func manyAttributes() {
        let tag =
            "#EXT-X-DATERANGE:ID=\\\"a\\\",CLASS=\\\"com.apple.hls.interstitial\\\""
            + String(repeating: ",X-A=1", count: 100_000)
        let text = ##"{"url":"u","location":{"primary":1},"events":[{"tag":""## + tag + ##"","time":1}]}"##
        #expect {
            try PlaybackSession(json: Array(text.utf8))
        } throws: { error in
            (error as? CoordinationError)?.path == "events[0].tag"
                && (error as? CoordinationError)?.message.contains("100000 times") == true
        }
    }

    @Test(
        "bad sessions name the path",
        arguments: [
            (##"{"location":{"primary":1}}"##, "url"),
            (
                ##"{"url":"u","location":{"primary":1},"events":[{"tag":"#EXT-X-DATERANGE:ID=\"a\""}]}"##,
                "events[0].tag"
            ),
            (
                ##"{"url":"u","location":{"primary":1},"events":[{"tag":"#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\""}]}"##,
                "events[0].time"
            ),
            (
                ##"{"url":"u","location":{"primary":1},"events":[{"tag":"#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\"","time":1,"assetList":{"ASSETS":[{"URI":"a"}]}}]}"##,
                "events[0].assetList.ASSETS[0].DURATION"
            ),
            (##"{"url":"u","location":{"primary":1},"tracks":{"audio":{"language":3}}}"##, "tracks.audio.language"),
            (##"{"url":"u","location":{"group":"g","event":"e"}}"##, "location.offset"),
            // Issue 14: a quote inside a quoted-string, and a time beyond the user bound.
            (
                ##"{"url":"u","location":{"primary":1},"events":[{"tag":"#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\",X-E=\"a\"b\"","time":1}]}"##,
                "events[0].tag"
            ),
            (
                ##"{"url":"u","location":{"primary":1},"events":[{"tag":"#EXT-X-DATERANGE:ID=\"a\",CLASS=\"com.apple.hls.interstitial\"","time":1e300}]}"##,
                "events[0].time"
            ),
            (##"{"url":"u","location":{"primary":8999999999}}"##, "location.primary"),
        ])
    func badSessions(_ text: String, _ path: String) {
        #expect {
            try PlaybackSession(json: Array(text.utf8))
        } throws: { error in
            (error as? CoordinationError)?.path == path
        }
    }
}
