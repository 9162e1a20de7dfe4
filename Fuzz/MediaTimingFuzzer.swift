// libFuzzer entry point for the media timing reader. Built by Fuzz/run.sh together with the
// MediaTiming sources: every input must be read without crashing or hanging, as whatever format it
// sniffs as and as an fMP4 initialization segment; an error must point inside the input; warnings
// must stay capped; and an input that reads as an initialization segment must also serve as the
// initialization segment of itself (init and media segment concatenated or not).

@_cdecl("LLVMFuzzerTestOneInput")
public func mediaTimingFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    func checked(_ read: () throws(MediaTimingError) -> SegmentTiming) {
        do {
            let timing = try read()
            guard timing.warnings.count <= MediaTimingParser.maximumWarnings + 1 else {
                fatalError("warnings not capped")
            }
            guard timing.byteCount == bytes.count else { fatalError("byte count differs from the input") }
            for warning in timing.warnings where warning.offset < 0 || warning.offset > bytes.count {
                fatalError("warning outside the input: \(warning)")
            }
            if timing.format != .isoBMFF {
                for track in timing.tracks where track.byteCount > bytes.count {
                    fatalError("track bytes exceed the input")
                }
            }
        } catch {
            guard error.offset >= 0, error.offset <= bytes.count else {
                fatalError("error outside the input: \(error)")
            }
            _ = error.description
        }
    }
    _ = MediaTimingParser.sniff(bytes)
    checked { () throws(MediaTimingError) in try MediaTimingParser.parse(bytes) }
    if let initSegment = try? MediaTimingParser.parseInitSegment(bytes) {
        checked { () throws(MediaTimingError) in try MediaTimingParser.parse(bytes, initSegment: initSegment) }
    }
    return 0
}
