import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The interstitial player (`AVQueuePlayer` in AVFoundation): it plays the current event's assets,
/// items replicated from templates, one after the other, while primary waits.
public final class QueuePlayer: Sendable {
    private let owner = NIOLockedValueBox(WeakPlayer())

    init() {}

    func attach(_ player: Player) { owner.withLockedValue { $0.player = player } }

    var player: Player? { owner.withLockedValue { $0.player } }

    /// The items still to play for the current event, the current one first; empty when primary plays.
    public var items: [PlayerItem] {
        guard let player else { return [] }
        return player.state.withLockedValue { state -> [PlayerItem] in
            let machine = state.machine
            guard machine.mode == .interstitial, let run = machine.run, let event = machine.currentEvent,
                let list = machine.playList(for: event), let plan = run.plan
            else { return [] }
            return plan.dropFirst(run.planPosition).filter { list.assets.indices.contains($0) }.map {
                PlayerItem(
                    template: PlayerItem(url: list.assets[$0].uri), eventID: run.eventID,
                    configuration: machine.template)
            }
        }
    }

    /// The item playing, or nil.
    public var currentItem: PlayerItem? {
        guard let player else { return nil }
        return player.state.withLockedValue { state -> PlayerItem? in
            let machine = state.machine
            guard machine.mode == .interstitial, let run = machine.run, let index = run.assetIndex,
                let event = machine.currentEvent, let list = machine.playList(for: event),
                list.assets.indices.contains(index)
            else { return nil }
            return PlayerItem(
                template: PlayerItem(url: list.assets[index].uri), eventID: run.eventID,
                configuration: machine.template)
        }
    }

    /// The position in the current item.
    public var currentTime: MediaTime {
        player?.state.withLockedValue { $0.machine.mode == .interstitial ? $0.machine.run?.assetPosition : nil }
            ?? .zero
    }

    /// The rate it plays at: the primary's rate, at most 1 under X-RESTRICT=SKIP; 0 when idle.
    public var rate: Double {
        player?.state.withLockedValue { $0.machine.mode == .interstitial ? $0.machine.effectiveRate : 0 } ?? 0
    }

    /// Seeks in the current item; forward is refused under X-RESTRICT=SKIP (R13). False when refused.
    @discardableResult
    public func seek(to time: MediaTime) -> Bool {
        guard let player else { return false }
        let eventOffset = player.state.withLockedValue { state -> MediaTime? in
            guard let run = state.machine.run, state.machine.mode == .interstitial else { return nil }
            return run.elapsed - run.joinOffset - run.assetPosition + time
        }
        return player.accepts(.seekInInterstitial(eventOffset ?? time))
    }
}
