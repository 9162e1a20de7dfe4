import HLSPlaylist
import InterstitialPlayback
import NIOConcurrencyHelpers
import PlaybackEngine
import Testing

/// Seconds as a media time.
func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

extension Array where Element == PlaybackEvent {
    /// The events of some kinds, as compact strings: `t kind primaryTime key=value…`.
    func lines(_ kinds: Set<PlaybackEvent.Kind>? = nil, fields names: [String] = ["id"]) -> [String] {
        filter { kinds?.contains($0.kind) ?? true }.map { event in
            var line = "\(event.seconds.formatted(fractionDigits: 3)) \(event.kind.rawValue)"
            if let primary = event.primaryTime { line += " @\(primary.formatted(fractionDigits: 3))" }
            for name in names { if let value = event[name] { line += " \(name)=\(value)" } }
            return line
        }
    }

    /// The first event of a kind with a given ID.
    func first(_ kind: PlaybackEvent.Kind, id: String? = nil) -> PlaybackEvent? {
        first { $0.kind == kind && (id == nil || $0["id"] == .string(id!)) }
    }
}

/// A player of `path` on `origin`, on a manual clock, loading playlists only.
func makePlayer(_ origin: TestOrigin, _ path: String = "/main.m3u8", clock: ManualClock = ManualClock()) -> Player {
    Player(
        item: PlayerItem(url: origin.url(path)), configuration: .init(primaryID: "p", loadsSegments: false),
        clock: clock)
}

/// Plays `path` of `origin` on a manual clock for `duration` seconds (or to the end) and returns the player.
func play(
    _ origin: TestOrigin, _ path: String, until seconds: Double? = nil,
    configure: (inout Player.Configuration) -> Void = { _ in },
    before: (Player) -> Void = { _ in }, script: [(Double, PlaybackCommand)] = []
) async -> Player {
    var configuration = Player.Configuration(primaryID: "session-1", loadsSegments: false)
    configure(&configuration)
    let player = Player(item: PlayerItem(url: origin.url(path)), configuration: configuration, clock: ManualClock())
    before(player)
    for (time, command) in script { player.schedule(command, at: .nanoseconds(s(time).nanoseconds)) }
    player.play()
    await player.run(until: seconds.map { .nanoseconds(s($0).nanoseconds) })
    await player.shutdown()
    return player
}

/// A locked list for observer blocks.
final class Recorder<Element: Sendable>: Sendable {
    private let box = NIOLockedValueBox<[Element]>([])
    var value: [Element] { box.withLockedValue { $0 } }
    func append(_ element: Element) { box.withLockedValue { $0.append(element) } }
}
