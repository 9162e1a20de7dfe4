/// The entry point: recognises a segment's format and measures each track's timing.
///
/// ```swift
/// let initSegment = try MediaTimingParser.parseInitSegment(initBytes)
/// let timing = try MediaTimingParser.parse(segmentBytes, initSegment: initSegment)
/// for track in timing.tracks { print(track.kind, track.presentationStart.seconds, track.duration.seconds) }
/// ```
///
/// Pure: no I/O, no clock. Reading costs time linear in the input and memory bounded by it; no
/// declared size, count or length is allocated before it is checked against the bytes given.
public enum MediaTimingParser {
    /// The deepest box nesting read (`moov/trak/mdia/minf/stbl/stsd/encv/sinf/frma` is 9 deep).
    public static let maximumBoxDepth = 16

    /// The most warnings kept per segment (see ``SegmentTiming/warnings``).
    public static let maximumWarnings = 100

    /// The format of `bytes`, from its first bytes: an ISO BMFF box type (`ftyp`, `styp`, `moof`,
    /// `moov`, `sidx`…), the MPEG-TS sync byte 0x47, an ID3 tag, or an ADTS, MPEG audio or AC-3 sync
    /// word; nil when it is none of these.
    public static func sniff(_ bytes: [UInt8]) -> MediaFormat? {
        if bytes.count >= 8 {
            let type = FourCC(
                UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7]))
            if topLevelTypes.contains(type) { return .isoBMFF }
        }
        guard let first = bytes.first else { return nil }
        if first == 0x47 { return .mpegTS }
        if ID3Tag.starts(bytes, at: 0) || AudioFrameHeader.parse(bytes, at: 0) != nil { return .packedAudio }
        return nil
    }

    private static let topLevelTypes: Set<FourCC> = [
        "ftyp", "styp", "moov", "moof", "sidx", "ssix", "free", "skip", "emsg", "prft", "mdat", "uuid", "wide", "pdin",
        "meta",
    ]

    /// Reads an fMP4 initialization segment (`ftyp` + `moov`): its tracks' IDs, timescales, codecs and
    /// `trex` defaults.
    public static func parseInitSegment(_ bytes: [UInt8]) throws(MediaTimingError) -> InitSegment {
        let boxes = try Box.boxes(in: bytes, from: 0, to: bytes.count, parentPath: "", depth: 1)
        guard let moov = Box.first("moov", in: boxes) else {
            throw MediaTimingError(
                .missingBox, offset: 0, path: "", "an initialization segment needs a moov box (RFC 8216 §3.3)")
        }
        return try MovieParser.parse(moov: moov, ftyp: Box.first("ftyp", in: boxes), bytes).initSegment
    }

    /// Measures the tracks of one segment, whatever its format.
    ///
    /// - Parameters:
    ///   - bytes: the whole segment.
    ///   - initSegment: for an fMP4 media segment, its initialization segment (EXT-X-MAP); not needed
    ///     when `bytes` holds the `moov` too, nor for MPEG-TS and packed audio.
    /// - Throws: ``MediaTimingError`` with a stable code and the offset and path of the problem.
    public static func parse(
        _ bytes: [UInt8], initSegment: InitSegment? = nil
    ) throws(MediaTimingError)
        -> SegmentTiming
    {
        switch sniff(bytes) {
        case .isoBMFF: return try ISOBMFFParser.parse(bytes, initSegment: initSegment)
        case .mpegTS: return try TransportStreamParser.parse(bytes)
        case .packedAudio: return try PackedAudioParser.parse(bytes)
        case nil:
            throw MediaTimingError(
                .unknownFormat, offset: 0, path: "",
                "the segment is neither ISO BMFF (fMP4), MPEG-TS nor packed audio (RFC 8216 §3)")
        }
    }
}
