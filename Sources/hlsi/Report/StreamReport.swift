import HLSInterstitials
import HLSLoading
import HLSPlaylist

/// Everything `hlsi report` puts in its HTML page, gathered by ``ReportCommand`` and drawn by
/// ``ReportHTML``: the validation (what `hlsi validate --recursive` checks, with `--media` the
/// segment timing too), the schedule (what `hlsi schedule --resolve` computes) and, with `--play`,
/// the headless player's trace.
struct StreamReport: Sendable {
    /// One line of the player's trace (a ``PlaybackEvent`` or a media timing line), flattened.
    struct TraceLine: Sendable, Hashable {
        /// Clock seconds since the player started.
        var time: Double
        /// The event's name, such as `interstitialStarted` or `mediaTransition`.
        var event: String
        /// The primary position, when known.
        var primaryTime: Double?
        /// The event's fields in order, as text.
        var fields: [Field]

        /// A named value, as text.
        struct Field: Sendable, Hashable {
            var name: String
            var value: String
        }

        /// The value of a field.
        subscript(name: String) -> String? { fields.first { $0.name == name }?.value }
    }

    /// What was asked for: a playlist path or URL.
    var location: String
    /// When the report was made (ISO 8601), shown in the heading.
    var generated: String
    /// The validation, as `hlsi validate --recursive` (or `--media`) finds it.
    var validation: StreamValidator.Report
    /// The schedule computed from the resolved presentation; nil when it could not be computed.
    var schedule: InterstitialSchedule?
    /// Why the schedule could not be computed, or what it had to leave out.
    var scheduleNotes: [String] = []
    /// Whether the report was asked for with `--play`.
    var played = false
    /// The player's trace, oldest first (at most ``maximumTraceLines``).
    var trace: [TraceLine] = []
    /// Trace lines left out past ``maximumTraceLines``.
    var traceOmitted = 0
    /// Why playback could not run, when it could not.
    var playFailure: String?

    /// The most trace lines kept in a report.
    static let maximumTraceLines = 5000

    /// The number of error diagnostics.
    var errorCount: Int { validation.diagnostics.filter { $0.severity == .error }.count }
    /// The number of warning diagnostics.
    var warningCount: Int { validation.diagnostics.filter { $0.severity == .warning }.count }
}
