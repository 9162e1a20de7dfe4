/// What a pass over a document's lines learns for interpreting it: which kind of playlist it
/// is (§4.4: the first Media or Multivariant Playlist tag decides), the tags that belong to the
/// other kind, and how many URI lines there are.
///
/// The parser fills it while reading the lines; a document edited in code is surveyed again.
struct DocumentSurvey {
    /// A tag of the other kind of playlist.
    struct Misplaced {
        /// The 0-based line.
        var line: Int
        /// The tag.
        var tag: KnownTag
        /// Whether the tag is a Multivariant Playlist tag.
        var isMultivariant: Bool
    }

    /// Whether the playlist is a Multivariant Playlist.
    private(set) var isMultivariant = false
    private var kindDecided = false
    /// Tags of the other kind than the first deciding tag, in line order.
    private(set) var misplaced: [Misplaced] = []
    /// The number of URI lines.
    private(set) var uriLines = 0

    /// An empty survey, to fill line by line.
    init() {}

    /// The survey of a document's lines.
    init(lines: [Line]) {
        for index in lines.indices {
            switch lines[index].content {
            case .uri: noteURI()
            case .tag(let tag): if let known = tag.name.known { noteTag(known, line: index) }
            case .blank, .comment: continue
            }
        }
    }

    /// Counts a URI line.
    @inline(__always)
    mutating func noteURI() { uriLines += 1 }

    /// Notes a known tag at a 0-based line.
    @inline(__always)
    mutating func noteTag(_ known: KnownTag, line: Int) {
        let multivariant: Bool
        switch TagDefinition.scope(of: known) {
        case .multivariant: multivariant = true
        case .mediaPlaylist, .mediaSegment, .mediaMetadata: multivariant = false
        case .basic, .mediaOrMultivariant: return
        }
        if !kindDecided {
            isMultivariant = multivariant
            kindDecided = true
        } else if multivariant != isMultivariant {
            misplaced.append(Misplaced(line: line, tag: known, isMultivariant: multivariant))
        }
    }
}
