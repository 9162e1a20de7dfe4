import HLSPlaylist
import InterstitialPlayback
import NIOConcurrencyHelpers

/// The clock time and primary position of a player made after its renderer.
///
/// `hlsi play --media` and `hlsi report --media` make a ``MediaTimingRenderer`` before the ``Player`` that
/// feeds it; each media line is stamped with the time the player has when the line is reported.
/// Before the player is attached, lines are stamped at zero.
final class PlayerStamp: Sendable {
    private let player = NIOLockedValueBox<Player?>(nil)

    /// Stamps later lines with `player`'s clock.
    func attach(_ player: Player) { self.player.withLockedValue { $0 = player } }

    /// The attached player's clock time and primary position (zero and none before one is attached).
    @Sendable func now() -> (Duration, MediaTime?) {
        guard let player = player.withLockedValue({ $0 }) else { return (.zero, nil) }
        return (player.clockTime, player.currentTime)
    }
}
