import HLSPlaylist

/// Checks the live reload rules between two successive versions of a media playlist (§4.4.5.1.1, §6.2.1).
public enum ReloadValidator {
    /// The diagnostics of `current` against the `previous` load of the same playlist.
    ///
    /// A date range that is still present must keep every attribute with the same value; one that is
    /// gone must no longer map to any segment of `current` (its range is START-DATE to its end, or
    /// to START-DATE + PLANNED-DURATION, or the start alone while its duration is unknown).
    public static func validate(
        previous: MediaPlaylist, current: MediaPlaylist, document: PlaylistDocument
    ) -> [Diagnostic] {
        var diagnostics = DiagnosticCollector(file: document.file)
        let now = Dictionary(current.dateRanges.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for old in previous.dateRanges {
            if let new = now[old.id] {
                let values = new.attributes.firstValues
                for attribute in old.attributes {
                    let name = Diagnostic.clipped(attribute.name)
                    let was = Diagnostic.clipped(attribute.value.rawValue)
                    guard let value = values[attribute.name] else {
                        diagnostics.add(line: new.lines.first ?? 0, severity: Rule.reloadDateRangeChanged.severity) {
                            Rule.reloadDateRangeChanged.diagnostic(
                                at: document.location(of: attribute.name, in: new),
                                "date range \"\(old.id)\" lost \(name)=\(was) on reload; \(Rule.reloadDateRangeChanged.quote)"
                            )
                        }
                        continue
                    }
                    if value != attribute.value {
                        diagnostics.add(line: new.lines.first ?? 0, severity: Rule.reloadDateRangeChanged.severity) {
                            Rule.reloadDateRangeChanged.diagnostic(
                                at: document.location(of: attribute.name, in: new),
                                "date range \"\(old.id)\" changed \(name) from \(was) to \(Diagnostic.clipped(value.rawValue)) on reload; \(Rule.reloadDateRangeChanged.quote)"
                            )
                        }
                    }
                }
            } else if let start = old.startDate,
                let segment = current.segments.first(where: { segment in
                    guard let date = segment.date else { return false }
                    let end = start + (old.resolvedDuration ?? old.plannedDuration ?? .zero)
                    return date <= end && start < date + segment.duration
                })
            {
                diagnostics.add(line: segment.line, severity: Rule.reloadDateRangeRemoved.severity) {
                    Rule.reloadDateRangeRemoved.diagnostic(
                        at: document.location(line: segment.line - 1),
                        "date range \"\(old.id)\" was removed although its range still maps to segment \(segment.uri) (\(segment.date.map(\.iso8601) ?? "")); \(Rule.reloadDateRangeRemoved.quote)"
                    )
                }
            }
        }
        return diagnostics.finished().limited()
    }
}
