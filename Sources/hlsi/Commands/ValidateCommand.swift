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
            too early.

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

    @Option(name: .long, help: "Reload a live media playlist this many times, checking the reload rules.")
    var watch: Int?

    @Option(name: .long, help: "Seconds between reloads with --watch (default: the target duration).")
    var interval: Double?

    func validate() throws {
        if let watch, watch < 1 { throw ValidationError("--watch needs a positive number of reloads") }
        if let interval, !(interval > 0 && interval <= 86_400) {
            throw ValidationError("--interval needs a positive number of seconds, at most 86400")
        }
        if interval != nil, watch == nil { throw ValidationError("--interval applies only with --watch") }
    }

    func run() async throws {
        let report: StreamValidator.Report
        do {
            report = try await PlaylistLoader.withLoader { loader in
                let validator = StreamValidator(loader: loader)
                if let watch {
                    return try await validator.watch(
                        location, reloads: watch, interval: interval.map { .milliseconds(Int64($0 * 1000)) })
                }
                return try await validator.validate(location, recursive: recursive)
            }
        } catch let error as LoadError {
            throw CommandFailure(error)
        }
        switch format {
        case .json:
            Output.standardOutput(try Output.json(ValidateReport(diagnostics: report.diagnostics, notes: report.notes)))
        case .text:
            var text = ""
            for diagnostic in report.diagnostics {
                text += Output.render([diagnostic], document: report.documents[diagnostic.location.file])
            }
            Output.standardOutput(text)
            for note in report.notes { Output.standardError("note: \(note)") }
            let errors = report.diagnostics.filter { $0.severity == .error }.count
            let warnings = report.diagnostics.filter { $0.severity == .warning }.count
            Output.standardError(
                "\(location): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        if report.hasErrors { throw ExitCode(1) }
    }
}

/// The JSON form of `hlsi validate --format json`.
struct ValidateReport: Encodable {
    var diagnostics: [Diagnostic]
    var notes: [String]
}
