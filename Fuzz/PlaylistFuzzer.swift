// libFuzzer entry point for the playlist parser. Built by Fuzz/run.sh together with the
// HLSPlaylist sources: every input must parse without crashing or hanging, round-trip byte for
// byte, re-interpret after writing, and render its diagnostics.

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
    return 0
}
