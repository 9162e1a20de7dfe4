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
            to load makes its event play nothing (R7). Date Range Schedules are always followed: \
            each schedule's JSON document is loaded and its entries count as date ranges of the \
            playlist (R27); events from a schedule name it ("scheduleIdentifier" in JSON), and what \
            a schedule leaves out is a warning.

            JSON: {"location","events":[{"id","start","resumeTime",…}],"items":[{"kind","id",\
            "primary":[s,e],"playout":[s,e],"integrated":[s,e]}],"durations":{"primary","playout",\
            "integrated"},"live","warnings":[…],"diagnostics":[…]}, in seconds; durations are null for \
            live. The diagnostics are the playlist's errors; when it cannot be loaded, the same keys \
            are printed with no events or items, null durations and live, and the failure as a \
            diagnostic of rule load-CODE.

            Exit codes: 0 success, 1 the playlist has errors, 2 usage or I/O failure.
            """
    )

    @Argument(help: "A playlist file path or http(s) URL.")
    var location: String

    @OptionGroup var output: JSONOutputOption

    @Flag(name: .long, help: "Load the asset lists before computing.")
    var resolve = false

    @Option(
        name: .long,
        help:
            "Where playback starts (a VOD start position or a live join point), in seconds from the first segment: events before it play only if they cover it (R26), PRE plays there (R9)."
    )
    var start: Double?

    func validate() throws {
        try checkSeconds(start, "--start")
    }

    func run() async throws {
        guard output.json else {
            let computed = try await Self.load(location, resolve: resolve, start: start)
            Output.standardOutput(ScheduleTable(schedule: computed.schedule).text)
            if computed.hasErrors { throw ExitCode(1) }
            return
        }
        // JSON is printed whatever happens, a failure to load included.
        do {
            let computed = try await PlaylistLoader.withLoader { loader in
                try await Self.compute(location, resolve: resolve, start: start, loader: loader)
            }
            try ScheduleReport(
                location: location, document: ScheduleDocument(computed.schedule), warnings: computed.warnings,
                diagnostics: computed.errors
            ).print()
            if !computed.errors.isEmpty { throw ExitCode(1) }
        } catch let error as LoadError {
            try ScheduleReport(location: location, failure: error.diagnostic).print()
            throw ExitCode(error.isContentError ? 1 : 2)
        } catch let error as PresentationLoader.PresentationError {
            try ScheduleReport(location: location, failure: Self.diagnostic(error)).print()
            throw ExitCode(1)
        }
    }

    /// Computes the schedule for a command: load errors become command failures, warnings go to
    /// standard error.
    static func load(
        _ location: String, resolve: Bool, start: Double? = nil
    ) async throws -> (schedule: InterstitialSchedule, hasErrors: Bool) {
        let computed: (schedule: InterstitialSchedule, warnings: [String], errors: [Diagnostic])
        do {
            computed = try await PlaylistLoader.withLoader { loader in
                try await compute(location, resolve: resolve, start: start, loader: loader)
            }
        } catch let error as LoadError {
            throw CommandFailure(error)
        } catch let error as PresentationLoader.PresentationError {
            throw CommandFailure(message: Self.diagnostic(error).description, exitCode: 1)
        }
        for warning in computed.warnings { Output.standardError("warning: \(warning)") }
        return (computed.schedule, !computed.errors.isEmpty)
    }

    /// A presentation without a primary media playlist, as a diagnostic of rule `load-no-variant` or
    /// `load-not-a-media-playlist` on the playlist as a whole (line 0).
    static func diagnostic(_ error: PresentationLoader.PresentationError) -> Diagnostic {
        switch error {
        case .noVariant(let location):
            Diagnostic(
                .error, "load-no-variant", at: SourceLocation(file: location, line: 0, column: 0),
                "the multivariant playlist has no variant stream, so there is no primary media playlist")
        case .notMediaPlaylist(let location):
            Diagnostic(
                .error, "load-not-a-media-playlist", at: SourceLocation(file: location, line: 0, column: 0),
                "expected a media playlist, found a multivariant playlist")
        }
    }

    /// Loads the presentation (and with `resolve`, the asset lists) with ``PresentationLoader`` and
    /// computes the schedule for playback that starts `start` seconds after the first segment (nil:
    /// at the first segment).
    static func compute(
        _ location: String, resolve: Bool, start: Double? = nil, loader: PlaylistLoader
    ) async throws
        -> (schedule: InterstitialSchedule, warnings: [String], errors: [Diagnostic])
    {
        let presentation = try await PresentationLoader(fetcher: loader).load(
            location, options: .init(loadsAssetLists: resolve, loadsSchedules: true))
        var warnings = presentation.renditionFailures.map { failure in
            "audio rendition \(failure.url) is left out of snapping (R6): \(failure.error)"
        }
        for problem in presentation.scheduleResolution?.problems ?? [] {
            warnings.append("\(problem) (R27)")
        }
        for failure in presentation.assetListFailures {
            warnings.append(
                "asset list \(failure.url) of \"\(failure.eventID ?? "")\" failed, so it plays nothing (R7): \(failure.error)"
            )
        }
        var input = presentation.scheduleInput
        if let start {
            input.playbackStart = (input.primary.segments.first?.startTime ?? .zero) + MediaTime(seconds: start)
        }
        let schedule = InterstitialSchedule.resolve(input)
        for event in schedule.events {
            if let problem = event.problem { warnings.append("\"\(event.id)\" is not scheduled: \(problem)") }
        }
        let errors =
            ((presentation.multivariant?.result.diagnostics ?? [])
            + presentation.primaryPlaylist.result
            .diagnostics).filter { $0.severity == .error }
        return (schedule, warnings, errors)
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

/// The JSON form of `hlsi schedule --json`: the schedule's document (``ScheduleDocument``, the
/// server's `timeline.json`) with the location, the warnings and the playlist's errors; the same
/// keys when the playlist cannot be loaded.
///
/// Written by a streaming ``PrettyJSONWriter`` (``json``), byte for byte what `JSONEncoder` gives
/// for its `Encodable` form (``Output/json(_:)``), without building a tree: a 24-hour playlist with
/// 10,000 events prints in a fraction of the time.
struct ScheduleReport: Encodable {
    var location: String
    var document: ScheduleDocument
    var live: Bool?
    var warnings: [String]
    var diagnostics: [Diagnostic]
    var events: [ScheduleDocument.Event] { document.events }
    var groups: [ScheduleDocument.Group] { document.groups }
    var items: [ScheduleDocument.Item] { document.items }
    var durations: ScheduleDocument.Durations { document.durations }
    var startDate: String? { document.startDate }

    /// The report of a computed schedule.
    init(location: String, document: ScheduleDocument, warnings: [String], diagnostics: [Diagnostic]) {
        self.location = location
        self.document = document
        live = document.live
        self.warnings = warnings
        self.diagnostics = diagnostics
    }

    /// The report of a playlist that gave no schedule.
    init(location: String, failure: Diagnostic) {
        self.location = location
        document = ScheduleDocument(
            events: [], items: [], durations: ScheduleDocument.Durations(primary: nil, playout: nil, integrated: nil),
            live: false)
        live = nil
        warnings = []
        diagnostics = [failure]
    }

    private enum CodingKeys: String, CodingKey {
        case location, events, groups, items, durations, live, startDate, warnings, diagnostics
    }

    /// Encodes every key, `null` included.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(location, forKey: .location)
        try container.encode(events, forKey: .events)
        try container.encode(groups, forKey: .groups)
        try container.encode(items, forKey: .items)
        try container.encode(durations, forKey: .durations)
        try container.encode(live, forKey: .live)
        try container.encode(startDate, forKey: .startDate)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(diagnostics, forKey: .diagnostics)
    }

    /// The report as pretty JSON with sorted keys, ending with a newline (the keys in sorted order).
    func json() throws -> [UInt8] {
        var writer = PrettyJSONWriter(capacity: 512 * (events.count + items.count) + 1024)
        writer.beginObject()
        writer.key("diagnostics")
        try writer.encoded(diagnostics)
        document.writeTimelineMembers(into: &writer)
        writer.key("live")
        if let live { writer.bool(live) } else { writer.null() }
        writer.key("location")
        writer.string(location)
        writer.key("startDate")
        writer.string(startDate)
        writer.key("warnings")
        writer.beginArray()
        for warning in warnings { writer.string(warning) }
        writer.endArray()
        writer.endObject()
        var bytes = writer.bytes
        writer = PrettyJSONWriter()  // the bytes are the only copy: the newline goes in place
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Prints ``json()``; as ``Output/standardOutput(_:)`` would, control characters (which JSON
    /// leaves in strings only from U+007F on) are escaped for the terminal.
    func print() throws {
        let bytes = try json()
        // U+007F is 0x7F; U+0080...U+009F are 0xC2 0x80...0x9F in UTF-8.
        var hasControls = false
        for index in bytes.indices where bytes[index] == 0x7F || bytes[index] == 0xC2 {
            if bytes[index] == 0x7F || (index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1])) {
                hasControls = true
                break
            }
        }
        if hasControls {
            Output.standardOutput(String(decoding: bytes, as: UTF8.self))
        } else {
            Output.document(bytes)
        }
    }
}
