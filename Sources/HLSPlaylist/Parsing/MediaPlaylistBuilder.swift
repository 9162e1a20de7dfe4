/// Accumulates a Media Playlist line by line: media segment tags apply to the next URI line.
struct MediaPlaylistBuilder {
    var playlist = MediaPlaylist(
        version: nil, targetDuration: nil, mediaSequence: 0, discontinuitySequence: 0, playlistType: nil,
        hasEndList: false, iFramesOnly: false, independentSegments: false, start: nil, partTarget: nil,
        serverControl: nil, skip: nil, segments: [], trailingParts: [], preloadHints: [], renditionReports: [],
        dateRanges: [], definitions: [], unknownTags: [])

    private struct Pending {
        var duration: MediaTime?
        var title: String?
        var byteRange: ByteRange?
        var discontinuity = false
        var programDateTime: DateTime?
        var gap = false
        var firstLine: Int?
    }

    private var pending = Pending()
    private var keys: [EncryptionKey] = []
    private var map: MediaInitializationSection?
    private var bitrate: UInt64?
    private var parts: [PartialSegment] = []
    private var time = MediaTime.zero
    private var discontinuities: UInt64 = 0
    private var dateRangeIndex: [String: Int] = [:]
    /// The first value of each attribute name of a date range (by index), for consolidation in
    /// linear time; made when a second tag with the range's ID appears.
    private var dateRangeValues: [Int: [String: AttributeValue]] = [:]
    private var targetDurationLine = 0
    private var nextDate: DateTime?
    /// The segments read so far, compact while the source is under 4 GiB (every offset and line
    /// number fits a record); values otherwise.
    private var compact: CompactSegments
    private let keepsCompact: Bool
    private var values: [MediaSegment] = []
    private var segmentCount: Int { keepsCompact ? compact.records.count : values.count }
    /// Whether a KEY, MAP or BITRATE tag changed what the next segment shares with the last.
    private var contextChanged = true

    /// A builder for the segments of `source`, about `segments` of them, kept compactly when the
    /// source is shorter than `compactSourceLimit` (and than 4 GiB).
    init(source: [UInt8], segments: Int, compactSourceLimit: Int = Int(UInt32.max)) {
        compact = CompactSegments(source: source)
        keepsCompact = source.count < min(compactSourceLimit, Int(UInt32.max))
        // Room for the segments a source of this size likely has (untouched pages cost nothing),
        // bounded so that a huge source does not reserve gigabytes up front.
        if keepsCompact { compact.records.reserveCapacity(min(segments, 1 << 22)) }
    }

    /// A problem found on the hot path, for the interpreter to report (so that path needs no
    /// access to the interpreter).
    struct Problem {
        var rule: Rule
        var line: Int
        var message: String
    }

    /// Whether the tag is read by ``addTiming(_:line:)``: the tags every segment has.
    static func isTiming(_ known: KnownTag) -> Bool { known == .extinf || known == .programDateTime }

    /// Reads EXTINF or EXT-X-PROGRAM-DATE-TIME, whose values were read in phase one.
    mutating func addTiming(_ tag: Tag, line index: Int) -> Problem? {
        switch tag.value {
        case .extinf(let duration, let title): return addDuration(duration, title: title, line: index)
        case .dateTime(let date): addProgramDateTime(date, line: index)
        default: break
        }
        return nil
    }

    /// Reads EXTINF at line `index`.
    mutating func addDuration(_ duration: MediaTime, title: String, line index: Int) -> Problem? {
        var problem: Problem?
        if pending.duration != nil {
            problem = Problem(
                rule: .segmentURI, line: index, message: "#EXTINF follows another #EXTINF without a URI line")
        }
        pending.duration = duration
        pending.title = title.isEmpty ? nil : title
        markPending(index)
        return problem
    }

    /// Reads EXT-X-PROGRAM-DATE-TIME at line `index`.
    mutating func addProgramDateTime(_ date: DateTime, line index: Int) {
        pending.programDateTime = date
        markPending(index)
    }

    /// Reads a Media Playlist or media segment tag other than those of ``addTiming(_:line:)``.
    mutating func addTag(
        _ tag: Tag, _ definition: TagDefinition, line index: Int, interpreter: inout PlaylistInterpreter
    ) {
        guard let known = tag.name.known else { return }
        guard let attributes = interpreter.checked(tag, definition, line: index) else { return }
        switch known {
        case .targetDuration:
            if case .integer(let value) = tag.value {
                playlist.targetDuration = value
                targetDurationLine = index
            }
        case .mediaSequence:
            if case .integer(let value) = tag.value { playlist.mediaSequence = value }
            contextChanged = true
        case .discontinuitySequence:
            if case .integer(let value) = tag.value { playlist.discontinuitySequence = value }
            contextChanged = true
        case .endList:
            playlist.hasEndList = true
        case .playlistType:
            if case .enumerated(let value) = tag.value {
                if value == "VOD" || value == "EVENT" {
                    playlist.playlistType = value
                } else {
                    interpreter.report(
                        .attributeEnumeration, line: index,
                        "#EXT-X-PLAYLIST-TYPE:\(value) is neither EVENT nor VOD; clients MUST ignore the tag (§6.3.1)")
                }
            }
        case .iFramesOnly:
            playlist.iFramesOnly = true
        case .partInf:
            playlist.partTarget = attributes["PART-TARGET"]?.decimalFloatingPoint
        case .serverControl:
            playlist.serverControl = ServerControl(
                canSkipUntil: attributes["CAN-SKIP-UNTIL"]?.decimalFloatingPoint,
                canSkipDateRanges: interpreter.yes(attributes, "CAN-SKIP-DATERANGES"),
                holdBack: attributes["HOLD-BACK"]?.decimalFloatingPoint,
                partHoldBack: attributes["PART-HOLD-BACK"]?.decimalFloatingPoint,
                canBlockReload: interpreter.yes(attributes, "CAN-BLOCK-RELOAD"))
        case .byteRange:
            if case .byteRange(let range) = tag.value { pending.byteRange = range }
            markPending(index)
        case .discontinuity:
            pending.discontinuity = true
            markPending(index)
        case .gap:
            pending.gap = true
            markPending(index)
        case .bitrate:
            if case .integer(let value) = tag.value { bitrate = value }
            contextChanged = true
        case .key:
            let key = interpreter.key(attributes, line: index)
            if key.method == "NONE" {
                keys = []
            } else {
                keys.removeAll { ($0.keyFormat ?? "identity") == (key.keyFormat ?? "identity") }
                keys.append(key)
            }
            contextChanged = true
        case .map:
            if let uri = interpreter.string(attributes, "URI", line: index) {
                map = MediaInitializationSection(
                    uri: uri, byteRange: attributes["BYTERANGE"]?.quotedString.flatMap { ByteRange($0) },
                    attributes: attributes)
                contextChanged = true
            }
        case .part:
            if let uri = interpreter.string(attributes, "URI", line: index),
                let duration = attributes["DURATION"]?.decimalFloatingPoint
            {
                parts.append(
                    PartialSegment(
                        uri: uri, duration: duration, independent: interpreter.yes(attributes, "INDEPENDENT"),
                        byteRange: attributes["BYTERANGE"]?.quotedString.flatMap { ByteRange($0) },
                        gap: interpreter.yes(attributes, "GAP"), attributes: attributes, line: index + 1))
            }
        case .dateRange:
            addDateRange(attributes, line: index, interpreter: &interpreter)
        case .skip:
            playlist.skip = Skip(
                skippedSegments: attributes["SKIPPED-SEGMENTS"]?.decimalInteger ?? 0,
                recentlyRemovedDateRanges: attributes["RECENTLY-REMOVED-DATERANGES"]?.quotedString?.split(
                    separator: "\t"
                )
                .map(String.init) ?? [])
            contextChanged = true
        case .preloadHint:
            if let uri = interpreter.string(attributes, "URI", line: index) {
                playlist.preloadHints.append(
                    PreloadHint(
                        type: attributes["TYPE"]?.enumeratedString ?? "", uri: uri,
                        byteRangeStart: attributes["BYTERANGE-START"]?.decimalInteger,
                        byteRangeLength: attributes["BYTERANGE-LENGTH"]?.decimalInteger, line: index + 1))
            }
        case .renditionReport:
            if let uri = interpreter.string(attributes, "URI", line: index) {
                playlist.renditionReports.append(
                    RenditionReport(
                        uri: uri, lastMediaSequence: attributes["LAST-MSN"]?.decimalInteger,
                        lastPart: attributes["LAST-PART"]?.decimalInteger, line: index + 1))
            }
        default:
            break  // Multivariant tags were reported as misplaced.
        }
    }

    private mutating func markPending(_ index: Int) {
        if pending.firstLine == nil { pending.firstLine = index }
    }

    /// Adds the segment that URI line `index` ends. `range` is where the URI's bytes are in the
    /// source when it was not changed by variable substitution; `uri` makes its text, when needed.
    mutating func addURI(range: Range<Int>?, line index: Int, uri: () -> String) -> Problem? {
        guard let duration = pending.duration else {
            pending = Pending()
            parts = []
            return Problem(
                rule: .segmentURI, line: index, message: "the URI line has no #EXTINF; \(Rule.segmentURI.quote)")
        }
        var problem: Problem?
        if pending.discontinuity { discontinuities += 1 }
        // EXT-X-MEDIA-SEQUENCE and EXT-X-DISCONTINUITY-SEQUENCE MUST appear before the first segment.
        let position = segmentCount
        // §4.4.5.2: the segments after EXT-X-SKIP:SKIPPED-SEGMENTS=N are numbered from MEDIA-SEQUENCE + N.
        let firstSequence = playlist.mediaSequence &+ (playlist.skip?.skippedSegments ?? 0)
        let sequence = firstSequence &+ UInt64(position)
        let date = pending.programDateTime ?? nextDate
        if let targetDuration = playlist.targetDuration,
            duration.wholeSecondsRounded > Int64(clamping: targetDuration)
        {
            problem = Problem(
                rule: .targetDuration, line: index,
                message:
                    "the segment lasts \(duration) s, more than the target duration of \(targetDuration) s (line \(targetDurationLine + 1)) when rounded"
            )
        }
        if keepsCompact {
            if contextChanged {
                compact.contexts.append(
                    CompactSegments.Context(
                        keys: keys, map: map, bitrate: bitrate, mediaSequence: firstSequence,
                        discontinuitySequence: playlist.discontinuitySequence))
                contextChanged = false
            }
            var flags: UInt8 = 0
            if pending.discontinuity { flags |= CompactSegments.Record.discontinuity }
            if pending.gap { flags |= CompactSegments.Record.gap }
            if let programDateTime = pending.programDateTime {
                // The record keeps the date's nanoseconds; an anchor is kept only when the UTC
                // offset or the precision changes.
                let last = compact.anchors.last
                if last?.utcOffsetSeconds != programDateTime.utcOffsetSeconds
                    || last?.fractionDigits != programDateTime.fractionDigits
                {
                    compact.anchors.append(programDateTime)
                }
                flags |= CompactSegments.Record.ownProgramDateTime
            }
            if let title = pending.title { compact.titles[position] = title }
            if let byteRange = pending.byteRange { compact.byteRanges[position] = byteRange }
            if !parts.isEmpty { compact.parts[position] = parts }
            compact.records.append(
                CompactSegments.Record(
                    uri: range.map(CompactSegments.Text.init(range:)) ?? compact.keep(uri()),
                    duration: duration.nanoseconds, startTime: time.nanoseconds,
                    date: date?.nanosecondsSinceEpoch ?? 0,
                    discontinuities: UInt32(truncatingIfNeeded: discontinuities),
                    context: Int32(compact.contexts.count - 1),
                    anchor: date == nil ? -1 : Int32(compact.anchors.count - 1), line: UInt32(index + 1), flags: flags))
        } else {
            values.append(
                MediaSegment(
                    uri: uri(), duration: duration, title: pending.title, byteRange: pending.byteRange,
                    discontinuity: pending.discontinuity, keys: keys, map: map,
                    programDateTime: pending.programDateTime, date: date, startTime: time, gap: pending.gap,
                    bitrate: bitrate, parts: parts, mediaSequence: sequence,
                    discontinuitySequence: playlist.discontinuitySequence &+ discontinuities, line: index + 1))
        }
        nextDate = date.map { $0 + duration }
        time = time + duration
        pending = Pending()
        if !parts.isEmpty { parts = [] }
        return problem
    }

    private mutating func addDateRange(
        _ attributes: AttributeList, line index: Int, interpreter: inout PlaylistInterpreter
    ) {
        guard let id = attributes["ID"]?.quotedString else { return }
        if let existing = dateRangeIndex[id] {
            var merged = playlist.dateRanges[existing].attributes
            playlist.dateRanges[existing].attributes = []  // keep `merged` unique, so appending is O(1)
            if dateRangeValues[existing] == nil { dateRangeValues[existing] = merged.firstValues }
            for attribute in attributes {
                if let old = dateRangeValues[existing]?[attribute.name] {
                    if old != attribute.value {
                        interpreter.report(
                            .dateRangeConflict, line: index, attribute: attribute.name,
                            "\(attribute.name) of date range \"\(id)\" changes from \(Diagnostic.clipped(old.rawValue)) to \(Diagnostic.clipped(attribute.value.rawValue)); \(Rule.dateRangeConflict.quote)"
                        )
                    }
                } else {
                    merged.append(attribute)
                    dateRangeValues[existing]?[attribute.name] = attribute.value
                }
            }
            playlist.dateRanges[existing].attributes = merged
            playlist.dateRanges[existing].lines.append(index + 1)
        } else {
            dateRangeIndex[id] = playlist.dateRanges.count
            playlist.dateRanges.append(
                DateRange(
                    id: id, className: nil, startDate: nil, cue: nil, endDate: nil, duration: nil, plannedDuration: nil,
                    endOnNext: false, scte35Command: nil, scte35Out: nil, scte35In: nil, clientAttributes: [],
                    attributes: attributes, startTime: nil, lines: [index + 1]))
        }
    }

    mutating func finish(interpreter: inout PlaylistInterpreter) -> MediaPlaylist {
        if let line = pending.firstLine {
            interpreter.report(.segmentURI, line: line, "media segment tags are not followed by a URI line")
        }
        playlist.trailingParts = parts
        if playlist.targetDuration == nil {
            interpreter.report(
                .tagMissing, line: 0, "the Media Playlist has no #EXT-X-TARGETDURATION; \(Rule.tagMissing.quote)")
        }
        // Segments before the first PROGRAM-DATE-TIME get dates counted back from it (R1).
        if keepsCompact {
            var store = CompactSegments(source: [])
            swap(&store, &compact)
            if let firstDated = store.records.firstIndex(where: { $0.anchor >= 0 }), firstDated > 0,
                let anchor = store.date(at: firstDated)
            {
                let anchorTime = MediaTime(nanoseconds: store.records[firstDated].startTime)
                for index in 0..<firstDated {
                    let startTime = MediaTime(nanoseconds: store.records[index].startTime)
                    store.records[index].date =
                        Self.countedBack(from: anchor, at: anchorTime, to: startTime).nanosecondsSinceEpoch
                    store.records[index].anchor = 0
                }
            }
            playlist.segments = MediaSegments(compact: store)
        } else {
            if let firstDated = values.firstIndex(where: { $0.programDateTime != nil }), firstDated > 0,
                let anchor = values[firstDated].programDateTime
            {
                let anchorTime = values[firstDated].startTime
                for index in 0..<firstDated {
                    values[index].date = Self.countedBack(from: anchor, at: anchorTime, to: values[index].startTime)
                }
            }
            playlist.segments = MediaSegments(values)
            values = []
        }
        // Moved out while resolving: resolving reads `playlist`, which would copy the array each time.
        var dateRanges = playlist.dateRanges
        playlist.dateRanges = []
        for index in dateRanges.indices {
            resolve(&dateRanges[index], interpreter: &interpreter)
        }
        playlist.dateRanges = dateRanges
        return playlist
    }

    /// The date of a segment that starts at `startTime`, before the first segment with an
    /// EXT-X-PROGRAM-DATE-TIME (`anchor`, starting at `anchorTime`): counted back from it (R1).
    private static func countedBack(
        from anchor: DateTime, at anchorTime: MediaTime, to startTime: MediaTime
    )
        -> DateTime
    {
        anchor - (anchorTime - startTime)
    }

    /// Reads the typed fields of a consolidated date range and maps its start (R1).
    private func resolve(_ range: inout DateRange, interpreter: inout PlaylistInterpreter) {
        let attributes = range.attributes
        let line = range.lines[0] - 1
        func date(_ name: String) -> DateTime? {
            guard let text = attributes[name]?.quotedString else { return nil }
            guard let value = DateTime(iso8601: text) else {
                interpreter.report(
                    .attributeType, line: line, attribute: name, "\(name) must be an ISO-8601 date, found \"\(text)\"")
                return nil
            }
            return value
        }
        range.className = interpreter.string(attributes, "CLASS", line: line)
        range.startDate = date("START-DATE")
        range.endDate = date("END-DATE")
        range.cue = attributes["CUE"]?.enumeratedStringList
        range.duration = attributes["DURATION"]?.decimalFloatingPoint
        range.plannedDuration = attributes["PLANNED-DURATION"]?.decimalFloatingPoint
        range.endOnNext = attributes["END-ON-NEXT"]?.rawValue == "YES"
        range.scte35Command = attributes["SCTE35-CMD"]?.rawValue
        range.scte35Out = attributes["SCTE35-OUT"]?.rawValue
        range.scte35In = attributes["SCTE35-IN"]?.rawValue
        range.clientAttributes = AttributeList(attributes.filter(\.isClientAttribute))
        if let startDate = range.startDate { range.startTime = playlist.time(at: startDate) }
    }
}
