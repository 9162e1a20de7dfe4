import ArgumentParser
import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist

/// `hlsi schedule`: where each interstitial plays, where primary resumes, and the three durations.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Compute the interstitial schedule of a playlist: events, playout items and durations.",
        discussion: """
            Resolves every interstitial against the primary media playlist (a multivariant playlist is \
            followed to its first variant, whose DEFAULT audio rendition, else its first, counts for X-SNAP) with the rules of \
            the behavior profile. --resolve first loads every X-ASSET-LIST (relative URLs resolve \
            against the playlist; files work too), so that asset durations count; a list that fails \
            to load makes its event play nothing (R7).

            JSON: {"events":[{"id","start","resumeTime",…}],"items":[{"kind","id","primary":[s,e],\
            "playout":[s,e],"integrated":[s,e]}],"durations":{"primary","playout","integrated"}}, \
            in seconds; durations are null for live.

            Exit codes: 0 success, 1 the playlist has errors, 2 usage or I/O failure.
            """
    )

    @Argument(help: "A playlist file path or http(s) URL.")
    var location: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Flag(name: .long, help: "Load the asset lists before computing.")
    var resolve = false

    func run() async throws {
        let computed = try await Self.load(location, resolve: resolve)
        if json {
            Output.standardOutput(computed.schedule.jsonDocument)
        } else {
            Output.standardOutput(ScheduleTable(schedule: computed.schedule).text)
        }
        if computed.hasErrors { throw ExitCode(1) }
    }

    /// Computes the schedule for a command: load errors become command failures, warnings go to
    /// standard error.
    static func load(
        _ location: String, resolve: Bool
    ) async throws -> (schedule: InterstitialSchedule, hasErrors: Bool) {
        let computed: (schedule: InterstitialSchedule, warnings: [String], hasErrors: Bool)
        do {
            computed = try await PlaylistLoader.withLoader { loader in
                try await compute(location, resolve: resolve, loader: loader)
            }
        } catch let error as LoadError {
            throw CommandFailure(error)
        }
        for warning in computed.warnings { Output.standardError("warning: \(warning)") }
        return (computed.schedule, computed.hasErrors)
    }

    /// Loads the presentation (and with `resolve`, the asset lists) with ``PresentationLoader`` and
    /// computes the schedule.
    static func compute(
        _ location: String, resolve: Bool, loader: PlaylistLoader
    ) async throws
        -> (schedule: InterstitialSchedule, warnings: [String], hasErrors: Bool)
    {
        let presentation: PresentationLoader.Presentation
        do {
            presentation = try await PresentationLoader(fetcher: loader).load(
                location, options: .init(loadsAssetLists: resolve))
        } catch let error as PresentationLoader.PresentationError {
            switch error {
            case .noVariant(let location):
                throw CommandFailure(message: "\(location): the multivariant playlist has no variant", exitCode: 1)
            case .notMediaPlaylist(let location):
                throw CommandFailure(message: "\(location): not a media playlist", exitCode: 1)
            }
        }
        var warnings = presentation.renditionFailures.map { failure in
            "audio rendition \(failure.url) is left out of snapping (R6): \(failure.error)"
        }
        for failure in presentation.assetListFailures {
            warnings.append(
                "asset list \(failure.url) of \"\(failure.eventID ?? "")\" failed, so it plays nothing (R7): \(failure.error)"
            )
        }
        let schedule = InterstitialSchedule.resolve(presentation.scheduleInput)
        for event in schedule.events {
            if let problem = event.problem { warnings.append("\"\(event.id)\" is not scheduled: \(problem)") }
        }
        return (schedule, warnings, presentation.hasErrors)
    }
}

/// The text form of `hlsi schedule`: an events table, an items table and the durations.
struct ScheduleTable {
    var schedule: InterstitialSchedule

    var text: String {
        func time(_ value: MediaTime?) -> String { value.map { $0.formatted(fractionDigits: 3) } ?? "indefinite" }
        func range(_ value: Range<MediaTime>) -> String { "\(time(value.lowerBound))–\(time(value.upperBound))" }
        var rows: [[String]] = [["EVENT", "START", "RESUME", "OFFSET", "PLAYS", "CUE", "RESTRICT", "TIMELINE"]]
        for event in schedule.events {
            rows.append([
                event.id, time(event.start), time(event.resumeTime), time(event.resumptionOffset),
                event.isScheduled ? time(event.playoutDuration) : "never",
                event.event.cueTokens?.joined(separator: ",") ?? "-", event.event.restrictions.description,
                event.event.timelineOccupancy.attributeValue
                    + (event.event.supplementsPrimaryContent ? ",PRIMARY" : ""),
            ])
        }
        var text = Self.table(rows) + "\n"
        rows = [["#", "ITEM", "PRIMARY", "PLAYOUT", "INTEGRATED"]]
        for (index, item) in schedule.items.enumerated() {
            rows.append([
                String(index + 1), schedule.eventID(of: item).map { "ad \($0)" } ?? "primary",
                "\(time(item.primary.start))–\(time(item.primary.end))",
                range(item.playout), range(item.integrated),
            ])
        }
        text += Self.table(rows) + "\n"
        text += "durations: primary \(time(schedule.primaryDuration)), playout \(time(schedule.playoutDuration)), "
        text += "integrated \(time(schedule.integratedDuration))\(schedule.isLive ? " (live)" : "")\n"
        return text
    }

    static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }.joined()
        }.joined(separator: "\n") + "\n"
    }
}
