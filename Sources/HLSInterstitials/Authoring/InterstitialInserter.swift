import HLSPlaylist

/// Adds interstitial date ranges to a media playlist, changing nothing else.
///
/// Each EXT-X-DATERANGE goes just before the EXTINF of the segment its START-DATE falls in (before the
/// first segment for earlier dates, after the last one for later dates), in request order. A playlist
/// without EXT-X-PROGRAM-DATE-TIME gets one on its first segment, at ``defaultEpoch``, because "if a
/// Playlist contains an EXT-X-DATERANGE tag, it MUST also contain at least one EXT-X-PROGRAM-DATE-TIME
/// tag" (§4.4.5.1). Every other line keeps its bytes and its line terminator.
public enum InterstitialInserter {
    /// The date given to the first segment of a playlist without PROGRAM-DATE-TIME:
    /// 2000-01-01T00:00:00.000Z, so that a time `t` in the playlist is that date plus `t` seconds.
    public static let defaultEpoch = DateTime(nanosecondsSinceEpoch: 946_684_800_000_000_000)

    /// The result of an insertion.
    public struct Output: Sendable {
        /// The new document.
        public var document: PlaylistDocument
        /// The events written, in order.
        public var events: [InterstitialEvent]
        /// Whether a PROGRAM-DATE-TIME was added.
        public var addedProgramDateTime: Bool
    }

    /// Inserts the requests into a parsed media playlist.
    ///
    /// - Throws: ``InsertionError`` when the input is not a media playlist, a request is invalid, or an
    ///   ID is already used by a date range of the playlist or by another request.
    public static func insert(_ requests: [InsertionRequest], into result: ParseResult) throws(InsertionError) -> Output
    {
        let (playlist, addPDT) = try prepare(result)
        var ids = Set(playlist.dateRanges.map(\.id))
        var events: [InterstitialEvent] = []
        for (index, request) in requests.enumerated() {
            let path = requests.count > 1 ? "interstitials[\(index)]" : ""
            var event = try request.event(
                mapping: { time in
                    playlist.date(at: time).map { date in
                        var date = date
                        if date.utcOffsetSeconds == nil { date.utcOffsetSeconds = 0 }
                        return date
                    }
                }, path: path)
            guard ids.insert(event.identifier).inserted else {
                throw InsertionError(
                    code: .insertRequest, path: path.isEmpty ? "id" : "\(path).id",
                    "the ID \"\(event.identifier)\" is already used; §6.2.1: the server MUST NOT reuse an ID for a new Date Range"
                )
            }
            event.sourceAttributes = nil
            events.append(event)
        }
        return try write(events, into: result, playlist: playlist, addPDT: addPDT)
    }

    /// Inserts events that are already built (each with a START-DATE) into a parsed media playlist,
    /// and other date ranges (`dateRanges`, attribute lists with a START-DATE, such as preload
    /// hints, App. F) placed the same way after the events.
    ///
    /// Servers use it to write date ranges whose values were fixed when first served. The events are
    /// written as they are; checking them is the caller's job (``InsertionRequest/event(mapping:path:)``).
    ///
    /// - Throws: ``InsertionError`` when the input is not a media playlist with segments, or an event
    ///   or date range cannot be written without breaking the tag grammar
    ///   (``InterstitialEvent/dateRangeAttributes``, `AttributeList.checkWritable()`).
    public static func insert(
        events: [InterstitialEvent], dateRanges: [AttributeList] = [], into result: ParseResult
    ) throws(InsertionError) -> Output {
        let (playlist, addPDT) = try prepare(result)
        return try write(events, dateRanges: dateRanges, into: result, playlist: playlist, addPDT: addPDT)
    }

    /// The media playlist of `result`, with dates on every segment, and whether they were added.
    private static func prepare(_ result: ParseResult) throws(InsertionError) -> (MediaPlaylist, Bool) {
        guard case .media(let playlist) = result.playlist else {
            throw InsertionError(
                code: .insertPlaylist,
                "\(result.document.file) is a multivariant playlist; interstitials go into media playlists (use --in and --out for a whole presentation)"
            )
        }
        guard !playlist.segments.isEmpty else {
            throw InsertionError(
                code: .insertPlaylist, "\(result.document.file) has no media segments to schedule against")
        }
        return dated(playlist)
    }

    /// `playlist` with a date on every segment from ``defaultEpoch`` when it has no
    /// PROGRAM-DATE-TIME, and whether dates were added.
    package static func dated(_ playlist: MediaPlaylist) -> (MediaPlaylist, Bool) {
        guard let first = playlist.segments.first, !playlist.segments.contains(where: { $0.programDateTime != nil })
        else { return (playlist, false) }
        var dated = playlist
        for index in dated.segments.indices {
            dated.segments[index].date = defaultEpoch + (dated.segments[index].startTime - first.startTime)
        }
        return (dated, true)
    }

    private static func write(
        _ events: [InterstitialEvent], dateRanges: [AttributeList] = [], into result: ParseResult,
        playlist: MediaPlaylist, addPDT: Bool
    ) throws(InsertionError) -> Output {
        let first = playlist.segments[0]
        var document = result.document
        var insertions: [(line: Int, content: LineContent)] = []
        let firstLine = extinfLine(of: first, in: document)
        if addPDT {
            insertions.append((firstLine, .tag(Tag(.programDateTime, .dateTime(defaultEpoch)))))
        }
        /// The line a date range starting at `date` goes before.
        func line(at date: DateTime?) -> Int {
            let time = date.flatMap { playlist.time(at: $0) } ?? first.startTime
            if time < first.startTime { return firstLine }
            if let segment = playlist.segments.last(where: { $0.startTime <= time }), time < segment.endTime {
                return extinfLine(of: segment, in: document)
            }
            return playlist.segments[playlist.segments.count - 1].line
        }
        for event in events {
            do {
                insertions.append((line(at: event.date), .tag(try event.dateRangeTag)))
            } catch {
                throw InsertionError(
                    code: .insertRequest, path: "id",
                    "interstitial \"\(Diagnostic.clipped(event.identifier))\" cannot be written: \(error)")
            }
        }
        for attributes in dateRanges {
            let id = attributes[InterstitialEvent.AttributeName.id]?.quotedString ?? ""
            do {
                try attributes.checkWritable()
            } catch {
                throw InsertionError(
                    code: .insertRequest, path: "id",
                    "date range \"\(Diagnostic.clipped(id))\" cannot be written: \(error)")
            }
            let start = attributes[InterstitialEvent.AttributeName.startDate]?.quotedString
            let date = start.flatMap { DateTime(iso8601: $0) }
            insertions.append((line(at: date), .tag(Tag(.dateRange, attributes: attributes))))
        }
        // Bottom up, so earlier indices stay valid; lines for one place keep their order.
        let grouped = Dictionary(grouping: insertions.enumerated(), by: { $0.element.line })
        for line in grouped.keys.sorted(by: >) {
            for entry in grouped[line]!.sorted(by: { $0.offset > $1.offset }) {
                do {
                    try document.insert(entry.element.content, at: line)
                } catch {
                    throw InsertionError(code: .insertRequest, path: "id", "a line cannot be written: \(error)")
                }
            }
        }
        return Output(document: document, events: events, addedProgramDateTime: addPDT)
    }

    /// The 0-based index of the EXTINF line of a segment (its URI line is `segment.line`).
    private static func extinfLine(of segment: MediaSegment, in document: PlaylistDocument) -> Int {
        var index = segment.line - 1
        while index > 0 {
            index -= 1
            if document.lines[index].content.tag?.name == .extinf { return index }
            if case .uri = document.lines[index].content { break }
        }
        return segment.line - 1
    }
}
