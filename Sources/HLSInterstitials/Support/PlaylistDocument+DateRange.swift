import HLSPlaylist

extension PlaylistDocument {
    /// Where `attribute` of a consolidated date range is written: on the first of its tags that has
    /// it, else at the start of its first tag.
    package func location(of attribute: String, in range: DateRange) -> SourceLocation {
        let line = range.lines.first { line in
            lines.indices.contains(line - 1)
                && lines[line - 1].content.tag?.value.attributes?.contains(attribute) == true
        }
        return line.map { location(line: $0 - 1, attribute: attribute) } ?? location(line: range.lines[0] - 1)
    }
}
