import ArgumentParser
import Foundation
import HLSPlaylist
import InterstitialPlayback

/// `hlsi play`: a headless conformance player that prints what an Apple player would do.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a stream headless and print a trace of its interstitials, seeks and restrictions.",
        discussion: """
            Loads the primary playlist, asset lists, interstitial assets and (unless --no-segments) media \
            segments over HTTP, with _HLS_primary_id and X-PLAYBACK-SESSION-ID, and plays them on a clock \
            without decoding. --clock manual (the default for VOD) runs as fast as the loads allow, so an \
            hour of playback takes moments; --clock real (the default for live) plays in real time.

            --script runs commands at clock times: "at 5 seek 40; at 20 rate 2; at 30 skip". Commands: \
            play, pause, rate R, seek T, seek-date ISO-8601, seek-integrated T, seek-interstitial T, skip, \
            cancel [T|indefinite|invalid], events server|none, restrict ID SKIP,JUMP|none, auto on|off.

            Every line of --json output is an object with t (clock seconds), event, primaryTime and the \
            event's fields. Exit status: 0 when playback ran, 1 when the primary could not be loaded, \
            2 for usage errors.
            """
    )

    enum ClockKind: String, ExpressibleByArgument, CaseIterable {
        case manual, real
    }

    @Argument(help: "The primary playlist: an http(s) URL or a file.")
    var url: String

    @Option(name: .long, help: "Where primary starts, in seconds from its first segment.")
    var start: Double?

    @Option(name: .long, help: "Timed commands, e.g. \"at 5 seek 40; at 20 rate 2; at 30 skip\".")
    var script: String?

    @Option(name: .long, help: "manual (as fast as possible) or real (default: manual for VOD, real for live).")
    var clock: ClockKind?

    @Option(
        name: .long,
        help: "Stop after this many clock seconds (default: the end of a VOD; live runs until interrupted).")
    var duration: Double?

    @Flag(name: .long, help: "Print one JSON object per line.")
    var json = false

    @Flag(name: .long, help: "Load playlists and asset lists only, not media segments.")
    var noSegments = false

    @Option(name: .long, help: "Seconds before an event at which its asset list is requested (default 10).")
    var lookahead: Double = 10

    @Option(name: .long, help: "The _HLS_primary_id to send (default: a new UUID).")
    var primaryID: String?

    func validate() throws {
        // Under a billion seconds (about 31 years): times are nanoseconds in 64 bits.
        if let start, !(start >= 0 && start < 1e9) {
            throw ValidationError("--start must be a non-negative number of seconds, under 1e9")
        }
        if let duration, !(duration > 0 && duration < 1e9) {
            throw ValidationError("--duration must be a positive number of seconds, under 1e9")
        }
        if !(lookahead >= 0 && lookahead < 1e9) {
            throw ValidationError("--lookahead must be a non-negative number of seconds, under 1e9")
        }
    }

    func run() async throws {
        let entries: [PlaybackScript.Entry]
        do {
            entries = try script.map { try PlaybackScript(parsing: $0).entries } ?? []
        } catch {
            throw CommandFailure(message: "error: --script: \(error)", exitCode: 2)
        }
        var configuration = Player.Configuration()
        if let primaryID { configuration.primaryID = primaryID }
        configuration.startTime = start.map { MediaTime(seconds: $0) }
        configuration.loadsSegments = !noSegments
        configuration.lookahead = MediaTime(seconds: lookahead)
        let limit = duration.map { Duration.nanoseconds(MediaTime(seconds: $0).nanoseconds) }

        // Whether the stream is live picks (or checks) the clock.
        let live: Bool
        do {
            live = try await Player.isLive(url: url, configuration: configuration)
        } catch {
            throw CommandFailure(message: "error: \(error)", exitCode: 1)
        }
        let kind = clock ?? (live ? .real : .manual)
        if kind == .manual && live {
            throw CommandFailure(
                message:
                    "error: \(url) is live: its server adds segments in real time, which a manual clock cannot follow; use --clock real",
                exitCode: 2)
        }
        let player: Player =
            kind == .manual
            ? Player(item: PlayerItem(url: url), configuration: configuration, clock: ManualClock())
            : Player(item: PlayerItem(url: url), configuration: configuration, clock: ContinuousClock())
        for entry in entries { player.schedule(entry.command, at: .nanoseconds(entry.time.nanoseconds)) }
        let printer = Task { [json] in
            for await event in player.traceEvents() {
                FileHandle.standardOutput.write(Data(((json ? event.json : event.description) + "\n").utf8))
            }
        }
        player.play()
        await player.run(until: limit)
        let failed = player.trace.contains { $0.kind == .ended && $0["reason"] != nil }
        await player.shutdown()
        await printer.value
        if failed { throw ExitCode(1) }
    }
}
