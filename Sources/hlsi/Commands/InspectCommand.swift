import ArgumentParser
import Foundation
import HLSInterstitials
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

            --schedules follows the Date Range Schedules (R27): each schedule's JSON document is \
            loaded and its entries are listed as date ranges of the playlist, each with the schedule \
            it came from; --json then adds "schedules":[{"id","uri","entries","problems"}], and what \
            a schedule leaves out is a warning on standard error.

            Exit codes: 0 no errors, 1 the playlist has errors, 2 usage or I/O failure.
            """
    )

    @Argument(help: "A playlist file path or http(s) URL.")
    var location: String

    @Flag(name: .long, help: "Print the whole model and the diagnostics as JSON.")
    var json = false

    @Flag(name: .long, help: "Load each Date Range Schedule's document and list its entries (R27).")
    var schedules = false

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
        var playlist = result.playlist
        var followed: [InspectReport.Schedule]?
        var scheduleOf: [String: String] = [:]
        if schedules, case .media(let media) = playlist {
            let url = resource.finalLocation
            let resolution = try await PlaylistLoader.withLoader { loader in
                var store = DateRangeScheduleStore()
                return await PresentationLoader(fetcher: loader).loadSchedules(
                    of: media, playlistURL: url, into: &store)
            }
            playlist = .media(resolution.applied(to: media))
            for range in resolution.dateRanges {
                if let schedule = range.scheduleIdentifier { scheduleOf[range.dateRange.id] = schedule }
            }
            followed = InspectReport.schedules(resolution)
            for problem in resolution.problems { Output.standardError("warning: \(problem) (R27)") }
        }
        if json {
            var report = InspectReport(
                file: location, url: resource.finalLocation, kind: result.playlist.kindName, playlist: playlist,
                diagnostics: result.diagnostics)
            report.schedules = followed
            Output.standardOutput(try Output.json(report))
        } else {
            Output.standardOutput(
                InspectSummary(location: location, playlist: playlist, limit: limit, scheduleOf: scheduleOf).text)
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
    /// The schedules followed with `--schedules`; the key is absent without it.
    var schedules: [Schedule]?

    /// One Date Range Schedule followed: its tag's ID, its document's URI, the IDs of the entries it
    /// added and what it left out.
    struct Schedule: Encodable {
        var id: String
        var uri: String
        var entries: [String]
        var problems: [JSONValue]
    }

    static func schedules(_ resolution: DateRangeScheduleResolution) -> [Schedule] {
        resolution.schedules.map { schedule in
            Schedule(
                id: schedule.identifier, uri: schedule.resolvedURI,
                entries: resolution.dateRanges.filter { $0.scheduleIdentifier == schedule.identifier }.map(
                    \.dateRange.id),
                problems: resolution.problems.filter { $0.scheduleIdentifier == schedule.identifier }.map(
                    \.error.errorJSON))
        }
    }

    private enum CodingKeys: String, CodingKey { case file, url, kind, playlist, diagnostics, schedules }

    /// Encodes every key, `null` included.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(url, forKey: .url)
        try container.encode(kind, forKey: .kind)
        try container.encode(playlist, forKey: .playlist)
        try container.encode(diagnostics, forKey: .diagnostics)
        try container.encodeIfPresent(schedules, forKey: .schedules)
    }
}
