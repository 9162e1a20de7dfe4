import ArgumentParser
import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import InterstitialPlayback

/// `hlsi report`: one self-contained HTML page with what `validate --recursive`, `schedule` and
/// (optionally) `play` find in a stream.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write an HTML report of a stream: findings, the integrated timeline, media timing, a play trace.",
        discussion: """
            Writes one HTML file that needs nothing else (inline CSS and SVG, no script, no external \
            resource) with: every finding of `hlsi validate --recursive` (its rule, the spec text the \
            rule enforces, its severity, its location and the line quoted), every playlist, asset list \
            and asset checked, the integrated timeline of `hlsi timeline` (asset lists resolved) and \
            each break's schedule: start, resumption, playout and assets.

            --media also reads the media segments as `hlsi validate --media` does (same --sample, \
            --media-budget and --concurrency) and draws each playlist's tracks on its EXTINF timeline \
            with the gaps and overlaps between segments and at each asset's start and end. --play also \
            plays the stream headless as `hlsi play` does (a VOD on a manual clock to its end or \
            --play-duration; a live stream in real time for --play-duration, 30 s by default) and \
            draws the trace; with --media too, the trace has the media timing at every transition \
            between primary and interstitial assets.

            Everything from the stream is escaped: a playlist cannot add markup to the report.

            Exit codes: 0 no errors, 1 the stream has errors (the report is still written), 2 usage or \
            I/O failure (the report cannot be written, or the playlist cannot be fetched).
            """
    )

    @Argument(help: "A playlist file path or http(s) URL.")
    var location: String

    @Option(name: [.short, .customLong("output")], help: "The HTML file to write.")
    var output: String

    @Flag(name: .long, help: "Download the media segments and draw their timing (as validate --media).")
    var media = false

    @OptionGroup var downloads: MediaDownloadOptions

    @Flag(name: .long, help: "Play the stream headless (as hlsi play) and draw its trace.")
    var play = false

    @Option(name: .long, help: "With --play, stop after this many clock seconds (default: a VOD's end, 30 s live).")
    var playDuration: Double?

    @Flag(name: .long, help: "With --play, do not send the assets' tracking beacons.")
    var noBeacons = false

    /// What loading found: the validation, why the playlist could not be loaded, the schedule and
    /// the notes about it.
    typealias Loaded = (
        validation: StreamValidator.Report, failure: LoadError?, schedule: InterstitialSchedule?, notes: [String]
    )

    func validate() throws {
        try downloads.check(media: media)
        if !play, playDuration != nil || noBeacons {
            throw ValidationError("--play-duration and --no-beacons apply only with --play")
        }
        try checkSeconds(playDuration, "--play-duration", allowsZero: false)
        if output.isEmpty { throw ValidationError("-o needs a file name") }
    }

    func run() async throws {
        var report = StreamReport(
            location: location, generated: ISO8601DateFormatter().string(from: Date()),
            validation: StreamValidator.Report())
        let options =
            media
            ? downloads.validationOptions : nil
        let loaded = try await PlaylistLoader.withLoader { (loader: PlaylistLoader) async throws -> Loaded in
            var validation: StreamValidator.Report
            do {
                validation = try await StreamValidator(loader: loader).validate(
                    location, recursive: true, media: options)
            } catch let error as LoadError {
                // The starting playlist cannot be loaded: a report with that one failure, as validate's JSON.
                validation = StreamValidator.Report()
                validation.diagnostics = [error.diagnostic]
                validation.checked = [
                    StreamValidator.CheckedResource(kind: .playlist, location: location, failure: error.message)
                ]
                return (validation, error, nil, [])
            }
            do {
                let computed = try await ScheduleCommand.compute(location, resolve: true, loader: loader)
                return (validation, nil, computed.schedule, computed.warnings)
            } catch let error as PresentationLoader.PresentationError {
                return (validation, nil, nil, [ScheduleCommand.diagnostic(error).message])
            } catch let error as LoadError {
                return (validation, nil, nil, ["the schedule could not be computed: \(error.description)"])
            } catch {
                return (validation, nil, nil, ["the schedule could not be computed: \(error)"])
            }
        }
        report.validation = loaded.0
        let failure = loaded.1
        report.schedule = loaded.2
        report.scheduleNotes = loaded.3
        if play, failure == nil { await runPlayer(into: &report) }

        let html = ReportHTML.render(report)
        do {
            try Data(html.utf8).write(to: URL(fileURLWithPath: output))
        } catch {
            throw CommandFailure(message: "\(output): error: cannot write: \(error.localizedDescription)", exitCode: 2)
        }
        let errors = report.errorCount
        let warnings = report.warningCount
        Output.standardError(
            "\(output): wrote the report of \(location): \(errors) error\(errors == 1 ? "" : "s"), "
                + "\(warnings) warning\(warnings == 1 ? "" : "s")")
        if let failure { throw ExitCode(failure.isContentError ? 1 : 2) }
        if report.validation.hasErrors { throw ExitCode(1) }
    }

    /// Plays the stream as `hlsi play` does and keeps its trace (and with `--media`, the media
    /// timing lines) in the report.
    private func runPlayer(into report: inout StreamReport) async {
        var configuration = Player.Configuration()
        configuration.sendsBeacons = !noBeacons
        configuration.traceLimit = StreamReport.maximumTraceLines
        let live: Bool
        do {
            live = try await Player.isLive(url: location, configuration: configuration)
        } catch {
            report.played = true
            report.playFailure = "\(error)"
            return
        }
        // Each media line is stamped with the player's clock when it is reported (not all at 0 s).
        let stamp = PlayerStamp()
        let renderer: any MediaRenderer = media ? MediaTimingRenderer(now: stamp.now) : CountingRenderer()
        let player =
            live
            ? Player(
                item: PlayerItem(url: location), configuration: configuration, clock: ContinuousClock(),
                renderer: renderer)
            : Player(
                item: PlayerItem(url: location), configuration: configuration, clock: ManualClock(), renderer: renderer)
        stamp.attach(player)
        player.play()
        let seconds = playDuration ?? (live ? 30 : nil)
        await player.run(until: seconds.map { player.clockTime + .nanoseconds(MediaTime(seconds: $0).nanoseconds) })
        let trace = player.trace
        await player.shutdown()
        var lines = trace.map { event in
            StreamReport.TraceLine(
                time: event.seconds.seconds, event: event.kind.rawValue, primaryTime: event.primaryTime?.seconds,
                fields: event.fields.map { .init(name: $0.name, value: $0.value.description) })
        }
        if let timing = renderer as? MediaTimingRenderer {
            lines += timing.finish().map { event in
                StreamReport.TraceLine(
                    time: PlaybackEvent.seconds(of: event.time).seconds, event: event.kind.rawValue,
                    primaryTime: event.primaryTime?.seconds,
                    fields: event.fields.map { .init(name: $0.name, value: $0.value.description) })
            }
            lines.sort { $0.time < $1.time }
        }
        report.played = true
        report.traceOmitted = max(0, lines.count - StreamReport.maximumTraceLines)
        report.trace = Array(lines.prefix(StreamReport.maximumTraceLines))
        if let ended = trace.last(where: { $0.kind == .ended }), let reason = ended["reason"] {
            report.playFailure = "playback ended: \(reason.description)"
        }
    }
}
