import HLSPlaylist

/// Checks the rules that span the media playlists of one presentation (§6.2.4, App. D.2): the same
/// date ranges everywhere, same-start interstitials in the same order, date ranges in every variant,
/// and PROGRAM-DATE-TIME in all playlists or none.
public enum RenditionValidator {
    /// One loaded media playlist of the presentation.
    public struct MediaPlaylistEntry: Sendable {
        /// The URI as the multivariant playlist writes it.
        public var uri: String
        /// The parsed media playlist and its document.
        public var playlist: MediaPlaylist
        /// The document, for locations.
        public var document: PlaylistDocument

        /// Creates an entry.
        public init(uri: String, playlist: MediaPlaylist, document: PlaylistDocument) {
            self.uri = uri
            self.playlist = playlist
            self.document = document
        }
    }

    /// The cross-playlist diagnostics of a presentation.
    ///
    /// - Parameters:
    ///   - multivariant: the multivariant playlist.
    ///   - document: the multivariant playlist's document, for locations.
    ///   - media: every media playlist that loaded, keyed by the URI the multivariant playlist writes.
    public static func validate(
        multivariant: MultivariantPlaylist, document: PlaylistDocument, media: [MediaPlaylistEntry]
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let byURI = Dictionary(media.map { ($0.uri, $0) }, uniquingKeysWith: { first, _ in first })

        // PROGRAM-DATE-TIME in all or none.
        let dated = media.filter { $0.playlist.segments.contains { $0.programDateTime != nil } }
        if !dated.isEmpty {
            for entry in media where !dated.contains(where: { $0.uri == entry.uri }) {
                diagnostics.append(
                    Rule.renditionsProgramDateTime.diagnostic(
                        at: entry.document.location(line: 0),
                        "\(entry.uri) has no EXT-X-PROGRAM-DATE-TIME but \(dated[0].uri) has; \(Rule.renditionsProgramDateTime.quote)"
                    ))
            }
        }

        // The same set of date ranges with the same attribute/value pairs.
        let withRanges = media.filter { !$0.playlist.dateRanges.isEmpty }
        if let reference = withRanges.first {
            let expected = Dictionary(
                reference.playlist.dateRanges.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for entry in withRanges.dropFirst() {
                var seen: Set<String> = []
                for range in entry.playlist.dateRanges {
                    seen.insert(range.id)
                    let location = entry.document.location(line: range.lines[0] - 1)
                    guard let other = expected[range.id] else {
                        diagnostics.append(
                            Rule.renditionsDateRanges.diagnostic(
                                at: location,
                                "date range \"\(range.id)\" is in \(entry.uri) but not in \(reference.uri); \(Rule.renditionsDateRanges.quote)"
                            ))
                        continue
                    }
                    if let difference = difference(range.attributes, other.attributes) {
                        diagnostics.append(
                            Rule.renditionsDateRanges.diagnostic(
                                at: location,
                                "date range \"\(range.id)\" differs between \(entry.uri) and \(reference.uri): \(difference); \(Rule.renditionsDateRanges.quote)"
                            ))
                    }
                }
                for range in reference.playlist.dateRanges where !seen.contains(range.id) {
                    diagnostics.append(
                        Rule.renditionsDateRanges.diagnostic(
                            at: entry.document.location(line: 0),
                            "date range \"\(range.id)\" of \(reference.uri) is missing from \(entry.uri); \(Rule.renditionsDateRanges.quote)"
                        ))
                }
                diagnostics += orderDiagnostics(entry, reference)
            }
            // Every variant plays at least one playlist with date ranges.
            for variant in multivariant.variants {
                var uris = [variant.uri]
                for (type, group) in [
                    ("AUDIO", variant.audio), ("VIDEO", variant.video), ("SUBTITLES", variant.subtitles),
                ] {
                    guard let group else { continue }
                    uris += multivariant.renditions.filter { $0.type == type && $0.groupID == group }.compactMap(\.uri)
                }
                let loaded = uris.compactMap { byURI[$0] }
                if loaded.count == uris.count, !loaded.contains(where: { !$0.playlist.dateRanges.isEmpty }) {
                    diagnostics.append(
                        Rule.renditionsDateRangesMissing.diagnostic(
                            at: document.location(line: variant.line - 1),
                            "variant stream \(variant.uri) has no playlist with date ranges, but \(reference.uri) has them; \(Rule.renditionsDateRangesMissing.quote)"
                        ))
                }
            }
        }
        return diagnostics
    }

    /// The first difference between two attribute lists, compared as sets of name/value pairs.
    static func difference(_ lhs: AttributeList, _ rhs: AttributeList) -> String? {
        let left = lhs.firstValues
        let right = rhs.firstValues
        for attribute in lhs {
            let name = Diagnostic.clipped(attribute.name)
            guard let other = right[attribute.name] else { return "\(name) is only in one" }
            if other != attribute.value {
                return
                    "\(name)=\(Diagnostic.clipped(attribute.value.rawValue)) against \(Diagnostic.clipped(other.rawValue))"
            }
        }
        for attribute in rhs where left[attribute.name] == nil {
            return "\(Diagnostic.clipped(attribute.name)) is only in one"
        }
        return nil
    }

    /// Same-start interstitials in another order than in the reference playlist.
    private static func orderDiagnostics(_ entry: MediaPlaylistEntry, _ reference: MediaPlaylistEntry) -> [Diagnostic] {
        func groups(_ playlist: MediaPlaylist) -> [DateTime: [String]] {
            var result: [DateTime: [String]] = [:]
            for range in playlist.dateRanges where range.className == InterstitialEvent.className {
                if let start = range.startDate { result[start, default: []].append(range.id) }
            }
            return result
        }
        let expected = groups(reference.playlist)
        var diagnostics: [Diagnostic] = []
        for (start, ids) in groups(entry.playlist) {
            guard let referenceIDs = expected[start] else { continue }
            let common = ids.filter(referenceIDs.contains)
            let referenceCommon = referenceIDs.filter(common.contains)
            if common != referenceCommon,
                let line = entry.playlist.dateRanges.first(where: { $0.id == common[0] })?.lines[0]
            {
                diagnostics.append(
                    Rule.renditionsInterstitialOrder.diagnostic(
                        at: entry.document.location(line: line - 1),
                        "interstitials at \(start) are in the order \(common.joined(separator: ", ")) in \(entry.uri) but \(referenceCommon.joined(separator: ", ")) in \(reference.uri); \(Rule.renditionsInterstitialOrder.quote)"
                    ))
            }
        }
        return diagnostics
    }
}
