import HLSPlaylist

/// Checks the Date Range Schedules of a media playlist once their documents are loaded: each
/// document's problems and what resolution leaves out (profile R27), and every entry against the
/// date-range and interstitial rules as if its tag were in the playlist.
///
/// Pure: the caller loads the documents and passes them in. Diagnostics point at the schedule tag
/// and name the entry's JSON path.
public enum ScheduleValidator {
    /// The resolution of `playlist`'s schedules and its diagnostics.
    ///
    /// - Parameters:
    ///   - playlist: the media playlist.
    ///   - document: its source, for locations.
    ///   - playlistURL: where it was loaded from (X-URIs resolve against it).
    ///   - documents: the loaded (or failed) documents by identity.
    public static func validate(
        _ playlist: MediaPlaylist, in document: PlaylistDocument, playlistURL: String?,
        documents: [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>]
    ) -> (resolution: DateRangeScheduleResolution, diagnostics: [Diagnostic]) {
        let resolution = DateRangeScheduleResolution.resolve(
            playlist: playlist, playlistURL: playlistURL, documents: documents)
        var schedules: [String: DateRangeSchedule] = [:]
        for schedule in resolution.schedules where schedules[schedule.identifier] == nil {
            schedules[schedule.identifier] = schedule
        }
        func name(_ id: String) -> String {
            "schedule \"\(Diagnostic.clipped(id))\"" + (schedules[id].map { " (\($0.resolvedURI))" } ?? "")
        }
        var diagnostics: [Diagnostic] = []
        for problem in resolution.problems {
            let line = (schedules[problem.scheduleIdentifier]?.lines.first ?? 1) - 1
            diagnostics.append(
                Rule.schedule(problem.error.code).diagnostic(
                    at: document.location(line: line), "\(name(problem.scheduleIdentifier)): \(problem.error)"))
        }
        let entries = resolution.dateRanges.filter { $0.scheduleIdentifier != nil }
        let owners = Dictionary(
            entries.map { ($0.dateRange.id, $0.scheduleIdentifier ?? "") }, uniquingKeysWith: { first, _ in first })
        diagnostics += InterstitialValidator.validate(dateRanges: entries.map(\.dateRange), in: document) { range in
            "\(name(owners[range.id] ?? "")), entry \"\(Diagnostic.clipped(range.id))\": "
        }
        return (resolution, diagnostics.sortedByLocation())
    }
}
