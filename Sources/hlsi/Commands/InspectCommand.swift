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
            standard error as `path:line:column: severity: [rule] message` with the source line. \
            --json prints {"file","url","kind","playlist","diagnostics"}, also when the playlist \
            cannot be loaded (then url, kind and playlist are null and the failure is a diagnostic \
            of rule load-CODE).

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
        guard (0...1_000_000).contains(limit) else { throw ValidationError("--limit must be 0 to 1000000") }
    }

    func run() async throws {
        let (resource, result): (PlaylistLoader.Resource, ParseResult)
        do {
            (resource, result) = try await PlaylistLoader.withLoader { try await $0.loadPlaylist(location) }
        } catch let error as LoadError {
            if json {
                let report = InspectReport(
                    file: location, url: nil, kind: nil, playlist: nil, diagnostics: [error.diagnostic])
                Output.standardOutput(try Output.json(report))
                throw ExitCode(error.isContentError ? 1 : 2)
            }
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

/// The JSON form of `hlsi inspect --json`: the same keys when the playlist cannot be loaded, with
/// `url`, `kind` and `playlist` null and the failure as a diagnostic of rule `load-CODE`.
struct InspectReport: Encodable {
    var file: String
    var url: String?
    var kind: String?
    var playlist: Playlist?
    var diagnostics: [Diagnostic]

    private enum CodingKeys: String, CodingKey { case file, url, kind, playlist, diagnostics }

    /// Encodes every key, `null` included.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(url, forKey: .url)
        try container.encode(kind, forKey: .kind)
        try container.encode(playlist, forKey: .playlist)
        try container.encode(diagnostics, forKey: .diagnostics)
    }
}
