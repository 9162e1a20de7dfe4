/// What the lines read so far say about the kind of playlist (§4.4: the first Media or
/// Multivariant Playlist tag decides). The interpreter notes every tag as it reads it, and learns
/// which tags belong to the other kind.
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
    /// Whether a Media or Multivariant Playlist tag has decided the kind.
    private(set) var isDecided = false

    /// An empty survey, to fill line by line.
    init() {}

    /// Notes a known tag at a 0-based line; returns it when it belongs to the other kind.
    @inline(__always)
    mutating func noteTag(_ known: KnownTag, line: Int) -> Misplaced? {
        let multivariant: Bool
        switch TagDefinition.scope(of: known) {
        case .multivariant: multivariant = true
        case .mediaPlaylist, .mediaSegment, .mediaMetadata: multivariant = false
        case .basic, .mediaOrMultivariant: return nil
        }
        if !isDecided {
            isMultivariant = multivariant
            isDecided = true
        } else if multivariant != isMultivariant {
            return Misplaced(line: line, tag: known, isMultivariant: multivariant)
        }
        return nil
    }
}
