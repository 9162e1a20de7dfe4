import ArgumentParser
import Foundation
import HLSLoading
import HLSPlaylist

/// `hlsi validate`: check a playlist, a whole presentation, or a live playlist over reloads.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check playlists, date ranges and interstitials against the spec.",
        discussion: """
            Every MUST of the spec about date ranges and interstitials is an error, every SHOULD a \
            warning; `hlsi rules` lists them all. --recursive follows a multivariant playlist to its \
            media playlists and every interstitial's asset list and assets. --watch N reloads a live \
            playlist N times at its target duration and checks that date ranges never change or vanish \
            too early. With --recursive or --watch the summary says how many playlists, asset lists \
            and assets were checked; --verbose lists each one with its result.

            --media (implies --recursive) downloads the media segments of the primary and of every \
            interstitial asset (all of them, or --sample N evenly spaced per playlist, always an asset's \
            first) with their initialization segments, at most --media-budget MiB in all, and reads \
            their timing: EXTINF against the measured duration, measured peak and average bit rates \
            against BANDWIDTH and AVERAGE-BANDWIDTH, key frames under EXT-X-INDEPENDENT-SEGMENTS, audio \
            against video start offsets (also at each asset's start), gaps and overlaps between \
            segments, and the assets' measured codecs against the primary's (rules media-* and \
            interstitial-media-*). The text output ends with a table of what was measured.

            JSON (--format json), also when the playlist cannot be loaded: {"location", "errors", \
            "warnings", "diagnostics": [{"severity","rule","file","line","column","message"}], \
            "notes", "checked": [{"kind","location","interstitial","errors","warnings","failure",\
            "result"}]}; a load failure is a diagnostic of rule load-CODE at line 0. With --media, also \
            "media": {"playlists": [{"location", "segments": [{"index","uri","line","extinf",\
            "byteCount","format","tracks","measuredDuration","bitrate",…}], "peakBitrate",\
            "averageBitrate","codecs",…}], "variants": [{"bandwidth","measuredPeak",…}], \
            "bytesDownloaded","budgetExhausted"}.

            Exit codes: 0 no errors, 1 errors, 2 usage or I/O failure.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "A playlist file path or http(s) URL.")
    var location: String

    @Option(name: .long, help: "Output format: text (compiler style) or json.")
    var format: Format = .text

    @Flag(name: .long, help: "Follow media playlists, asset lists and assets, and check the cross-playlist rules.")
    var recursive = false

    @Flag(name: .long, help: "List every playlist, asset list and asset checked, with its result.")
    var verbose = false

    @Option(
        name: .long, help: "Reload a live media playlist this many times (at most 10000), checking the reload rules.")
    var watch: Int?

    @Option(name: .long, help: "Seconds between reloads with --watch (default: the target duration).")
    var interval: Double?

    @Flag(name: .long, help: "Download the media segments and check their timing and bit rates (implies --recursive).")
    var media = false

    @OptionGroup var downloads: MediaDownloadOptions

    func validate() throws {
        if let watch, !(1...10_000).contains(watch) { throw ValidationError("--watch needs 1 to 10000 reloads") }
        if let interval, !(interval > 0 && interval <= 3600) {
            throw ValidationError("--interval needs a positive number of seconds, at most 3600")
        }
        if interval != nil, watch == nil { throw ValidationError("--interval applies only with --watch") }
        if media, watch != nil { throw ValidationError("--media cannot be combined with --watch") }
        try downloads.check(media: media)
    }

    func run() async throws {
        var report: StreamValidator.Report
        var failure: LoadError?
        do {
            report = try await PlaylistLoader.withLoader { loader in
                let validator = StreamValidator(loader: loader)
                if let watch {
                    return try await validator.watch(
                        location, reloads: watch, interval: interval.map { .milliseconds(Int64($0 * 1000)) })
                }
                let options =
                    media
                    ? downloads.validationOptions
                    : nil
                return try await validator.validate(location, recursive: recursive, media: options)
            }
        } catch let error as LoadError {
            // The starting playlist cannot be loaded: a report with that one failure.
            failure = error
            report = StreamValidator.Report()
            report.diagnostics = [error.diagnostic]
            report.checked = [
                StreamValidator.CheckedResource(kind: .playlist, location: location, failure: error.message)
            ]
        }
        switch format {
        case .json:
            Output.standardOutput(try Output.json(ValidateReport(location: location, report: report)))
        case .text:
            if let failure { throw CommandFailure(failure) }
            var text = ""
            for diagnostic in report.diagnostics {
                text += Output.render([diagnostic], document: report.documents[diagnostic.location.file])
            }
            if let media = report.media { text += (text.isEmpty ? "" : "\n") + media.table }
            Output.standardOutput(text)
            for note in report.notes { Output.standardError("note: \(note)") }
            if verbose {
                for checked in report.checked { Output.standardError("checked \(checked.summary)") }
            }
            if recursive || media || watch != nil || verbose {
                Output.standardError("checked \(report.checked.countSummary)")
            }
            let errors = report.diagnostics.filter { $0.severity == .error }.count
            let warnings = report.diagnostics.filter { $0.severity == .warning }.count
            Output.standardError(
                "\(location): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        if let failure { throw ExitCode(failure.isContentError ? 1 : 2) }
        if report.hasErrors { throw ExitCode(1) }
    }
}

/// The JSON form of `hlsi validate --format json`, the same for every run, a load failure included:
/// the location asked for, the error and warning counts, every diagnostic (a failure to load the
/// playlist is one of rule `load-CODE`), the notes, and every playlist, asset list and asset checked
/// with its result.
struct ValidateReport: Encodable {
    var location: String
    var errors: Int
    var warnings: Int
    var diagnostics: [Diagnostic]
    var notes: [String]
    var checked: [StreamValidator.CheckedResource]
    var media: MediaReport?

    init(location: String, report: StreamValidator.Report) {
        self.location = location
        errors = report.diagnostics.filter { $0.severity == .error }.count
        warnings = report.diagnostics.filter { $0.severity == .warning }.count
        diagnostics = report.diagnostics
        notes = report.notes
        checked = report.checked
        media = report.media
    }
}
