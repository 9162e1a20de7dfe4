import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import PlaybackCoordination
import PlaybackEngine

/// Joins a player to a coordinated group that keeps its participants in sync (AVFoundation's
/// `AVPlaybackCoordinator`, SharePlay-style).
///
/// Once joined, play, pause, rate changes and seeks made on the player (by the application or a
/// script) are proposed to the group and applied by every participant; the group's state is a
/// location on the item at a time of a shared reference clock, so each participant places itself
/// there and plays forward to now.
///
/// Interstitials: through events whose content may not vary (`X-CONTENT-MAY-VARY="NO"`,
/// `contentMayVary == false`) the group stays coordinated, commands inside them and seeks out of
/// them included. An event whose content may vary (the default) is played by each participant on
/// its own: commands there stay local, and when its interstitial ends the participant waits
/// (`reasonForWaitingToPlay == .waitingForCoordinatedPlayback`) until every participant that
/// played it has finished; the group then resumes primary together.
public final class PlaybackCoordinator: Sendable {
    struct State: Sendable {
        var participant: String?
        var participants: [String] = []
        /// The group's latest state.
        var latest: GroupState?
        /// Playing an interstitial on its own, or waiting for the group after one: group states
        /// wait for the release.
        var alone = false
    }

    /// The coordinated player.
    public let player: Player
    let transport: any CoordinationTransport
    let state = NIOLockedValueBox(State())
    let logger: Logger?

    /// Creates a coordinator for `player` over `transport`; call ``join(name:)`` to take part.
    public init(player: Player, transport: any CoordinationTransport, logger: Logger? = nil) {
        self.player = player
        self.transport = transport
        self.logger = logger
    }

    /// Joins the group: the player takes the group's state, or gives the group its own when it is
    /// the first participant.
    public func join(name: String = "player") async throws {
        player.state.withLockedValue { state in
            state.coordination = { [weak self] signal in self?.signal(signal) }
        }
        player.handle(.setCoordinated(true))
        do {
            try await transport.connect(name: name) { [weak self] message in self?.receive(message) }
        } catch {
            leaveLocally()
            throw error
        }
    }

    /// Leaves the group; the player goes on alone.
    public func leave() async {
        leaveLocally()
        await transport.disconnect()
    }

    private func leaveLocally() {
        player.state.withLockedValue { $0.coordination = nil }
        player.handle(.setCoordinated(false))
        state.withLockedValue { $0.alone = false }
    }

    /// This participant's ID in the group, once joined.
    public var participant: String? { state.withLockedValue { $0.participant } }

    /// The participants' IDs.
    public var participants: [String] { state.withLockedValue { $0.participants } }

    /// The group's latest state.
    public var groupState: GroupState? { state.withLockedValue { $0.latest } }

    /// The group's reference clock now, in nanoseconds.
    public func referenceNow() -> Int64 { transport.referenceNow() }

    /// The reference clock time of the player's clock time `time` (to compare traces of
    /// participants).
    public func referenceTime(ofPlayerTime time: Duration) -> Int64 {
        transport.referenceNow() - (player.clockTime - time).wholeNanoseconds
    }

    // MARK: Player to group

    func signal(_ signal: PlaybackStateMachine.Signal) {
        switch signal {
        case .changed:
            guard let me = state.withLockedValue({ $0.participant }) else { return }
            let (location, playing, rate) = player.state.withLockedValue {
                ($0.machine.coordinatedLocation, $0.machine.playing, $0.machine.rate)
            }
            transport.send(
                .propose(
                    GroupState(
                        originator: me, playing: playing, rate: rate, location: location,
                        referenceTime: transport.referenceNow())))
        case .suspended(let group):
            state.withLockedValue { $0.alone = true }
            transport.send(.suspend(group: group))
        case .arrived(let group, let resume):
            state.withLockedValue { $0.alone = true }
            transport.send(.arrive(group: group, resume: resume))
        }
    }

    // MARK: Group to player

    func receive(_ message: CoordinationMessage) {
        switch message {
        case .welcome(let participant, let current, let participants):
            state.withLockedValue { state in
                state.participant = participant
                state.participants = participants
                state.latest = current
            }
            if let current {
                apply(current)
            } else {
                signal(.changed)
            }
        case .state(let group):
            let action = state.withLockedValue { state -> GroupState? in
                state.latest = group
                guard group.originator != state.participant, !state.alone else { return nil }
                return group
            }
            if let action { apply(action) }
        case .release(_, let group):
            state.withLockedValue { state in
                state.latest = group
                state.alone = false
            }
            apply(group)
        case .participants(let participants):
            state.withLockedValue { $0.participants = participants }
        case .error(let text):
            logger?.warning("coordination: \(text)")
        case .pong, .join, .propose, .suspend, .arrive, .ping:
            break
        }
    }

    /// Places the player where the group state says, as of its reference time.
    func apply(_ group: GroupState) {
        let behind = transport.referenceNow() - group.referenceTime
        let anchor = player.clockTime - .nanoseconds(max(0, behind))
        player.handle(.coordinate(group.location, playing: group.playing, rate: group.rate, anchor: anchor))
        // Applying may have started an interstitial played alone (its signal said so).
        let alone = player.state.withLockedValue { $0.machine.playsAlone }
        state.withLockedValue { $0.alone = alone }
    }
}
