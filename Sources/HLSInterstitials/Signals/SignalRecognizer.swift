import HLSPlaylist
import SCTE35

/// Finds the ad breaks a media playlist signals with SCTE-35 (pure).
///
/// The forms read: EXT-X-DATERANGE with SCTE35-OUT, SCTE35-IN or SCTE35-CMD (§4.4.5.1, hex);
/// EXT-X-CUE-OUT[:DURATION], EXT-X-CUE-OUT-CONT (`ElapsedTime=…,Duration=…[,SCTE35=base64]` or
/// `elapsed/duration`) and EXT-X-CUE-IN; and EXT-OATCLS-SCTE35:base64. Markers are taken in playlist
/// order and paired:
///
/// - an IN ends the open break with the same date range ID, else the same event
///   (splice_event_id, or segmentation_event_id), else the latest open break;
/// - markers on the same segment (an EXT-OATCLS-SCTE35 with its EXT-X-CUE-OUT, an EXT-X-CUE-IN with a
///   section's IN) are one marker; their durations must agree (`scte35-duration-mismatch`);
/// - an EXT-X-CUE-OUT-CONT continues the open break (its ElapsedTime and Duration are checked), or,
///   when the OUT has left the window, is the break: it started ElapsedTime before its segment;
/// - an advertisement start (segmentation types 0x30, 0x32) inside an open break is part of it;
/// - a cancel (splice_event_cancel_indicator, segmentation_event_cancel_indicator) cancels the break
///   of its event;
/// - an IN before the planned end is an early return (``SignalledBreak/actualDuration``); without an
///   IN the planned duration ends the break.
///
/// Durations agree when they differ by at most ``tolerance``.
public enum SignalRecognizer {
    /// The breaks and the diagnostics of one playlist.
    public struct Recognition: Sendable {
        /// The breaks, in the order of their OUTs.
        public var breaks: [SignalledBreak]
        /// Markers that cannot be read or that disagree.
        public var diagnostics: [Diagnostic]
        /// How many markers were read (paired or not).
        public var markerCount: Int = 0

        /// Whether the playlist carries no marker at all, readable or not: it says nothing about
        /// breaks (as an audio rendition that a packager writes without markers), unlike a playlist
        /// whose markers give none.
        public var isSilent: Bool { markerCount == 0 && diagnostics.isEmpty }
    }

    /// How far two durations or dates may differ and still agree: half a second (encoders round
    /// CUE-OUT durations to whole seconds or to frames).
    public static let tolerance = MediaTime(nanoseconds: 500_000_000)

    /// The most markers read from one playlist; the others are ignored (bounded time on hostile input).
    public static let maximumMarkers = 10_000

    /// The tags of the older forms.
    public static let cueOutTag: TagName = "EXT-X-CUE-OUT"
    /// EXT-X-CUE-OUT-CONT.
    public static let cueOutContTag: TagName = "EXT-X-CUE-OUT-CONT"
    /// EXT-X-CUE-IN.
    public static let cueInTag: TagName = "EXT-X-CUE-IN"
    /// EXT-OATCLS-SCTE35.
    public static let oatclsTag: TagName = "EXT-OATCLS-SCTE35"

    /// Whether a tag is one of the older SCTE-35 forms.
    public static func isSignalTag(_ name: TagName) -> Bool {
        name == cueOutTag || name == cueOutContTag || name == cueInTag || name == oatclsTag
    }

    /// The breaks `playlist` signals, and diagnostics located in `file` (lines of `document`, when
    /// given, locate the SCTE35-IN of a date range whose tags are consolidated).
    ///
    /// With `clock` (the channel's PTS at a date, ``SpliceClock``), an OUT marker on a segment
    /// (EXT-X-CUE-OUT, EXT-OATCLS-SCTE35) whose section's splice time lies ahead of that segment's
    /// start starts its break at the splice time (``SignalledBreak/spliceLead``); a date range's
    /// START-DATE is its start whatever its section says.
    public static func recognize(
        _ playlist: MediaPlaylist, document: PlaylistDocument? = nil, file: String = "<memory>",
        clock: SpliceClock? = nil
    ) -> Recognition {
        var reader = MarkerReader(playlist: playlist, document: document, file: file)
        let markers = reader.markers()
        var pairing = Pairing(playlist: playlist, file: file, clock: clock)
        for marker in markers { pairing.take(marker) }
        return Recognition(
            breaks: pairing.finish(), diagnostics: reader.diagnostics + pairing.diagnostics, markerCount: markers.count)
    }
}

extension SignalRecognizer {
    /// The index of the first segment of `playlist` after 1-based `line`, its date and its time (the
    /// end of the last segment when none follows): where a marker on that line applies.
    static func position(
        after line: Int, in playlist: MediaPlaylist
    ) -> (
        segment: Int, date: DateTime?, time: MediaTime?
    ) {
        let segments = playlist.segments
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].line <= line { low = middle + 1 } else { high = middle }
        }
        if low < segments.count { return (low, segments[low].date, segments[low].startTime) }
        guard let last = segments.last else { return (0, nil, nil) }
        return (segments.count, last.date.map { $0 + last.duration }, last.endTime)
    }
}

/// Reads the markers of a playlist, in line order.
private struct MarkerReader {
    let playlist: MediaPlaylist
    let document: PlaylistDocument?
    let file: String
    var diagnostics: [Diagnostic] = []

    init(playlist: MediaPlaylist, document: PlaylistDocument?, file: String) {
        self.playlist = playlist
        self.document = document
        self.file = file
    }

    mutating func markers() -> [SignalMarker] {
        var markers: [SignalMarker] = []
        for tag in playlist.unknownTags where SignalRecognizer.isSignalTag(tag.name) {
            guard markers.count < SignalRecognizer.maximumMarkers else { break }
            markers += read(tag)
        }
        for range in playlist.dateRanges
        where range.scte35Out != nil || range.scte35In != nil
            || range.scte35Command != nil
        {
            guard markers.count < SignalRecognizer.maximumMarkers else { break }
            markers += read(range)
        }
        // By line; markers of one line keep the order they were read in.
        return markers.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(
            \.element)
    }

    /// The index of the first segment after `line`, and its date (the end of the last segment when
    /// none follows).
    func position(after line: Int) -> (segment: Int, date: DateTime?, time: MediaTime?) {
        SignalRecognizer.position(after: line, in: playlist)
    }

    /// The index of the segment a date falls in.
    func segment(at date: DateTime?) -> Int {
        guard let date else { return playlist.segments.count }
        return playlist.segments.lastIndex { ($0.date ?? date) <= date } ?? 0
    }

    func location(_ line: Int) -> SourceLocation { SourceLocation(file: file, line: line, column: 1) }

    /// What becomes of a marker whose section is all it says, when the section does not decode (R29).
    static let dropped = "the marker is dropped: its section is all it says"

    /// The section of `text`, or a `scte35-section` diagnostic that says what becomes of the marker
    /// (profile R29): `consequence`.
    mutating func section(_ text: String, line: Int, what: String, consequence: String) -> SpliceInfoSection? {
        do {
            return try SpliceInfoSection.decode(text: text)
        } catch {
            diagnostics.append(
                Rule.scte35Section.diagnostic(
                    at: location(line),
                    "\(what) is not a splice_info_section: [\(error.code)] byte \(error.offset), \(error.path): \(error.message); \(consequence) (profile R29)"
                ))
            return nil
        }
    }

    mutating func seconds(_ text: String?, line: Int, what: String) -> MediaTime? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = MediaTime(decimal: text), value >= .zero else {
            diagnostics.append(
                Rule.scte35Marker.diagnostic(
                    at: location(line),
                    "\(what) \"\(Diagnostic.clipped(text))\" is not a number of seconds; the marker is read without it")
            )
            return nil
        }
        return value
    }

    mutating func read(_ tag: UnknownTag) -> [SignalMarker] {
        let (segment, date, _) = position(after: tag.line)
        let value = tag.value ?? ""
        var base = SignalMarker(kind: .out, form: .cueOut, line: tag.line, date: date, segment: segment)
        switch tag.name {
        case SignalRecognizer.oatclsTag:
            base.form = .oatcls
            guard let section = section(value, line: tag.line, what: "EXT-OATCLS-SCTE35", consequence: Self.dropped)
            else { return [] }
            return markers(of: section, base: base)
        case SignalRecognizer.cueInTag:
            base.kind = .in
            return [base]
        case SignalRecognizer.cueOutTag:
            let attributes = CueAttributes(value)
            let text = attributes.value("DURATION") ?? attributes.positional.first
            if let duration = seconds(text, line: tag.line, what: "EXT-X-CUE-OUT duration") {
                base.duration = (duration, "EXT-X-CUE-OUT")
            }
            if let text = attributes.value("SCTE35"),
                let section = section(
                    text, line: tag.line, what: "SCTE35=",
                    consequence: "the EXT-X-CUE-OUT still starts the break, without the section's event")
            {
                base.section = section
                base.signal = section.breakSignals.first { $0.kind == .start }
            }
            return [base]
        default:
            let attributes = CueAttributes(value)
            var elapsedText = attributes.value("ELAPSEDTIME")
            var durationText = attributes.value("DURATION")
            if elapsedText == nil, let first = attributes.positional.first {
                let parts = first.split(separator: "/", maxSplits: 1).map(String.init)
                elapsedText = parts.first
                if parts.count == 2 { durationText = parts[1] }
            }
            let elapsed = seconds(elapsedText, line: tag.line, what: "EXT-X-CUE-OUT-CONT ElapsedTime")
            base.kind = .cont(elapsed: elapsed)
            if let duration = seconds(durationText, line: tag.line, what: "EXT-X-CUE-OUT-CONT Duration") {
                base.duration = (duration, "EXT-X-CUE-OUT-CONT Duration")
            }
            if let text = attributes.value("SCTE35"),
                let section = section(
                    text, line: tag.line, what: "SCTE35=",
                    consequence: "the EXT-X-CUE-OUT-CONT is read without the section")
            {
                base.section = section
                base.signal = section.breakSignals.first { $0.kind == .start }
            }
            return [base]
        }
    }

    /// The markers of a section that is the whole marker (EXT-OATCLS-SCTE35, SCTE35-CMD).
    func markers(of section: SpliceInfoSection, base: SignalMarker) -> [SignalMarker] {
        section.breakSignals.map { signal in
            var marker = base
            marker.signal = signal
            marker.section = section
            switch signal.kind {
            case .start:
                marker.kind = .out
                marker.duration = signal.duration.map { (MediaTime(ticks: $0), Self.durationName(signal)) }
            case .end: marker.kind = .in
            case .cancel: marker.kind = .cancel
            }
            return marker
        }
    }

    static func durationName(_ signal: BreakSignal) -> String {
        if case .segmentation = signal.eventID { return "segmentation_duration" }
        return "break_duration"
    }

    mutating func read(_ range: DateRange) -> [SignalMarker] {
        let first = range.lines.first ?? 0
        var base = SignalMarker(
            kind: .out, form: .dateRange, line: first, date: range.startDate, segment: segment(at: range.startDate),
            dateRangeID: range.id)
        var result: [SignalMarker] = []
        if let text = range.scte35Command,
            let section = section(text, line: first, what: "SCTE35-CMD", consequence: Self.dropped)
        {
            result += markers(of: section, base: base)
        }
        if let text = range.scte35Out {
            var out = base
            if let section = section(
                text, line: first, what: "SCTE35-OUT",
                consequence: range.startDate == nil
                    ? "the date range has no START-DATE either: it places no break"
                    : "the date range's START-DATE and durations still place the break, under an ID made from its own")
            {
                out.section = section
                out.signal = section.breakSignals.first { $0.kind == .start }
                out.sectionDuration = out.signal?.duration.map(MediaTime.init(ticks:))
            }
            if let planned = range.plannedDuration {
                out.duration = (planned, "PLANNED-DURATION")
            } else if range.scte35In == nil, let duration = range.resolvedDuration {
                out.duration = (duration, "DURATION")
            } else if let duration = out.sectionDuration {
                out.duration = (duration, Self.durationName(out.signal!))
                out.sectionDuration = nil
            }
            result.append(out)
        }
        if let text = range.scte35In {
            let inLine =
                range.lines.first { line in
                    document.map { document in
                        document.lines.indices.contains(line - 1)
                            && document.lines[line - 1].content.tag?.value.attributes?.contains("SCTE35-IN") == true
                    } ?? false
                } ?? range.lines.last ?? first
            base.kind = .in
            base.line = inLine
            if range.scte35Out != nil {
                if let start = range.startDate, let duration = range.resolvedDuration {
                    base.date = start + duration
                    base.segment = segment(at: base.date)
                } else {
                    (base.segment, base.date, _) = position(after: inLine)
                }
            } else {
                base.date = range.startDate ?? range.endDate
                base.segment = segment(at: base.date)
            }
            if let section = section(
                text, line: inLine, what: "SCTE35-IN", consequence: "the date range still ends the break of its ID")
            {
                base.section = section
                base.signal = section.breakSignals.first { $0.kind == .end }
            }
            result.append(base)
        }
        return result
    }
}

/// Pairs markers into breaks, in playlist order.
private struct Pairing {
    struct Open {
        var item: SignalledBreak
        var segment: Int
        var dateRangeID: String?
    }

    let playlist: MediaPlaylist
    let file: String
    let clock: SpliceClock?
    var open: [Open] = []
    var done: [(item: SignalledBreak, returnSegment: Int?)] = []
    var nested: Set<BreakSignal.EventID> = []
    var diagnostics: [Diagnostic] = []

    init(playlist: MediaPlaylist, file: String, clock: SpliceClock? = nil) {
        self.playlist = playlist
        self.file = file
        self.clock = clock
    }

    func location(_ line: Int) -> SourceLocation { SourceLocation(file: file, line: line, column: 1) }

    func sameKey(_ left: BreakSignal.EventID?, _ right: BreakSignal.EventID?) -> Bool {
        left == nil || right == nil || left == right
    }

    mutating func take(_ marker: SignalMarker) {
        switch marker.kind {
        case .out: takeOut(marker)
        case .in: takeIn(marker)
        case .cont(let elapsed): takeCont(marker, elapsed: elapsed)
        case .cancel: takeCancel(marker)
        }
    }

    mutating func checkDuration(_ marker: SignalMarker, against item: SignalledBreak, as source: String) {
        guard let duration = marker.duration, let planned = item.plannedDuration else { return }
        if abs((duration.value - planned).nanoseconds) > SignalRecognizer.tolerance.nanoseconds {
            diagnostics.append(
                Rule.scte35DurationMismatch.diagnostic(
                    at: location(marker.line),
                    "\(duration.source) says \(duration.value) s, but \(source) of break \"\(item.id)\" (line \(item.line)) says \(planned) s"
                ))
        }
    }

    mutating func takeOut(_ marker: SignalMarker) {
        if let duration = marker.duration, let sectionDuration = marker.sectionDuration,
            abs((duration.value - sectionDuration).nanoseconds) > SignalRecognizer.tolerance.nanoseconds
        {
            diagnostics.append(
                Rule.scte35DurationMismatch.diagnostic(
                    at: location(marker.line),
                    "\(duration.source) says \(duration.value) s, but its section's \(SignalMarkerNames.duration(marker)) says \(sectionDuration) s"
                ))
        }
        // The same OUT written twice on one segment (EXT-OATCLS-SCTE35 with EXT-X-CUE-OUT), or again.
        if let index = open.lastIndex(where: {
            ($0.segment == marker.segment && sameKey($0.item.eventID, marker.eventID))
                || (marker.eventID != nil && $0.item.eventID == marker.eventID)
        }) {
            checkDuration(marker, against: open[index].item, as: "the OUT")
            var item = open[index].item
            if item.eventID == nil, let signal = marker.signal, let section = marker.section {
                item.eventID = signal.eventID
                item.section = section
                item.id = Self.id(section: section, signal: signal) ?? item.id
            }
            if item.plannedDuration == nil { item.plannedDuration = marker.duration?.value }
            open[index].item = item
            return
        }
        if let signal = marker.signal, !signal.isBreakLevel, !open.isEmpty {
            nested.insert(signal.eventID)
            return
        }
        var start = position(of: marker)
        // A splice time ahead of the marker's segment: the break starts then (the splice-time lead).
        var lead: MediaTime?
        if marker.form != .dateRange, let clock, let section = marker.section, let date = start.date,
            let ahead = clock.lead(of: section, segmentAt: date)
        {
            lead = ahead
            start = (date + ahead, start.time.map { $0 + ahead })
        }
        // The OUT at the splice point of a break announced ahead (its EXT-X-CUE-OUT after the early
        // EXT-OATCLS-SCTE35) is that break.
        if lead == nil, let date = start.date,
            let index = open.lastIndex(where: { open in
                open.item.spliceLead != nil && sameKey(open.item.eventID, marker.eventID)
                    && open.item.startDate.map {
                        abs(($0 - date).nanoseconds) <= SignalRecognizer.tolerance.nanoseconds
                    }
                        == true
            })
        {
            checkDuration(marker, against: open[index].item, as: "the OUT")
            if open[index].item.plannedDuration == nil { open[index].item.plannedDuration = marker.duration?.value }
            return
        }
        var item = SignalledBreak(
            id: id(marker, start: start.date, segment: marker.segment), startDate: start.date,
            startTime: start.time, plannedDuration: marker.duration?.value, form: marker.form,
            eventID: marker.eventID, section: marker.section, line: marker.line)
        item.spliceLead = lead
        open.append(Open(item: item, segment: marker.segment, dateRangeID: marker.dateRangeID))
    }

    mutating func takeIn(_ marker: SignalMarker) {
        let index =
            marker.dateRangeID.flatMap { id in open.lastIndex { $0.dateRangeID == id } }
            ?? marker.eventID.flatMap { id in open.lastIndex { $0.item.eventID == id } }
            ?? (marker.eventID == nil ? open.indices.last : open.lastIndex { $0.item.eventID == nil })
        guard let index else {
            if let id = marker.eventID, nested.contains(id) { return }
            // The same IN written twice (EXT-X-CUE-IN with a section's IN), or again.
            if done.contains(where: {
                $0.returnSegment == marker.segment || (marker.eventID != nil && $0.item.eventID == marker.eventID)
            }) {
                return
            }
            diagnostics.append(
                Rule.scte35InWithoutOut.diagnostic(
                    at: location(marker.line),
                    "this IN\(marker.eventID.map { " (\($0))" } ?? "") matches no OUT before it (or its OUT has left the playlist)"
                ))
            return
        }
        var item = open.remove(at: index).item
        item.returnDate = position(of: marker).date
        item.returnLine = marker.line
        if let returned = item.returnedAfter, let planned = item.plannedDuration,
            (returned - planned).nanoseconds > SignalRecognizer.tolerance.nanoseconds
        {
            diagnostics.append(
                Rule.scte35DurationMismatch.diagnostic(
                    at: location(marker.line),
                    "the IN comes \(returned) s after the OUT of break \"\(item.id)\" (line \(item.line)), past its planned \(planned) s"
                ))
        }
        done.append((item, marker.segment))
    }

    mutating func takeCont(_ marker: SignalMarker, elapsed: MediaTime?) {
        let index =
            marker.eventID.flatMap { id in open.lastIndex { $0.item.eventID == id } }
            ?? open.indices.last
        guard let index else {
            // The OUT has left the window: the break started ElapsedTime before this segment.
            guard let elapsed else { return }
            let date = marker.date.map { $0 - elapsed }
            let time = position(of: marker).time.map { $0 - elapsed }
            let start = (date: date, time: time)
            let item = SignalledBreak(
                id: id(marker, start: start.date, segment: marker.segment), startDate: start.date,
                startTime: start.time, plannedDuration: marker.duration?.value, form: .cueOut,
                eventID: marker.eventID, section: marker.section, line: marker.line)
            open.append(Open(item: item, segment: marker.segment))
            return
        }
        checkDuration(marker, against: open[index].item, as: "the OUT")
        if open[index].item.plannedDuration == nil { open[index].item.plannedDuration = marker.duration?.value }
        let item = open[index].item
        if let elapsed, let date = marker.date, let start = item.startDate {
            let expected = date - start
            if abs((expected - elapsed).nanoseconds) > SignalRecognizer.tolerance.nanoseconds {
                diagnostics.append(
                    Rule.scte35ElapsedMismatch.diagnostic(
                        at: location(marker.line),
                        "ElapsedTime is \(elapsed) s, but the OUT of break \"\(item.id)\" (line \(item.line)) was \(expected) s before this segment"
                    ))
            }
        }
    }

    mutating func takeCancel(_ marker: SignalMarker) {
        guard let id = marker.eventID else { return }
        if let index = open.lastIndex(where: { $0.item.eventID == id }) {
            var item = open.remove(at: index).item
            item.isCancelled = true
            done.append((item, nil))
        } else if let index = done.lastIndex(where: { $0.item.eventID == id }) {
            done[index].item.isCancelled = true
        }
    }

    /// The date and timeline time of a marker.
    func position(of marker: SignalMarker) -> (date: DateTime?, time: MediaTime?) {
        if marker.form == .dateRange {
            guard let date = marker.date, let first = playlist.segments.first, let firstDate = first.date else {
                return (marker.date, nil)
            }
            return (date, first.startTime + (date - firstDate))
        }
        if marker.segment < playlist.segments.count {
            let segment = playlist.segments[marker.segment]
            return (segment.date, segment.startTime)
        }
        guard let last = playlist.segments.last else { return (marker.date, nil) }
        return (last.date.map { $0 + last.duration }, last.endTime)
    }

    mutating func finish() -> [SignalledBreak] {
        (done.map(\.item) + open.map(\.item)).sorted { $0.line < $1.line }
    }

    /// `scte35-<event ID>-<CRC_32>`.
    static func id(section: SpliceInfoSection, signal: BreakSignal) -> String? {
        section.crcText.map { "scte35-\(signal.eventID.value)-\($0)" }
    }

    func id(_ marker: SignalMarker, start: DateTime?, segment: Int) -> String {
        Self.id(marker, start: start, segment: segment, playlist: playlist)
    }

    static func id(_ marker: SignalMarker, start: DateTime?, segment: Int, playlist: MediaPlaylist) -> String {
        if let section = marker.section, let signal = marker.signal, let id = id(section: section, signal: signal) {
            return id
        }
        if let dateRangeID = marker.dateRangeID { return "scte35-" + dateRangeID }
        if let start {
            let milliseconds = start.nanosecondsSinceEpoch / 1_000_000
            let rounded = start.nanosecondsSinceEpoch % 1_000_000 >= 500_000 ? milliseconds + 1 : milliseconds
            return "scte35-cue-\(rounded)"
        }
        let sequence =
            segment < playlist.segments.count
            ? playlist.segments[segment].mediaSequence : (playlist.segments.last.map { $0.mediaSequence + 1 } ?? 0)
        return "scte35-cue-msn\(sequence)"
    }
}

/// Names used in messages.
private enum SignalMarkerNames {
    static func duration(_ marker: SignalMarker) -> String {
        if case .segmentation = marker.signal?.eventID { return "segmentation_duration" }
        return "break_duration"
    }
}

extension MediaTime {
    /// A duration of `ticks` of the 90 kHz clock.
    init(ticks: UInt64) {
        let clamped = Swift.min(ticks, Ticks.max40)
        self.init(
            nanoseconds: Int64(clamped / 90_000) * 1_000_000_000 + Int64(clamped % 90_000) * 1_000_000_000 / 90_000)
    }
}
