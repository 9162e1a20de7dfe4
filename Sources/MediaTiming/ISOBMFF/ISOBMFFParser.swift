/// Reads an ISO BMFF segment: an fMP4 initialization segment (`ftyp` + `moov`), an fMP4 media
/// segment (`styp`, `sidx`, `moof` + `mdat` pairs), both concatenated, or a self-contained MP4
/// whose `moov` has sample tables.
enum ISOBMFFParser {
    /// Reads the top-level boxes of `bytes`.
    static func parse(_ bytes: [UInt8], initSegment given: InitSegment?) throws(MediaTimingError) -> SegmentTiming {
        let boxes = try Box.boxes(in: bytes, from: 0, to: bytes.count, parentPath: "", depth: 1)
        var movie: MovieParser.Movie?
        if let moov = Box.first("moov", in: boxes) {
            movie = try MovieParser.parse(moov: moov, ftyp: Box.first("ftyp", in: boxes), bytes)
        }
        var indexes: [SegmentIndex] = []
        for sidx in boxes where sidx.type == "sidx" {
            indexes.append(try SegmentIndex.parse(sidx, bytes))
        }
        let fragments = boxes.filter { $0.type == "moof" }
        if let first = fragments.first {
            guard let initSegment = movie?.initSegment ?? given else {
                throw MediaTimingError(
                    .initSegmentRequired, offset: first.offset, path: first.path,
                    "a media segment's times are in its tracks' timescales, which only the initialization segment (EXT-X-MAP) gives"
                )
            }
            var parser = FragmentParser(bytes, initSegment: initSegment)
            for moof in fragments { try parser.parse(moof: moof) }
            return SegmentTiming(
                format: .isoBMFF, byteCount: bytes.count, tracks: parser.timings, initSegment: movie?.initSegment,
                sequenceNumber: parser.sequenceNumber, segmentIndexes: indexes, warnings: parser.warnings.finished())
        }
        guard let movie else {
            let top = boxes.first
            throw MediaTimingError(
                .missingBox, offset: top?.offset ?? 0, path: top?.path ?? "",
                "the file has neither a moov (initialization segment) nor a moof (media segment)")
        }
        var tracks: [TrackTiming] = []
        for track in movie.initSegment.tracks {
            guard let stbl = movie.sampleTables[track.trackID],
                let timing = try SampleTableParser.timing(of: track, stbl: stbl, bytes)
            else { continue }
            tracks.append(timing)
        }
        return SegmentTiming(
            format: .isoBMFF, byteCount: bytes.count, tracks: tracks, initSegment: movie.initSegment,
            segmentIndexes: indexes)
    }
}
