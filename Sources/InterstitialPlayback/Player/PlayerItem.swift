import NIOConcurrencyHelpers
import PlaybackEngine

/// An item to play: a primary presentation, or an interstitial asset made from a template
/// (AVFoundation's `AVPlayerItem`, reference §2.4).
public final class PlayerItem: Sendable {
    /// The URL of its playlist.
    public let url: String
    /// For items made from a template (interstitial assets), the template.
    public let templatePlayerItem: PlayerItem?
    /// For interstitial items, the ID of the event that made them (`interstitialEventIdentifier`).
    public let interstitialEventIdentifier: String?
    /// For interstitial items, the player's ``Player/interstitialItemTemplate`` as it was when the
    /// item was made: the configuration it plays with.
    public let itemTemplate: InterstitialItemTemplate?
    private let state: NIOLockedValueBox<(automatic: Bool, player: WeakPlayer)>

    /// Creates a primary item for the playlist at `url`.
    public init(url: String) {
        self.url = url
        self.templatePlayerItem = nil
        self.interstitialEventIdentifier = nil
        self.itemTemplate = nil
        self.state = NIOLockedValueBox((true, WeakPlayer()))
    }

    /// Creates an item replicated from a template for an interstitial event.
    init(template: PlayerItem, eventID: String, configuration: InterstitialItemTemplate? = nil) {
        self.url = template.url
        self.templatePlayerItem = template
        self.interstitialEventIdentifier = eventID
        self.itemTemplate = configuration
        self.state = NIOLockedValueBox((true, WeakPlayer()))
    }

    func attach(_ player: Player) { state.withLockedValue { $0.player.player = player } }

    private var player: Player? { state.withLockedValue { $0.player.player } }

    /// Whether server (HLS) events are scheduled; true by default. False ignores the server's future
    /// events; events set on a controller play regardless (reference §2.4).
    public var automaticallyHandlesInterstitialEvents: Bool {
        get { state.withLockedValue { $0.automatic } }
        set {
            state.withLockedValue { $0.automatic = newValue }
            player?.perform(.setAutomaticallyHandlesInterstitialEvents(newValue))
        }
    }

    /// The integrated timeline of primary and events; nil for items of an interstitial player and
    /// before the item is given to a player.
    public var integratedTimeline: IntegratedTimeline? {
        guard templatePlayerItem == nil, let player else { return nil }
        return IntegratedTimeline(player: player)
    }
}

/// A weak reference to a player, so items and the interstitial player do not keep it alive.
final class WeakPlayer: @unchecked Sendable {
    // Guarded by the lock of the box that holds it.
    weak var player: Player?
}
