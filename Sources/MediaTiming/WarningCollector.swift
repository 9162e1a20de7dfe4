/// Keeps at most ``MediaTimingParser/maximumWarnings`` warnings and counts the others, so a hostile
/// segment (a continuity error in every packet) costs bounded memory.
struct WarningCollector {
    private(set) var kept: [MediaTimingError] = []
    private var dropped = 0

    /// Adds a warning, or counts it past the limit.
    mutating func add(_ warning: @autoclosure () -> MediaTimingError) {
        if kept.count < MediaTimingParser.maximumWarnings {
            kept.append(warning())
        } else {
            dropped += 1
        }
    }

    /// The kept warnings and, when some were dropped, one summary.
    func finished() -> [MediaTimingError] {
        guard dropped > 0, let last = kept.last else { return kept }
        return kept + [
            MediaTimingError(
                .warningLimit, offset: last.offset, path: last.path,
                "\(dropped) more warnings not shown (at most \(MediaTimingParser.maximumWarnings) are kept)")
        ]
    }
}
