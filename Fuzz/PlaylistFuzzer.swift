// libFuzzer entry point for the playlist parser and the interstitial layer. Built by Fuzz/run.sh
// together with the HLSPlaylist and HLSInterstitials sources: every input must parse without
// crashing or hanging, round-trip byte for byte, re-interpret after writing, render its
// diagnostics, validate, convert every interstitial to an event and back losslessly, and decode
// as an asset list without crashing.

@_cdecl("LLVMFuzzerTestOneInput")
public func playlistFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let result = PlaylistParser.parse(bytes, options: ParseOptions(file: "fuzz.m3u8"))
    guard result.document.write() == bytes else { fatalError("round trip failed") }
    for diagnostic in result.diagnostics {
        let index = diagnostic.location.line - 1
        // An empty document's diagnostics point at line 1, column 1.
        guard index >= 0, index <= result.document.lines.count else { fatalError("diagnostic outside the document") }
        if index < result.document.lines.count {
            _ = diagnostic.render(sourceLine: result.document.text(ofLine: index))
        }
    }
    _ = PlaylistParser.interpret(result.document)
    for diagnostic in InterstitialValidator.validate(result) {
        guard diagnostic.location.line >= 1, diagnostic.location.line <= max(1, result.document.lines.count) else {
            fatalError("validator diagnostic outside the document")
        }
    }
    if case .media(let playlist) = result.playlist {
        for range in playlist.dateRanges {
            guard let event = InterstitialEvent(dateRange: range) else { continue }
            guard event.dateRangeAttributes == range.attributes else { fatalError("event conversion lost data") }
            guard InterstitialEvent(attributes: event.dateRangeAttributes) == event else {
                fatalError("event conversion not stable")
            }
        }
    }
    if let list = try? AssetList.decode(bytes) {
        guard (try? AssetList.decode(Array(list.encoded().utf8))) == list else { fatalError("asset list round trip") }
    }
    return 0
}
