/// Reads a `moov` box (ISO/IEC 14496-12 §8.2–8.8) into an ``InitSegment``, keeping where each
/// track's sample table is for self-contained files.
enum MovieParser {
    /// A parsed `moov`: the description and each track's `stbl` box.
    struct Movie {
        var initSegment: InitSegment
        var sampleTables: [UInt32: Box]
    }

    /// Reads `moov`; `ftyp` gives the major brand when there is one.
    static func parse(moov: Box, ftyp: Box?, _ bytes: [UInt8]) throws(MediaTimingError) -> Movie {
        var majorBrand: String?
        if let ftyp {
            var reader = ftyp.reader(bytes)
            majorBrand = FourCC(try reader.u32()).description
        }
        let children = try moov.children(bytes)
        var movieTimescale: UInt32 = 1000
        if let mvhd = Box.first("mvhd", in: children) {
            var reader = mvhd.reader(bytes)
            let version = try reader.u8()
            try reader.skip(3 + (version == 1 ? 16 : 8))
            movieTimescale = try reader.u32()
        }
        var defaults: [UInt32: TrackFragmentDefaults] = [:]
        let mvex = Box.first("mvex", in: children)
        if let mvex {
            for trex in try mvex.children(bytes) where trex.type == "trex" {
                var reader = trex.reader(bytes)
                try reader.skip(4)
                let id = try reader.u32()
                defaults[id] = TrackFragmentDefaults(
                    sampleDescriptionIndex: try reader.u32(), sampleDuration: try reader.u32(),
                    sampleSize: try reader.u32(), sampleFlags: try reader.u32())
            }
        }
        var tracks: [TrackDescription] = []
        var tables: [UInt32: Box] = [:]
        for trak in children where trak.type == "trak" {
            var (track, stbl) = try parseTrack(trak, movieTimescale: movieTimescale, bytes)
            if let trackDefaults = defaults[track.trackID] { track.fragmentDefaults = trackDefaults }
            if let stbl { tables[track.trackID] = stbl }
            tracks.append(track)
        }
        let initSegment = InitSegment(
            majorBrand: majorBrand, movieTimescale: movieTimescale, isFragmented: mvex != nil, tracks: tracks)
        return Movie(initSegment: initSegment, sampleTables: tables)
    }

    private static func require(_ type: FourCC, in boxes: [Box], of parent: Box) throws(MediaTimingError) -> Box {
        guard let box = Box.first(type, in: boxes) else {
            throw MediaTimingError(
                .missingBox, offset: parent.offset, path: parent.path, "\(parent.type) has no \(type) box")
        }
        return box
    }

    private static func parseTrack(
        _ trak: Box, movieTimescale: UInt32, _ bytes: [UInt8]
    ) throws(MediaTimingError)
        -> (TrackDescription, Box?)
    {
        let children = try trak.children(bytes)
        let tkhd = try require("tkhd", in: children, of: trak)
        var reader = tkhd.reader(bytes)
        let tkhdVersion = try reader.u8()
        try reader.skip(3 + (tkhdVersion == 1 ? 16 : 8))
        let trackID = try reader.u32()
        let mdia = try require("mdia", in: children, of: trak)
        let mdiaChildren = try mdia.children(bytes)
        let mdhd = try require("mdhd", in: mdiaChildren, of: mdia)
        reader = mdhd.reader(bytes)
        let version = try reader.u8()
        try reader.skip(3 + (version == 1 ? 16 : 8))
        let timescale = try reader.u32()
        guard timescale > 0 else { throw reader.error(.invalidBox, "mdhd timescale is 0", at: reader.position - 4) }
        let duration = version == 1 ? try reader.u64() : UInt64(try reader.u32())
        let hdlr = try require("hdlr", in: mdiaChildren, of: mdia)
        reader = hdlr.reader(bytes)
        try reader.skip(8)  // version, flags, pre_defined
        let handler = FourCC(try reader.u32())
        let kind: TrackKind =
            switch handler {
            case "vide": .video
            case "soun": .audio
            case "subt", "text", "sbtl", "clcp": .subtitles
            case "meta": .metadata
            default: .other
            }
        var track = TrackDescription(
            trackID: trackID, kind: kind, handlerType: handler.description, timescale: timescale,
            duration: TimescaledTime(value: Int64(clamping: duration), timescale: timescale), sampleEntryType: "")
        if let edts = Box.first("edts", in: children), let elst = Box.first("elst", in: try edts.children(bytes)) {
            track.editListOffset = try editListOffset(
                elst, movieTimescale: movieTimescale, mediaTimescale: timescale, bytes)
        }
        var stbl: Box?
        if let minf = Box.first("minf", in: mdiaChildren) {
            stbl = Box.first("stbl", in: try minf.children(bytes))
        }
        if let stbl, let stsd = Box.first("stsd", in: try stbl.children(bytes)) {
            let entries = try stsd.children(bytes, skipping: 8)  // version, flags, entry_count
            if let first = entries.first {
                let entry = try SampleEntryParser.parse(first, bytes)
                track.sampleEntryType = entry.type.description
                track.codec = entry.codec
                track.width = entry.width
                track.height = entry.height
                track.sampleRate = entry.sampleRate
                track.channelCount = entry.channelCount
            }
        }
        return (track, stbl)
    }

    /// The presentation shift of an `elst`: empty edits (media_time −1) before the first media edit
    /// delay the track; the media edit's `media_time` is where presentation starts in the media.
    private static func editListOffset(
        _ elst: Box, movieTimescale: UInt32, mediaTimescale: UInt32, _ bytes: [UInt8]
    ) throws(MediaTimingError) -> TimescaledTime? {
        var reader = elst.reader(bytes)
        let version = try reader.u8()
        try reader.skip(3)
        let count = try reader.u32()
        let entrySize = version == 1 ? 20 : 12
        guard UInt64(count) * UInt64(entrySize) <= UInt64(reader.remaining) else {
            throw reader.error(.truncated, "elst declares \(count) entries but holds \(reader.remaining / entrySize)")
        }
        var empty: UInt64 = 0
        for _ in 0..<count {
            let duration = version == 1 ? try reader.u64() : UInt64(try reader.u32())
            let mediaTime =
                version == 1 ? Int64(bitPattern: try reader.u64()) : Int64(Int32(bitPattern: try reader.u32()))
            try reader.skip(4)  // media_rate
            if mediaTime == -1 {
                empty = empty &+ duration
                continue
            }
            // empty (movie timescale) × media timescale fits in 96 bits; divided back it fits unless absurd.
            let product = empty.multipliedFullWidth(by: UInt64(mediaTimescale))
            let divisor = UInt64(max(movieTimescale, 1))
            let emptyTicks =
                product.high >= divisor
                ? Int64.max : Int64(clamping: divisor.dividingFullWidth((product.high, product.low)).quotient)
            return TimescaledTime(value: emptyTicks &- mediaTime, timescale: mediaTimescale)
        }
        return nil
    }
}
