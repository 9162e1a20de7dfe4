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

    mutating func addTag(
        _ tag: Tag, _ definition: TagDefinition, line index: Int, interpreter: inout PlaylistInterpreter
    ) {
        guard let known = tag.name.known else { return }
        // The hot path: segment tags whose values were read in phase one.
        switch known {
        case .extinf:
            if case .extinf(let duration, let title) = tag.value {
                if pending.duration != nil {
                    interpreter.report(.segmentURI, line: index, "#EXTINF follows another #EXTINF without a URI line")
                }
                pending.duration = duration
                pending.title = title.isEmpty ? nil : title
                markPending(index)
            }
            return
        case .programDateTime:
            if case .dateTime(let date) = tag.value {
                pending.programDateTime = date
                markPending(index)
            }
            return
        default:
            break
        }
        guard let attributes = interpreter.checked(tag, definition, line: index) else { return }
        switch known {
        case .targetDuration:
            if case .integer(let value) = tag.value {
                playlist.targetDuration = value
                targetDurationLine = index
            }
        case .mediaSequence:
            if case .integer(let value) = tag.value { playlist.mediaSequence = value }
        case .discontinuitySequence:
            if case .integer(let value) = tag.value { playlist.discontinuitySequence = value }
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
        case .key:
            let key = interpreter.key(attributes, line: index)
            if key.method == "NONE" {
                keys = []
            } else {
                keys.removeAll { ($0.keyFormat ?? "identity") == (key.keyFormat ?? "identity") }
                keys.append(key)
            }
        case .map:
            if let uri = interpreter.string(attributes, "URI", line: index) {
                map = MediaInitializationSection(
                    uri: uri, byteRange: attributes["BYTERANGE"]?.quotedString.flatMap { ByteRange($0) },
                    attributes: attributes)
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

    mutating func addURI(_ uri: String, line index: Int, interpreter: inout PlaylistInterpreter) {
        guard let duration = pending.duration else {
            interpreter.report(.segmentURI, line: index, "the URI line has no #EXTINF; \(Rule.segmentURI.quote)")
            pending = Pending()
            parts = []
            return
        }
        if pending.discontinuity { discontinuities += 1 }
        // EXT-X-MEDIA-SEQUENCE and EXT-X-DISCONTINUITY-SEQUENCE MUST appear before the first segment.
        let sequence = playlist.mediaSequence &+ UInt64(playlist.segments.count)
        let date = pending.programDateTime ?? nextDate
        if let targetDuration = playlist.targetDuration,
            duration.nanoseconds / 1_000_000_000 + (duration.nanoseconds % 1_000_000_000 >= 500_000_000 ? 1 : 0)
                > Int64(clamping: targetDuration)
        {
            interpreter.report(
                .targetDuration, line: index,
                "the segment lasts \(duration) s, more than the target duration of \(targetDuration) s (line \(targetDurationLine + 1)) when rounded"
            )
        }
        playlist.segments.append(
            MediaSegment(
                uri: uri, duration: duration, title: pending.title, byteRange: pending.byteRange,
                discontinuity: pending.discontinuity, keys: keys, map: map, programDateTime: pending.programDateTime,
                date: date, startTime: time, gap: pending.gap, bitrate: bitrate, parts: parts,
                mediaSequence: sequence, discontinuitySequence: playlist.discontinuitySequence &+ discontinuities,
                line: index + 1))
        nextDate = date.map { $0 + duration }
        time = time + duration
        pending = Pending()
        if !parts.isEmpty { parts = [] }
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
        if let firstDated = playlist.segments.firstIndex(where: { $0.programDateTime != nil }), firstDated > 0,
            let anchor = playlist.segments[firstDated].programDateTime
        {
            let anchorTime = playlist.segments[firstDated].startTime
            for index in 0..<firstDated {
                playlist.segments[index].date = anchor - (anchorTime - playlist.segments[index].startTime)
            }
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
