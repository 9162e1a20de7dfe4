import ArgumentParser
import Foundation
import HLSLoading
import HLSPlaylist

/// `hlsi inspect`: a summary of a playlist, or its whole model as JSON.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Summarize a playlist: kind, version, durations, dates, variants and date ranges.",
        discussion: """
            Reads a Media or Multivariant Playlist from a file or an http(s) URL. Diagnostics go to \
            standard error as `path:line:column: severity: [rule] message` with the source line.

            Exit codes: 0 no errors, 1 the playlist has errors, 2 usage or I/O failure.
            """
    )

    @Argument(help: "A playlist file path or http(s) URL.")
    var location: String

    @Flag(name: .long, help: "Print the whole model and the diagnostics as JSON.")
    var json = false

    @Option(name: .long, help: "How many date ranges, variants or renditions to list in the text summary.")
    var limit = 20

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit needs a number of entries, 0 or more") }
    }

    func run() async throws {
        let (resource, result): (PlaylistLoader.Resource, ParseResult)
        do {
            (resource, result) = try await PlaylistLoader.withLoader { try await $0.loadPlaylist(location) }
        } catch let error as LoadError {
            throw CommandFailure(error)
        }
        if json {
            let report = InspectReport(
                file: location, url: resource.finalLocation, kind: result.playlist.kindName, playlist: result.playlist,
                diagnostics: result.diagnostics)
            Output.standardOutput(try Output.json(report))
        } else {
            Output.standardOutput(InspectSummary(location: location, playlist: result.playlist, limit: limit).text)
            if !result.diagnostics.isEmpty {
                Output.standardError(Output.render(result.diagnostics, document: result.document), terminator: "")
            }
        }
        if result.hasErrors { throw ExitCode(1) }
    }
}

/// The JSON form of `hlsi inspect --json`.
struct InspectReport: Encodable {
    var file: String
    var url: String
    var kind: String
    var playlist: Playlist
    var diagnostics: [Diagnostic]
}
