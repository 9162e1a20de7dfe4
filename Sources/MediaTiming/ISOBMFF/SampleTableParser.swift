/// Reads the sample tables of a self-contained MP4's track (ISO/IEC 14496-12 §8.6–8.7: `stts`,
/// `ctts`, `stsz`, `stss`) into its timing. Run-length tables are walked run by run, so the cost
/// follows the bytes of the tables, not the sample counts they declare.
enum SampleTableParser {
    /// The track's timing, or nil when its sample table holds no samples (as in an fMP4
    /// initialization segment).
    static func timing(of track: TrackDescription, stbl: Box, _ bytes: [UInt8]) throws(MediaTimingError) -> TrackTiming?
    {
        let children = try stbl.children(bytes)
        let times = try runs(Box.first("stts", in: children), bytes, signed: false)
        let offsets = try runs(Box.first("ctts", in: children), bytes, signed: true)
        let sampleCount = times.reduce(Int64(0)) { $0 &+ $1.count }
        guard sampleCount > 0 else { return nil }
        let duration = times.reduce(Int64(0)) { $0 &+ $1.count.multipliedReportingOverflow(by: $1.value).partialValue }
        // The earliest presentation: within a run of equal offsets it is at the run's first sample.
        var earliest = Int64.max
        var decode: Int64 = 0
        var timeIndex = 0
        var timeLeft = times.first?.count ?? 0
        var offsetIndex = 0
        var offsetLeft = offsets.first?.count ?? 0
        while timeIndex < times.count {
            let offset = offsetIndex < offsets.count ? offsets[offsetIndex].value : 0
            earliest = min(earliest, decode &+ offset)
            var step = timeLeft
            if offsetIndex < offsets.count { step = min(step, offsetLeft) }
            decode = decode &+ step.multipliedReportingOverflow(by: times[timeIndex].value).partialValue
            timeLeft -= step
            offsetLeft -= step
            if timeLeft == 0 {
                timeIndex += 1
                timeLeft = timeIndex < times.count ? times[timeIndex].count : 0
            }
            if offsetIndex < offsets.count, offsetLeft == 0 {
                offsetIndex += 1
                offsetLeft = offsetIndex < offsets.count ? offsets[offsetIndex].count : 0
            }
        }
        var byteCount: Int64 = 0
        if let stsz = Box.first("stsz", in: children) {
            var reader = stsz.reader(bytes)
            try reader.skip(4)
            let size = try reader.u32()
            let count = try reader.u32()
            if size != 0 {
                byteCount = Int64(size).multipliedReportingOverflow(by: Int64(count)).partialValue
            } else {
                guard UInt64(count) * 4 <= UInt64(reader.remaining) else {
                    throw reader.error(
                        .sampleCountOverrun, "stsz declares \(count) sample sizes but holds \(reader.remaining / 4)")
                }
                for _ in 0..<count { byteCount &+= Int64(try reader.u32()) }
            }
        }
        var firstSync = true
        if let stss = Box.first("stss", in: children) {
            var reader = stss.reader(bytes)
            try reader.skip(4)
            let count = try reader.u32()
            firstSync = count > 0 && reader.remaining >= 4 ? try reader.u32() == 1 : false
        }
        let scale = track.timescale
        return TrackTiming(
            id: track.trackID, kind: track.kind, codec: track.codec,
            decodeStart: TimescaledTime(value: 0, timescale: scale),
            presentationStart: TimescaledTime(value: earliest, timescale: scale), editListOffset: track.editListOffset,
            duration: TimescaledTime(value: duration, timescale: scale), byteCount: Int(clamping: byteCount),
            sampleCount: Int(clamping: sampleCount), startsWithKeyFrame: firstSync, sampleRate: track.sampleRate)
    }

    /// The (count, value) runs of an `stts` or `ctts` box; none when the box is absent.
    private static func runs(
        _ box: Box?, _ bytes: [UInt8], signed: Bool
    ) throws(MediaTimingError)
        -> [(count: Int64, value: Int64)]
    {
        guard let box else { return [] }
        var reader = box.reader(bytes)
        let version = try reader.u8()
        try reader.skip(3)
        let count = try reader.u32()
        guard UInt64(count) * 8 <= UInt64(reader.remaining) else {
            throw reader.error(
                .sampleCountOverrun, "\(box.type) declares \(count) entries but holds \(reader.remaining / 8)")
        }
        var result: [(count: Int64, value: Int64)] = []
        result.reserveCapacity(Int(count))
        for _ in 0..<count {
            let samples = Int64(try reader.u32())
            let raw = try reader.u32()
            let value = signed && version == 1 ? Int64(Int32(bitPattern: raw)) : Int64(raw)
            if samples > 0 { result.append((samples, value)) }
        }
        return result
    }
}
