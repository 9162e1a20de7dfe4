import HLSPlaylist

/// An SCTE-35 marker of a media playlist that is not converted as written, with the diagnostic
/// `hlsi validate` gives for it (pure; profile R29).
///
/// The refusals are the markers whose section does not decode (`scte35-section`), whose
/// EXT-X-CUE-OUT or EXT-X-CUE-OUT-CONT value cannot be read (`scte35-marker`), whose date range has
/// no START-DATE (`daterange-start-date`), and the errors the playlist parser reports on the tag of
/// a marker (a negative DURATION, `attribute-type`, makes clients ignore the whole tag). Each
/// diagnostic's message says what becomes of the marker. Disagreements between markers that are
/// still converted (`scte35-duration-mismatch`, …) and an IN whose OUT has left a live window are
/// no refusals.
public struct SignalRefusal: Hashable, Sendable {
    /// The diagnostic, with the rule ID `hlsi validate` gives and a message that says what becomes
    /// of the marker.
    public var diagnostic: Diagnostic
    /// The marker's tag line, clipped to ``maximumMarkerBytes`` bytes.
    public var marker: String
    /// The date of the segment an older-form marker (EXT-X-CUE-*, EXT-OATCLS-SCTE35) applies to; nil
    /// for a date range, whose own text dates it. With ``marker`` and the rule, it identifies a
    /// marker across the reloads of a live window, where its line changes.
    public var date: DateTime?

    /// A refusal.
    public init(diagnostic: Diagnostic, marker: String, date: DateTime? = nil) {
        self.diagnostic = diagnostic
        self.marker = marker
        self.date = date
    }

    /// The most refusals found in one playlist (the first ones, in line order): bounded work and
    /// logging for a hostile playlist.
    public static let maximumPerPlaylist = 64
    /// The most bytes of a marker's line kept in ``marker``.
    public static let maximumMarkerBytes = 256

    /// The recognizer's rules that refuse a marker, or part of one.
    static let recognizerRules: Set<RuleID> = [Rule.scte35Section.id, Rule.scte35Marker.id]

    /// The refusals of `playlist`, parsed from `document` with the parser's `parserDiagnostics`, whose
    /// markers ``SignalRecognizer/recognize(_:document:file:clock:)`` read as `recognition`; in line order,
    /// at most ``maximumPerPlaylist``.
    public static func find(
        in playlist: MediaPlaylist, document: PlaylistDocument, parserDiagnostics: [Diagnostic],
        recognition: SignalRecognizer.Recognition
    ) -> [SignalRefusal] {
        var found: [Diagnostic] = recognition.diagnostics.filter { recognizerRules.contains($0.rule) }
        // R29: a date range that says where a break starts only through START-DATE cannot place it
        // without one. (A START-DATE that is there but not a date is the parser's attribute-type.)
        for range in playlist.dateRanges
        where (range.scte35Out != nil || range.scte35Command != nil) && !range.attributes.contains("START-DATE") {
            found.append(
                Rule.dateRangeStartDate.diagnostic(
                    at: document.location(line: (range.lines.first ?? 1) - 1),
                    "date range \"\(Diagnostic.clipped(range.id))\" has no START-DATE; \(Rule.dateRangeStartDate.quote); its SCTE-35 marker places no break (profile R29)"
                ))
            if found.count >= maximumPerPlaylist * 2 { break }
        }
        // The parser's errors on the tag of a marker; a tag it ignored is not in `playlist` at all.
        let kept = Set(playlist.dateRanges.flatMap(\.lines))
        for diagnostic in parserDiagnostics
        where diagnostic.severity == .error && diagnostic.rule != Rule.diagnosticLimit.id {
            let index = diagnostic.location.line - 1
            guard document.lines.indices.contains(index), isMarker(document, line: index) else { continue }
            var refused = diagnostic
            if document.lines[index].content.tag?.name == .dateRange, !kept.contains(diagnostic.location.line) {
                refused.message += "; the tag is ignored, and its SCTE-35 marker with it (profile R29)"
            }
            found.append(refused)
            if found.count >= maximumPerPlaylist * 2 { break }
        }
        return found.sortedByLocation().prefix(maximumPerPlaylist).map { diagnostic in
            let index = diagnostic.location.line - 1
            let text = document.lines.indices.contains(index) ? document.text(ofLine: index) : ""
            let isDateRange =
                document.lines.indices.contains(index) && document.lines[index].content.tag?.name == .dateRange
            return SignalRefusal(
                diagnostic: diagnostic, marker: Diagnostic.clipped(text, limit: maximumMarkerBytes),
                date: isDateRange ? nil : SignalRecognizer.position(after: index + 1, in: playlist).date)
        }
    }

    /// Whether line `index` (0-based) of `document` is a marker's tag: one of the older forms, or an
    /// EXT-X-DATERANGE that carries SCTE35-OUT, SCTE35-IN or SCTE35-CMD (read from the line's text,
    /// so that a tag whose attributes do not parse counts too).
    static func isMarker(_ document: PlaylistDocument, line index: Int) -> Bool {
        guard let name = document.lines[index].content.tag?.name else { return false }
        if SignalRecognizer.isSignalTag(name) { return true }
        guard name == .dateRange else { return false }
        let text = document.text(ofLine: index)
        return text.contains("SCTE35-OUT") || text.contains("SCTE35-IN") || text.contains("SCTE35-CMD")
    }
}
