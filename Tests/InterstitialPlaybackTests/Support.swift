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

/// The settings the tests' players start from: playlists only, and time limits that are hang
/// guards (10 minutes of real time for a response or a beacon), far above what the test origin
/// takes on a loaded machine. The tests of a timeout move a ``ManualTimer`` instead.
func testConfiguration(primaryID: String) -> Player.Configuration {
    var configuration = Player.Configuration(primaryID: primaryID, loadsSegments: false)
    configuration.timeout = .seconds(600)
    configuration.beaconTimeout = .seconds(600)
    return configuration
}

/// A player of `path` on `origin`, on a manual clock, loading playlists only.
func makePlayer(_ origin: TestOrigin, _ path: String = "/main.m3u8", clock: ManualClock = ManualClock()) -> Player {
    Player(item: PlayerItem(url: origin.url(path)), configuration: testConfiguration(primaryID: "p"), clock: clock)
}

/// A player of `path` on `origin` on a manual clock, for ``play(_:_:until:configure:before:script:)``.
private func sessionPlayer(
    _ origin: TestOrigin, _ path: String, configure: (inout Player.Configuration) -> Void
) -> Player {
    var configuration = testConfiguration(primaryID: "session-1")
    configure(&configuration)
    return Player(item: PlayerItem(url: origin.url(path)), configuration: configuration, clock: ManualClock())
}

/// A run's limit of `seconds` on the player's clock.
private func limit(_ seconds: Double?) -> Duration? { seconds.map { .nanoseconds(s($0).nanoseconds) } }

/// Plays `path` of `origin` on a manual clock for `duration` seconds (or to the end) and returns the player.
func play(
    _ origin: TestOrigin, _ path: String, until seconds: Double? = nil,
    configure: (inout Player.Configuration) -> Void = { _ in },
    before: (Player) -> Void = { _ in }, script: [(Double, PlaybackCommand)] = []
) async -> Player {
    let player = sessionPlayer(origin, path, configure: configure)
    before(player)
    for (time, command) in script { player.schedule(command, at: .nanoseconds(s(time).nanoseconds)) }
    player.play()
    await player.run(until: limit(seconds))
    await player.shutdown()
    return player
}

/// Plays like ``play(_:_:until:configure:before:script:)`` while `during` runs beside playback with
/// the trace as it happens (subscribed before playback starts): the test awaits what the player
/// does and moves a ``ManualTimer`` past a deadline. Returns the player once both are done.
func play(
    _ origin: TestOrigin, _ path: String, until seconds: Double? = nil,
    configure: (inout Player.Configuration) -> Void = { _ in },
    during: (Player, AsyncStream<PlaybackEvent>) async throws -> Void
) async throws -> Player {
    let player = sessionPlayer(origin, path, configure: configure)
    let trace = player.traceEvents()
    player.play()
    do {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await player.run(until: limit(seconds)) }
            try await during(player, trace)
            try await group.waitForAll()
        }
    } catch {
        await player.shutdown()
        throw error
    }
    await player.shutdown()
    return player
}

/// A locked list for observer blocks.
final class Recorder<Element: Sendable>: Sendable {
    private let box = NIOLockedValueBox<[Element]>([])
    var value: [Element] { box.withLockedValue { $0 } }
    func append(_ element: Element) { box.withLockedValue { $0.append(element) } }
}
