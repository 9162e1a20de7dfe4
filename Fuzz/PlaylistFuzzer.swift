// libFuzzer entry point for the playlist parser and the interstitial layer. Built by Fuzz/run.sh
// together with the HLSPlaylist and HLSInterstitials sources: every input must parse without
// crashing or hanging, round-trip byte for byte, give the same lines, playlist and diagnostics
// whether kept compactly or as values (as for a source over 4 GiB), re-interpret after writing, render its
// diagnostics in bounded space, validate, convert every interstitial to an event and back
// losslessly, resolve its schedule and build the integrated timeline and its drawings, recognize
// its SCTE-35 signals, and decode as an asset list without crashing.

@_cdecl("LLVMFuzzerTestOneInput")
public func playlistFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let result = PlaylistParser.parse(bytes, options: ParseOptions(file: "fuzz.m3u8"))
    guard result.document.write() == bytes else { fatalError("round trip failed") }
    guard result.diagnostics.count <= Diagnostic.maximumPerFile + 1 else { fatalError("diagnostics not capped") }
    for diagnostic in result.diagnostics {
        let index = diagnostic.location.line - 1
        // An empty document's diagnostics point at line 1, column 1.
        guard index >= 0, index <= result.document.lines.count else { fatalError("diagnostic outside the document") }
        let rendered = diagnostic.render(in: result.document)
        // The summary, a window of the source line and the caret line.
        guard rendered.utf8.count <= diagnostic.description.utf8.count + 4 * (Diagnostic.renderedLineWidth + 8) else {
            fatalError("rendered diagnostic not bounded")
        }
    }
    var valuesOptions = ParseOptions(file: "fuzz.m3u8")
    valuesOptions.compactSourceLimit = 0
    let values = PlaylistParser.parse(bytes, options: valuesOptions)
    guard values.playlist == result.playlist, values.diagnostics == result.diagnostics,
        values.document.lines == result.document.lines
    else { fatalError("the compact and the values forms differ") }
    guard PlaylistParser.interpret(result.document).playlist == result.playlist else {
        fatalError("reading the parsed document again gives another playlist")
    }
    for diagnostic in InterstitialValidator.validate(result) {
        guard diagnostic.location.line >= 1, diagnostic.location.line <= max(1, result.document.lines.count) else {
            fatalError("validator diagnostic outside the document")
        }
    }
    if case .media(let playlist) = result.playlist {
        for range in playlist.dateRanges {
            guard let event = InterstitialEvent(dateRange: range) else { continue }
            // A tag whose values cannot be written canonically is refused, never written broken.
            guard (try? range.attributes.checkWritable()) != nil else {
                if (try? event.dateRangeAttributes) != nil { fatalError("an unwritable value was written") }
                continue
            }
            guard let written = try? event.dateRangeAttributes, written == range.attributes else {
                fatalError("event conversion lost data")
            }
            guard InterstitialEvent(attributes: written) == event else { fatalError("event conversion not stable") }
        }
        let schedule = InterstitialSchedule.resolve(
            ScheduleInput(primary: playlist, events: ScheduleInput.events(of: playlist)))
        for item in schedule.items {
            guard item.playout.lowerBound <= item.playout.upperBound else { fatalError("bad playout range") }
        }
        let snapshot = IntegratedTimelineSnapshot(schedule: schedule, primary: playlist)
        if let first = snapshot.segments.first { _ = snapshot.map(first.timeMapping.target.lowerBound) }
        _ = TimelinePicture.ansi(schedule, width: 40, colors: false)
        _ = TimelinePicture.svg(schedule)
        // The SCTE-35 signals: bounded, located inside the document, durations never negative.
        let recognition = SignalRecognizer.recognize(playlist, document: result.document, file: "fuzz.m3u8")
        guard recognition.breaks.count <= SignalRecognizer.maximumMarkers else { fatalError("breaks not bounded") }
        let lines = max(1, result.document.lines.count)
        for item in recognition.breaks {
            guard item.line >= 1, item.line <= lines, (item.returnLine ?? 1) >= 1, (item.returnLine ?? 1) <= lines
            else { fatalError("break outside the document") }
            guard (item.plannedDuration ?? .zero) >= .zero else { fatalError("negative planned duration") }
            _ = item.duration
        }
        for diagnostic in recognition.diagnostics {
            guard diagnostic.location.line >= 1, diagnostic.location.line <= lines else {
                fatalError("signal diagnostic outside the document")
            }
        }
    }
    if let list = try? AssetList.decode(bytes) {
        guard (try? AssetList.decode(Array(list.encoded().utf8))) == list else { fatalError("asset list round trip") }
    }
    return 0
}
