import HLSPlaylist

/// Writes a stitched media playlist line by line: the primary's lines verbatim, and the tags a
/// stitched segment needs when it does not follow its predecessor (EXT-X-DISCONTINUITY, the EXT-X-MAP,
/// EXT-X-KEY and EXT-X-PROGRAM-DATE-TIME in force), tracking what is in force as it goes.
///
/// Shared by ``VODStitcher`` and ``LiveStitcher``: one place decides what a segment after a splice
/// restates (profile R28).
struct StitchWriter {
    /// Where the last segment written came from.
    enum Origin: Equatable {
        /// Primary segment `index`.
        case primary(Int)
        /// A segment of an ad.
        case ad
    }

    let document: PlaylistDocument
    let playlist: MediaPlaylist
    let map: PrimarySegmentLines
    private(set) var output: [Line] = []
    private(set) var ads: [StitchedPlaylist.AdSpan] = []
    private let terminator: LineTerminator
    /// The EXT-X-MAP in force in the output, as an identity (`nil`: none).
    private var mapInForce: String?
    /// The EXT-X-KEY tags in force in the output, as an identity (empty: none).
    private var keysInForce = ""
    /// The last primary segment whose state lines were written.
    private var stateThrough = -1
    /// Where the last segment written came from; nil before the first.
    private(set) var last: Origin?
    /// Segments written.
    private(set) var segmentCount = 0
    /// The longest segment written from an ad, rounded as §4.4.3.1 rounds (0 when none).
    private(set) var longestAdSegment: Int64 = 0
    /// The break whose pod was cut, when the next primary segment written is where it ends (an ad
    /// written first clears it).
    var resumeAfter: String?
    /// The primary segments written where a cut pod's break ends.
    private(set) var resumptions: [StitchedPlaylist.Resumption] = []

    init(document: PlaylistDocument, playlist: MediaPlaylist, map: PrimarySegmentLines) {
        self.document = document
        self.playlist = playlist
        self.map = map
        self.terminator = document.preferredTerminator
    }

    // MARK: Primary

    /// Writes the state lines of the primary segments before `index` not yet written (the header
    /// with the first), so the tags in force before `index` are in the output.
    mutating func writeState(before index: Int) {
        while stateThrough < index - 1 {
            stateThrough += 1
            for (position, line) in map.lines[stateThrough].enumerated() where !map.isOwn[stateThrough][position] {
                copy(line)
            }
            noteState(of: stateThrough)
        }
    }

    /// Writes primary segment `index`: verbatim when it follows its predecessor; otherwise with a
    /// discontinuity and the map, keys and date it needs restated.
    ///
    /// - Parameter discontinuity: whether to add EXT-X-DISCONTINUITY (when the segment has none);
    ///   nil: when it does not follow its predecessor and is not the first segment written.
    /// - Returns: whether it added EXT-X-DISCONTINUITY.
    @discardableResult
    mutating func writePrimary(_ index: Int, discontinuity: Bool? = nil) throws(StitchingError) -> Bool {
        writeState(before: index)
        let fresh = index > stateThrough
        let contiguous = last == .primary(index - 1) || (last == nil && index == 0)
        let addsDiscontinuity = (discontinuity ?? (!contiguous && last != nil)) && !map.hasDiscontinuity[index]
        let lines = map.lines[index]
        if contiguous && fresh && !addsDiscontinuity {
            for line in lines { copy(line) }
        } else {
            if fresh {
                for (position, line) in lines.enumerated() where !map.isOwn[index][position] { copy(line) }
                noteState(of: index)
            }
            let segment = playlist.segments[index]
            if addsDiscontinuity {
                try add(.tag(Tag(.discontinuity)), at: "primary segment \(index)")
            }
            if Self.identity(ofPrimary: segment.map) != mapInForce {
                guard let section = segment.map else {
                    throw StitchingError(
                        .format, at: "primary line \(segment.line)",
                        "a segment without EXT-X-MAP (MPEG-TS) cannot follow one with it: an EXT-X-MAP stays in force until the next one, so an ad and its primary must have the same segment format (profile R28)"
                    )
                }
                try add(.tag(Tag(.map, attributes: section.attributes)), at: "primary line \(segment.line)")
            }
            if Self.identity(ofPrimary: segment.keys) != keysInForce {
                try writeKeys(segment.keys.map(\.attributes), at: "primary line \(segment.line)")
            }
            if let date = segment.date, !map.hasDate[index] {
                try add(.tag(Tag(.programDateTime, .dateTime(date))), at: "primary line \(segment.line)")
            }
            for (position, line) in lines.enumerated() where map.isOwn[index][position] {
                if let byteRange = map.byteRange[index], byteRange.line == line {
                    // Its predecessor may be gone: state the offset the range had.
                    try add(.tag(Tag(.byteRange, .byteRange(byteRange.range))), at: "primary line \(line + 1)")
                } else {
                    copy(line)
                }
            }
        }
        if fresh { stateThrough = index }
        if let id = resumeAfter {
            resumptions.append(StitchedPlaylist.Resumption(breakID: id, segment: segmentCount))
            resumeAfter = nil
        }
        mapInForce = Self.identity(ofPrimary: playlist.segments[index].map)
        keysInForce = Self.identity(ofPrimary: playlist.segments[index].keys)
        last = .primary(index)
        segmentCount += 1
        return addsDiscontinuity
    }

    /// Writes the state lines of every primary segment not yet written, then the lines after the
    /// last segment.
    mutating func finish() {
        writeState(before: map.lines.count)
        for line in map.trailer { copy(line) }
    }

    // MARK: Ads

    /// Writes segments `range` of an ad, with EXT-X-DISCONTINUITY before the ad's first segment
    /// (when `discontinuityAtStart`) and where the ad has one.
    ///
    /// - Returns: the discontinuities written.
    @discardableResult
    mutating func writeAd(
        _ ad: StitchAd, eventID: String, adIndex: Int, segments range: Range<Int>, discontinuityAtStart: Bool
    ) throws(StitchingError) -> Int {
        // The header comes first, whatever plays before primary.
        if output.isEmpty { writeState(before: min(1, map.lines.count)) }
        let location = "event \"\(eventID)\", ad \(adIndex + 1) (\(ad.url))"
        let first = segmentCount
        var length = MediaTime.zero
        var discontinuities = 0
        var nextOffset: [String: UInt64] = [:]
        // Byte ranges without an offset follow the ad's earlier segments, written or not.
        for segment in ad.playlist.segments.prefix(range.lowerBound) {
            if let byteRange = segment.byteRange {
                nextOffset[segment.uri] = (byteRange.offset ?? nextOffset[segment.uri] ?? 0) &+ byteRange.length
            }
        }
        if !range.isEmpty { resumeAfter = nil }
        for position in range {
            let segment = ad.playlist.segments[position]
            if position == 0 ? discontinuityAtStart : segment.discontinuity {
                discontinuities += 1
                try add(.tag(Tag(.discontinuity)), at: location)
            }
            if let section = segment.map {
                let uri = Self.absolute(section.uri, ad)
                let identity = "ad|\(uri)|\(section.byteRange?.description ?? "")"
                if identity != mapInForce {
                    var attributes: [Attribute] = [Attribute(name: "URI", value: try Self.quoted(uri, at: location))]
                    if let range = section.byteRange {
                        attributes.append(
                            Attribute(name: "BYTERANGE", value: try Self.quoted(range.description, at: location)))
                    }
                    try add(.tag(Tag(.map, attributes: AttributeList(attributes))), at: location)
                    mapInForce = identity
                }
            } else if mapInForce != nil {
                throw StitchingError(
                    .format, at: location,
                    "the ad's segments have no EXT-X-MAP (MPEG-TS) but the primary's have one (fMP4); an ad rendition must have the primary's segment format (profile R28)"
                )
            }
            var keys: [AttributeList] = []
            for key in segment.keys {
                var list: [Attribute] = []
                for attribute in key.attributes {
                    if attribute.name == "URI", let uri = attribute.value.quotedString {
                        let absolute = Self.absolute(uri, ad)
                        list.append(Attribute(name: "URI", value: try Self.quoted(absolute, at: location)))
                    } else {
                        list.append(attribute)
                    }
                }
                keys.append(AttributeList(list))
            }
            let keyIdentity = "ad|" + keys.map(\.description).joined(separator: "\n")
            if (keys.isEmpty ? "" : keyIdentity) != keysInForce { try writeKeys(keys, at: location) }
            keysInForce = keys.isEmpty ? "" : keyIdentity
            try add(.tag(Tag(.extinf, .extinf(duration: segment.duration, title: ""))), at: location)
            if let range = segment.byteRange {
                let offset = range.offset ?? nextOffset[segment.uri] ?? 0
                nextOffset[segment.uri] = offset &+ range.length
                try add(
                    .tag(Tag(.byteRange, .byteRange(ByteRange(length: range.length, offset: offset)))), at: location)
            }
            if segment.gap { try add(.tag(Tag(.gap)), at: location) }
            try add(.uri(Self.absolute(segment.uri, ad)), at: location)
            length = length + segment.duration
            longestAdSegment = max(longestAdSegment, segment.duration.wholeSecondsRounded)
            last = .ad
            segmentCount += 1
        }
        if segmentCount > first {
            ads.append(
                StitchedPlaylist.AdSpan(
                    eventID: eventID, adIndex: adIndex, segments: first..<segmentCount, duration: length))
        }
        return discontinuities
    }

    // MARK: Output

    /// The document: the primary's source behind the verbatim lines, EXT-X-TARGETDURATION raised to
    /// the longest ad segment when that is longer, and, when given, the media and discontinuity
    /// sequence numbers of a stitched live window.
    func document(
        file: String, mediaSequence: UInt64? = nil, discontinuitySequence: UInt64? = nil
    ) throws(StitchingError) -> PlaylistDocument {
        var lines = output
        if let mediaSequence {
            let header = lines.firstIndex { $0.content.tag?.name == .extm3u } ?? -1
            var position = lines.firstIndex { $0.content.tag?.name == .mediaSequence }
            if let position {
                lines[position].content = .tag(Tag(.mediaSequence, .integer(mediaSequence)))
            } else {
                lines.insert(
                    Line(.tag(Tag(.mediaSequence, .integer(mediaSequence))), terminator: terminator), at: header + 1)
                position = header + 1
            }
            let value = discontinuitySequence ?? 0
            if let existing = lines.firstIndex(where: { $0.content.tag?.name == .discontinuitySequence }) {
                lines[existing].content = .tag(Tag(.discontinuitySequence, .integer(value)))
            } else if value != 0, let position {
                lines.insert(
                    Line(.tag(Tag(.discontinuitySequence, .integer(value))), terminator: terminator), at: position + 1)
            }
        }
        if let target = playlist.targetDuration, longestAdSegment > Int64(clamping: target),
            let position = lines.firstIndex(where: { $0.content.tag?.name == .targetDuration })
        {
            lines[position].content = .tag(Tag(.targetDuration, .integer(UInt64(longestAdSegment))))
        }
        // Only the last line may lack a terminator.
        for index in lines.indices.dropLast() where lines[index].terminator == .none {
            lines[index].terminator = terminator
        }
        return PlaylistDocument(lines: PlaylistLines(lines), file: file, source: document.source)
    }

    // MARK: Helpers

    private mutating func copy(_ index: Int) {
        output.append(document.lines[index])
    }

    private mutating func add(_ content: LineContent, at location: String) throws(StitchingError) {
        do throws(AttributeSyntaxError) {
            try content.checkWritable()
        } catch {
            throw StitchingError(.unwritable, at: location, error.message)
        }
        output.append(Line(content, terminator: terminator))
    }

    /// Writes EXT-X-KEY tags, or `METHOD=NONE` to end encryption.
    private mutating func writeKeys(_ keys: [AttributeList], at location: String) throws(StitchingError) {
        if keys.isEmpty {
            try add(.tag(Tag(.key, attributes: [("METHOD", AttributeValue(unchecked: "NONE"))])), at: location)
        }
        for key in keys { try add(.tag(Tag(.key, attributes: key)), at: location) }
    }

    /// Records the map and keys a primary segment's state lines put in force.
    private mutating func noteState(of index: Int) {
        if map.setsMap[index] { mapInForce = Self.identity(ofPrimary: playlist.segments[index].map) }
        if map.setsKey[index] { keysInForce = Self.identity(ofPrimary: playlist.segments[index].keys) }
    }

    private static func identity(ofPrimary section: MediaInitializationSection?) -> String? {
        section.map { "primary|\($0.uri)|\($0.byteRange?.description ?? "")" }
    }

    private static func identity(ofPrimary keys: [EncryptionKey]) -> String {
        keys.isEmpty ? "" : "primary|" + keys.map(\.attributes.description).joined(separator: "\n")
    }

    /// An ad's URI resolved against its playlist's URL (``VODStitcher/check(_:eventID:position:fMP4:)``
    /// has made sure that URL is absolute).
    private static func absolute(_ reference: String, _ ad: StitchAd) -> String {
        URIReference.resolve(reference, against: ad.url)
    }

    private static func quoted(_ text: String, at location: String) throws(StitchingError) -> AttributeValue {
        do throws(AttributeSyntaxError) {
            return try AttributeValue.quoted(text)
        } catch {
            throw StitchingError(.unwritable, at: location, error.message)
        }
    }
}
