/// Moves the decode times of fragmented MP4 media segments: a looped live channel's timestamps then
/// run on across loops instead of starting again at every loop (no EXT-X-DISCONTINUITY, which some
/// players handle badly when they start or seek next to one).
///
/// Pure and bounded: it walks the boxes with the same reader as ``MediaTimingParser`` and rewrites
/// the 64-bit `baseMediaDecodeTime` of each `moof/traf/tfdt` (version 1) in place.
public enum DecodeTimeShift {
    /// The media timescale of the first track of an initialization segment, nil when it has none.
    public static func timescale(ofInitialization bytes: [UInt8]) -> UInt32? {
        guard let track = try? MediaTimingParser.parseInitSegment(bytes).tracks.first, track.timescale > 0 else {
            return nil
        }
        return track.timescale
    }

    /// `bytes`, a media segment, with every track fragment's decode time moved on by `ticks`.
    ///
    /// - Throws: ``MediaTimingError`` with the offset and box path: malformed boxes, no version-1
    ///   `tfdt` to move (`media-tfdt-missing`), or a time that would not fit in 64 bits.
    public static func shifted(_ bytes: [UInt8], by ticks: UInt64) throws(MediaTimingError) -> [UInt8] {
        var output = bytes
        try shift(&output, by: ticks)
        return output
    }

    /// Moves every track fragment's decode time of the media segment `bytes` on by `ticks`, in place.
    ///
    /// Only the boxes' headers and the `tfdt` fields are read: the cost grows with the number of
    /// boxes, not with the bytes of media. `bytes` is unchanged when it throws.
    ///
    /// - Throws: as ``shifted(_:by:)``.
    public static func shift(_ bytes: inout [UInt8], by ticks: UInt64) throws(MediaTimingError) {
        var moves: [(at: Int, value: UInt64)] = []
        for moof in try Box.boxes(in: bytes, from: 0, to: bytes.count, parentPath: "", depth: 1)
        where moof.type == "moof" {
            for traf in try moof.children(bytes) where traf.type == "traf" {
                guard let tfdt = Box.first("tfdt", in: try traf.children(bytes)) else { continue }
                var reader = tfdt.reader(bytes)
                guard try reader.u8() == 1 else {
                    throw MediaTimingError(
                        .invalidBox, offset: tfdt.offset, path: tfdt.path,
                        "a version 0 tfdt (32 bits) cannot be moved in place")
                }
                try reader.skip(3)
                let at = tfdt.payloadStart + 4
                let (value, overflow) = try reader.u64().addingReportingOverflow(ticks)
                guard !overflow else {
                    throw MediaTimingError(
                        .invalidBox, offset: tfdt.offset, path: tfdt.path, "the moved decode time exceeds 64 bits")
                }
                moves.append((at, value))
            }
        }
        guard !moves.isEmpty else {
            throw MediaTimingError(.missingDecodeTime, offset: 0, path: "moof", "no track fragment decode time to move")
        }
        for (at, value) in moves {
            for index in 0..<8 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(index))) }
        }
    }
}
