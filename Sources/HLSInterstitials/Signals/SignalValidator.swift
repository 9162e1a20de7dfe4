import HLSPlaylist

/// Checks the SCTE-35 signals of one playlist and the interstitials converted from them (pure).
///
/// Reports ``SignalRecognizer``'s diagnostics (markers that cannot be read or that disagree), and
/// `scte35-interstitial-mismatch` for an interstitial whose ID is a signalled break's (the IDs the
/// server writes, ``SignalledBreak/id``) but whose START-DATE, DURATION or PLANNED-DURATION differs
/// from the signal's by more than ``SignalRecognizer/tolerance``.
public enum SignalValidator {
    /// The signal diagnostics of a media playlist.
    public static func validate(_ playlist: MediaPlaylist, in document: PlaylistDocument) -> [Diagnostic] {
        let recognition = SignalRecognizer.recognize(playlist, document: document, file: document.file)
        var diagnostics = recognition.diagnostics
        guard !recognition.breaks.isEmpty else { return diagnostics }
        let breaks = Dictionary(recognition.breaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for range in playlist.dateRanges where range.className == InterstitialEvent.className {
            guard let item = breaks[range.id] else { continue }
            func report(_ attribute: String, _ message: String) {
                diagnostics.append(
                    Rule.scte35InterstitialMismatch.diagnostic(
                        at: document.location(of: attribute, in: range),
                        "\(message) (break \"\(item.id)\" signalled at line \(item.line))"))
            }
            if let start = range.startDate, let signalled = item.startDate, differ(start - signalled, .zero) {
                report("START-DATE", "START-DATE is \(start.iso8601), but the signal's OUT is at \(signalled.iso8601)")
            }
            if let duration = range.duration, let signalled = item.hasReturned ? item.duration : item.plannedDuration,
                differ(duration, signalled), range.clientAttributes.contains("X-PLAYOUT-LIMIT") == false
            {
                report("DURATION", "DURATION is \(duration) s, but the signal gives \(signalled) s")
            }
            if let planned = range.plannedDuration, let signalled = item.plannedDuration, differ(planned, signalled) {
                report("PLANNED-DURATION", "PLANNED-DURATION is \(planned) s, but the signal plans \(signalled) s")
            }
        }
        return diagnostics
    }

    private static func differ(_ left: MediaTime, _ right: MediaTime) -> Bool {
        abs((left - right).nanoseconds) > SignalRecognizer.tolerance.nanoseconds
    }
}
