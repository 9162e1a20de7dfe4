import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The one decision machine (issue 43, item 4), driven directly with the time given: every input in
/// every state, the deadlines of the lookups, the claim and the polling, and decisions made ahead.
@Suite("Decision machine")
struct DecisionMachineTests {
    typealias Machine = DecisionMachine
    static let key = DecisionKey(target: Target(.live, "demo"), breakID: "b1", session: "s1")
    static let t0 = MediaTime(seconds: 1000)
    static let deadline = MediaTime(seconds: 2)

    static func ms(_ value: Int64) -> MediaTime { MediaTime(nanoseconds: value * 1_000_000) }
    static func at(_ milliseconds: Int64) -> MediaTime { t0 + ms(milliseconds) }

    /// A decision with one ad of `seconds`.
    static func decision(_ seconds: Int = 10, uri: String = "https://ads/a.m3u8") -> PreparedDecision {
        var prepared = PreparedDecision()
        prepared.entries = [
            .init(
                uri: uri, duration: MediaTime(seconds: seconds),
                slot: .init(start: .zero, duration: MediaTime(seconds: seconds)))
        ]
        return prepared
    }

    /// The viewer's standing decisions, newest first.
    static let standing = [
        DecisionKey(target: Target(.live, "demo"), breakID: "standing-2", session: "s1"),
        DecisionKey(target: Target(.live, "demo"), breakID: "standing-1", session: "s1"),
    ]

    static func live(
        key: DecisionKey? = key, once: Bool = false, hasURL: Bool = true, follows: Bool = true, shared: Bool = true,
        standing: [DecisionKey] = []
    ) -> Machine {
        Machine(
            .live(
                .init(
                    key: key, once: once, hasURL: hasURL, follows: follows, sharedLedger: shared, standing: standing)),
            deadline: deadline)
    }

    /// A machine looking up the viewer's standing decisions (nothing made ahead found).
    static func lookingUpStanding(shared: Bool = true) -> Machine {
        var machine = live(shared: shared, standing: standing)
        _ = machine.start(now: t0)
        _ = machine.counted(0, now: t0)
        _ = machine.kept(nil, now: t0)
        if shared { _ = machine.published(nil, now: t0) }
        return machine
    }

    @Test("nothing made ahead: the standing decisions are looked up, after the ledger, before the claim")
    func standingLookup() {
        var machine = Self.live(standing: Self.standing)
        _ = machine.start(now: Self.t0)
        _ = machine.counted(0, now: Self.t0)
        #expect(machine.kept(nil, now: Self.t0) == [.lookUpLedger(Self.key, within: Self.ms(500))])
        #expect(machine.published(nil, now: Self.at(10)) == [.lookUpStanding(Self.standing)])
        #expect(machine.state == .lookingUpStanding(Self.key))
        // Without a shared ledger, straight after the kept lookup.
        #expect(Self.lookingUpStanding(shared: false).state == .lookingUpStanding(Self.key))
        // A later attempt never takes one.
        var later = Self.live(standing: Self.standing)
        _ = later.start(now: Self.t0)
        #expect(later.counted(1, now: Self.t0) == [.ask(deciding: nil, deadline: Self.deadline)])
    }

    @Test("a standing decision found is consumed and answered (R30); a shared tag's is not consumed; none: the claim")
    func standingFound() {
        var machine = Self.lookingUpStanding()
        let found = (key: Self.standing[1], decision: Self.decision())
        #expect(
            machine.standing(found, now: Self.at(20))
                == [.consume(Self.standing[1]), .answer(Self.decision(), .standing)])
        #expect(machine.state == .done)
        var shared = Self.lookingUpStanding()
        let everyone = DecisionKey(target: Target(.live, "demo"), breakID: "standing-2", session: "")
        #expect(
            shared.standing((everyone, Self.decision()), now: Self.at(20)) == [.answer(Self.decision(), .standing)])
        var none = Self.lookingUpStanding()
        #expect(
            none.standing(nil, now: Self.at(20)) == [.claim(Self.key, lifetime: Self.ms(4000), within: Self.ms(1000))])
        var alone = Self.lookingUpStanding(shared: false)
        #expect(alone.standing(nil, now: Self.at(20)) == [.ask(deciding: Self.key, deadline: Self.ms(1980))])
    }

    // MARK: A viewer's request

    @Test("start counts the attempt; a second start does nothing")
    func start() {
        var machine = Self.live()
        #expect(machine.start(now: Self.t0) == [.countAttempt])
        #expect(machine.state == .counting)
        #expect(machine.due == Self.t0 + Self.deadline)
        #expect(machine.start(now: Self.at(10)).isEmpty)
    }

    @Test(
        "the counted attempt: played once, no ad tag, a later attempt, no key, or the kept decision looked up",
        arguments: [
            (once: true, hasURL: true, attempt: 1, key: true, expected: "nothing:playedOnce"),
            (once: true, hasURL: false, attempt: 1, key: true, expected: "nothing:playedOnce"),
            (once: false, hasURL: false, attempt: 0, key: true, expected: "nothing:noAdTag"),
            (once: true, hasURL: true, attempt: 0, key: true, expected: "lookUpKept"),
            (once: false, hasURL: true, attempt: 2, key: true, expected: "ask"),
            (once: false, hasURL: true, attempt: 0, key: false, expected: "ask"),
        ])
    func counted(once: Bool, hasURL: Bool, attempt: Int, key: Bool, expected: String) {
        var machine = Self.live(key: key ? Self.key : nil, once: once, hasURL: hasURL)
        _ = machine.start(now: Self.t0)
        let actions = machine.counted(attempt, now: Self.at(100))
        switch expected {
        case "nothing:playedOnce":
            #expect(actions == [.nothing(.playedOnce)])
            #expect(machine.state == .done)
        case "nothing:noAdTag":
            #expect(actions == [.nothing(.noAdTag)])
            #expect(machine.state == .done)
        case "lookUpKept":
            // Half the deadline, not past the due time.
            #expect(actions == [.lookUpKept(Self.key, waitingUpTo: Self.ms(1000))])
            #expect(machine.state == .lookingUpKept(Self.key))
        default:
            // Not a first attempt (or nothing decided ahead): asked at once, nothing kept.
            #expect(actions == [.ask(deciding: nil, deadline: Self.ms(1900))])
            #expect(machine.state == .asking(keeping: nil))
        }
    }

    @Test("the kept lookup waits no longer than what is left of the deadline")
    func keptLookupBounded() {
        var machine = Self.live()
        _ = machine.start(now: Self.t0)
        #expect(machine.counted(0, now: Self.at(1500)) == [.lookUpKept(Self.key, waitingUpTo: Self.ms(500))])
        var late = Self.live()
        _ = late.start(now: Self.t0)
        #expect(late.counted(0, now: Self.at(2500)) == [.lookUpKept(Self.key, waitingUpTo: .zero)])
    }

    @Test("a kept decision is answered as made ahead")
    func keptFound() {
        var machine = Self.live()
        _ = machine.start(now: Self.t0)
        _ = machine.counted(0, now: Self.t0)
        #expect(machine.kept(Self.decision(), now: Self.at(10)) == [.answer(Self.decision(), .prefetch)])
        #expect(machine.state == .done)
    }

    @Test(
        "none kept: the ledger (followed, shared: nothing is published for a break not followed), or the ad server",
        arguments: [
            (follows: true, shared: true, expected: "ledger"),
            (follows: false, shared: true, expected: "ask"),
            (follows: true, shared: false, expected: "ask-keeping"),
            (follows: false, shared: false, expected: "ask"),
        ])
    func keptMissing(follows: Bool, shared: Bool, expected: String) {
        var machine = Self.live(follows: follows, shared: shared)
        _ = machine.start(now: Self.t0)
        _ = machine.counted(0, now: Self.t0)
        let actions = machine.kept(nil, now: Self.at(100))
        switch expected {
        case "ledger":
            #expect(actions == [.lookUpLedger(Self.key, within: Self.ms(500))])
            #expect(machine.state == .lookingUpLedger(Self.key))
        case "ask-keeping":
            #expect(actions == [.ask(deciding: Self.key, deadline: Self.ms(1900))])
            #expect(machine.state == .asking(keeping: Self.key))
        default:
            #expect(actions == [.ask(deciding: nil, deadline: Self.ms(1900))])
        }
    }

    @Test("the ledger's decision is answered; none: a followed break is claimed, another asked")
    func ledger() {
        var found = Self.live()
        _ = found.start(now: Self.t0)
        _ = found.counted(0, now: Self.t0)
        _ = found.kept(nil, now: Self.t0)
        #expect(found.published(Self.decision(), now: Self.at(200)) == [.answer(Self.decision(), .prefetch)])

        var claiming = Self.live()
        _ = claiming.start(now: Self.t0)
        _ = claiming.counted(0, now: Self.t0)
        _ = claiming.kept(nil, now: Self.t0)
        // Lifetime twice the deadline; within half the deadline, not past due.
        #expect(
            claiming.published(nil, now: Self.at(1200))
                == [.claim(Self.key, lifetime: Self.ms(4000), within: Self.ms(800))])
        #expect(claiming.state == .claiming(Self.key))

        // A break not followed: the ledger is never read, the ad server asked at once.
        var unfollowed = Self.live(follows: false)
        _ = unfollowed.start(now: Self.t0)
        _ = unfollowed.counted(0, now: Self.t0)
        #expect(unfollowed.kept(nil, now: Self.at(700)) == [.ask(deciding: nil, deadline: Self.ms(1300))])
    }

    @Test(
        "a cue's break (not followed) with standing decisions: counted here, no ledger read, the standing decision from memory",
        arguments: [true, false])
    func standingFromMemory(shared: Bool) {
        var machine = Self.live(follows: false, shared: shared, standing: Self.standing)
        #expect(machine.start(now: Self.t0) == [.countAttemptHere])
        #expect(machine.counted(0, now: Self.t0) == [.lookUpKept(Self.key, waitingUpTo: Self.ms(1000))])
        #expect(machine.kept(nil, now: Self.at(1)) == [.lookUpStanding(Self.standing)])
        let found = (key: Self.standing[0], decision: Self.decision())
        #expect(
            machine.standing(found, now: Self.at(2)) == [
                .consume(Self.standing[0]), .answer(Self.decision(), .standing),
            ])
        // None fits: asked at once, not claimed (nothing follows the break).
        var none = Self.live(follows: false, shared: shared, standing: Self.standing)
        _ = none.start(now: Self.t0)
        _ = none.counted(0, now: Self.t0)
        _ = none.kept(nil, now: Self.t0)
        #expect(none.standing(nil, now: Self.at(5)) == [.ask(deciding: nil, deadline: Self.ms(1995))])
        // Counted in the shared store as before: a followed break, a `ONCE` one, no standing decisions.
        for other in [
            Self.live(follows: true, shared: shared, standing: Self.standing),
            Self.live(once: true, follows: false, shared: shared, standing: Self.standing),
            Self.live(follows: false, shared: shared),
        ] {
            var other = other
            #expect(other.start(now: Self.t0) == [.countAttempt])
        }
    }

    /// A machine whose claim is being made at 0 ms.
    static func claiming() -> Machine {
        var machine = live()
        _ = machine.start(now: t0)
        _ = machine.counted(0, now: t0)
        _ = machine.kept(nil, now: t0)
        _ = machine.published(nil, now: t0)
        return machine
    }

    @Test("a claim won or failed asks the ad server and keeps its decision", arguments: [Machine.Claim.won, .failed])
    func claimWon(claim: Machine.Claim) {
        var machine = Self.claiming()
        #expect(machine.claimed(claim, now: Self.at(300)) == [.ask(deciding: Self.key, deadline: Self.ms(1700))])
        #expect(machine.state == .asking(keeping: Self.key))
    }

    @Test("a claim lost polls the ledger every 50 ms until half the deadline, then asks")
    func claimLost() {
        var machine = Self.claiming()
        #expect(machine.claimed(.lost, now: Self.at(100)) == [.wait(Self.ms(50))])
        #expect(machine.state == .polling(Self.key, until: Self.at(1100)))
        #expect(machine.tick(now: Self.at(150)) == [.poll(Self.key, within: Self.ms(950))])
        #expect(machine.published(nil, now: Self.at(160)) == [.wait(Self.ms(50))])
        // The last wait ends at the polling's end.
        #expect(machine.tick(now: Self.at(1080)) == [.poll(Self.key, within: Self.ms(20))])
        #expect(machine.published(nil, now: Self.at(1090)) == [.wait(Self.ms(10))])
        #expect(machine.tick(now: Self.at(1100)) == [.ask(deciding: Self.key, deadline: Self.ms(900))])
        #expect(machine.state == .asking(keeping: Self.key))
    }

    @Test("a poll answered past the polling's end asks; one that finds the decision answers it")
    func pollResults() {
        var late = Self.claiming()
        _ = late.claimed(.lost, now: Self.t0)
        _ = late.tick(now: Self.at(50))
        #expect(late.published(nil, now: Self.at(1000)) == [.ask(deciding: Self.key, deadline: Self.ms(1000))])

        var found = Self.claiming()
        _ = found.claimed(.lost, now: Self.t0)
        _ = found.tick(now: Self.at(50))
        #expect(found.published(Self.decision(), now: Self.at(60)) == [.answer(Self.decision(), .prefetch)])
        #expect(found.state == .done)
    }

    @Test("a claim lost with no time left asks at once")
    func claimLostLate() {
        var machine = Self.claiming()
        #expect(machine.claimed(.lost, now: Self.at(2000)) == [.ask(deciding: Self.key, deadline: .zero)])
    }

    /// A machine asking the ad server (keeping its decision under the key).
    static func asking() -> Machine {
        var machine = claiming()
        _ = machine.claimed(.won, now: t0)
        return machine
    }

    @Test("the ad server's answer: kept when ready, answered by its path")
    func decided() {
        var live = Self.asking()
        #expect(
            live.decided(.init(prepared: Self.decision(), fitted: 1), now: Self.at(300))
                == [.keep(Self.key, Self.decision()), .answer(Self.decision(), .live)])
        var coalesced = Self.asking()
        #expect(
            coalesced.decided(.init(prepared: Self.decision(), coalesced: true, fitted: 1), now: Self.at(300))
                == [.keep(Self.key, Self.decision()), .answer(Self.decision(), .coalesced)])
        // No ad fits this viewer (a late start offset): the decision is kept for others, answered empty.
        var unfitted = Self.asking()
        #expect(
            unfitted.decided(.init(prepared: Self.decision(), fitted: 0), now: Self.at(300))
                == [.keep(Self.key, Self.decision()), .answer(Self.decision(), .empty)])
        // Creatives being conditioned: not kept.
        var pending = Self.decision()
        pending.pending = 1
        var conditioning = Self.asking()
        #expect(
            conditioning.decided(.init(prepared: pending, fitted: 1), now: Self.at(300))
                == [.answer(pending, .live)])
    }

    @Test("unanswered with no ads: the fallback; with none, the empty answer")
    func fallback() {
        var machine = Self.asking()
        let empty = PreparedDecision()
        #expect(machine.decided(.init(prepared: empty, unanswered: true), now: Self.at(2000)) == [.fallBack])
        #expect(machine.state == .fallingBack(empty))
        #expect(machine.noFallback(now: Self.at(2001)) == [.answer(empty, .empty)])
        #expect(machine.state == .done)
    }

    @Test("an asked decision not kept (no key) is answered, never kept")
    func notKept() {
        var machine = Self.live(key: nil)
        _ = machine.start(now: Self.t0)
        _ = machine.counted(0, now: Self.t0)
        #expect(
            machine.decided(.init(prepared: Self.decision(), fitted: 1), now: Self.at(100))
                == [.answer(Self.decision(), .live)])
    }

    // MARK: Every input in every state

    /// A machine in each state the inputs are tried against.
    static func machines() -> [(String, Machine)] {
        let idle = live()
        var counting = live()
        _ = counting.start(now: t0)
        var lookingUpKept = counting
        _ = lookingUpKept.counted(0, now: t0)
        var lookingUpLedger = lookingUpKept
        _ = lookingUpLedger.kept(nil, now: t0)
        let lookingUpStanding = lookingUpStanding()
        let claiming = claiming()
        var polling = claiming
        _ = polling.claimed(.lost, now: t0)
        let asking = asking()
        var fallingBack = asking
        _ = fallingBack.decided(.init(prepared: PreparedDecision(), unanswered: true), now: t0)
        var done = asking
        _ = done.decided(.init(prepared: decision(), fitted: 1), now: t0)
        return [
            ("idle", idle), ("counting", counting), ("lookingUpKept", lookingUpKept),
            ("lookingUpLedger", lookingUpLedger), ("lookingUpStanding", lookingUpStanding), ("claiming", claiming),
            ("polling", polling), ("asking", asking),
            ("fallingBack", fallingBack), ("done", done),
        ]
    }

    /// The inputs, each applied at 100 ms.
    static let inputs: [(String, @Sendable (inout Machine) -> [Machine.Action])] = [
        ("start", { $0.start(now: at(100)) }),
        ("counted", { $0.counted(0, now: at(100)) }),
        ("kept", { $0.kept(nil, now: at(100)) }),
        ("published", { $0.published(nil, now: at(100)) }),
        ("claimed", { $0.claimed(.won, now: at(100)) }),
        ("standing", { $0.standing(nil, now: at(100)) }),
        ("tick", { $0.tick(now: at(100)) }),
        ("decided", { $0.decided(.init(prepared: decision(), fitted: 1), now: at(100)) }),
        ("noFallback", { $0.noFallback(now: at(100)) }),
    ]

    /// The state each input is taken in; in any other it is ignored.
    static let accepted: [String: String] = [
        "start": "idle", "counted": "counting", "kept": "lookingUpKept", "claimed": "claiming", "decided": "asking",
        "standing": "lookingUpStanding",
        "noFallback": "fallingBack",
    ]

    @Test("every input in every state: taken only where it belongs, else ignored with the state kept")
    func everyInput() {
        for (stateName, machine) in Self.machines() {
            for (inputName, input) in Self.inputs {
                var copy = machine
                let actions = input(&copy)
                let takes =
                    Self.accepted[inputName] == stateName
                    || (inputName == "published" && ["lookingUpLedger", "polling"].contains(stateName))
                    || (inputName == "tick" && stateName == "polling")
                if takes {
                    #expect(!actions.isEmpty, "\(inputName) in \(stateName)")
                } else {
                    #expect(actions.isEmpty, "\(inputName) in \(stateName)")
                    #expect(copy.state == machine.state, "\(inputName) in \(stateName)")
                }
            }
        }
    }

    // MARK: Decisions made ahead

    @Test("made ahead: asked within the whole deadline; ready kept, unanswered or conditioning discarded")
    func ahead() {
        var machine = Machine(.ahead(Self.key), deadline: MediaTime(seconds: 5))
        #expect(machine.start(now: Self.t0) == [.ask(deciding: nil, deadline: MediaTime(seconds: 5))])
        #expect(machine.state == .asking(keeping: Self.key))
        // A viewer's inputs are ignored.
        #expect(machine.counted(0, now: Self.t0).isEmpty)
        #expect(machine.kept(nil, now: Self.t0).isEmpty)
        #expect(
            machine.decided(.init(prepared: Self.decision(), fitted: 1), now: Self.at(100))
                == [.keep(Self.key, Self.decision())])
        #expect(machine.state == .done)

        var unanswered = Machine(.ahead(Self.key), deadline: MediaTime(seconds: 5))
        _ = unanswered.start(now: Self.t0)
        #expect(unanswered.decided(.init(prepared: PreparedDecision(), unanswered: true), now: Self.t0) == [.discard])
        var pending = Self.decision()
        pending.pending = 1
        var conditioning = Machine(.ahead(Self.key), deadline: MediaTime(seconds: 5))
        _ = conditioning.start(now: Self.t0)
        #expect(conditioning.decided(.init(prepared: pending, fitted: 1), now: Self.t0) == [.discard])
    }
}
