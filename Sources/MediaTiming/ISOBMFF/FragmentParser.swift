/// Reads the movie fragments of an fMP4 media segment (ISO/IEC 14496-12 §8.8: `moof`, `mfhd`,
/// `traf`, `tfhd`, `tfdt`, `trun`) into per-track timing, using the initialization segment's
/// timescales and `trex` defaults.
///
/// A sample's duration, size and flags come from the `trun` when it has them, else from the
/// `tfhd` defaults, else from `trex`; the first sample's flags from `first_sample_flags` when present.
/// A `trun` without per-sample fields is summed in constant time, so a declared sample count costs
/// nothing beyond the bytes that hold it.
struct FragmentParser {
    /// What is summed for one track across the segment's fragments.
    private struct Accumulator {
        var track: TrackDescription
        var decodeStart: Int64?
        var decodeEnd: Int64 = 0
        var presentationStart: Int64?
        var duration: Int64 = 0
        var bytes: Int64 = 0
        var samples: Int64 = 0
        var firstSync: Bool?
    }

    private let bytes: [UInt8]
    private let initSegment: InitSegment
    private var tracks: [UInt32: Accumulator] = [:]
    private var order: [UInt32] = []
    private(set) var sequenceNumber: UInt32?
    var warnings = WarningCollector()

    init(_ bytes: [UInt8], initSegment: InitSegment) {
        self.bytes = bytes
        self.initSegment = initSegment
    }

    /// The timing of each track seen, in order of first appearance.
    var timings: [TrackTiming] {
        order.compactMap { id in
            guard let entry = tracks[id] else { return nil }
            let scale = entry.track.timescale
            return TrackTiming(
                id: id, kind: entry.track.kind, codec: entry.track.codec,
                decodeStart: TimescaledTime(value: entry.decodeStart ?? 0, timescale: scale),
                presentationStart: TimescaledTime(
                    value: entry.presentationStart ?? entry.decodeStart ?? 0, timescale: scale),
                editListOffset: entry.track.editListOffset,
                duration: TimescaledTime(value: entry.duration, timescale: scale),
                byteCount: Int(clamping: entry.bytes), sampleCount: Int(clamping: entry.samples),
                startsWithKeyFrame: entry.firstSync, sampleRate: entry.track.sampleRate)
        }
    }

    /// Reads one `moof`.
    mutating func parse(moof: Box) throws(MediaTimingError) {
        let children = try moof.children(bytes)
        if let mfhd = Box.first("mfhd", in: children), sequenceNumber == nil {
            var reader = mfhd.reader(bytes)
            try reader.skip(4)
            sequenceNumber = try reader.u32()
        }
        var previousDataEnd = moof.offset
        for traf in children where traf.type == "traf" {
            previousDataEnd = try parse(traf: traf, moof: moof, previousDataEnd: previousDataEnd)
        }
    }

    /// Reads one `traf`; returns where its sample data ends (the implicit base of the next `traf`).
    private mutating func parse(traf: Box, moof: Box, previousDataEnd: Int) throws(MediaTimingError) -> Int {
        let children = try traf.children(bytes)
        guard let tfhd = Box.first("tfhd", in: children) else {
            throw MediaTimingError(.missingBox, offset: traf.offset, path: traf.path, "traf has no tfhd box")
        }
        var reader = tfhd.reader(bytes)
        let flags = try reader.u32() & 0xFF_FFFF
        let trackID = try reader.u32()
        guard let track = initSegment.track(id: trackID) else {
            throw MediaTimingError(
                .unknownTrack, offset: tfhd.offset, path: tfhd.path,
                "tfhd track_ID \(trackID) is not a track of the initialization segment (\(initSegment.tracks.map(\.trackID)))"
            )
        }
        var base: Int
        if flags & 0x1 != 0 {
            base = Int(clamping: try reader.u64())
        } else if flags & 0x2_0000 != 0 {
            base = moof.offset
        } else {
            base = previousDataEnd
        }
        var defaults = track.fragmentDefaults
        if flags & 0x2 != 0 { defaults.sampleDescriptionIndex = try reader.u32() }
        if flags & 0x8 != 0 { defaults.sampleDuration = try reader.u32() }
        if flags & 0x10 != 0 { defaults.sampleSize = try reader.u32() }
        if flags & 0x20 != 0 { defaults.sampleFlags = try reader.u32() }

        var entry = tracks[trackID] ?? Accumulator(track: track)
        if tracks[trackID] == nil { order.append(trackID) }
        var decode = entry.decodeStart == nil ? 0 : entry.decodeEnd
        if let tfdt = Box.first("tfdt", in: children) {
            var tfdtReader = tfdt.reader(bytes)
            let version = try tfdtReader.u8()
            try tfdtReader.skip(3)
            decode = Int64(clamping: version == 1 ? try tfdtReader.u64() : UInt64(try tfdtReader.u32()))
        } else if entry.decodeStart == nil {
            warnings.add(
                MediaTimingError(
                    .missingDecodeTime, offset: traf.offset, path: traf.path,
                    "traf has no tfdt, so the track's start time is not known (taken as 0)"))
        }
        if entry.decodeStart == nil { entry.decodeStart = decode }
        var dataEnd = base
        var outsideReported = false
        for trun in children where trun.type == "trun" {
            let run = try parse(trun: trun, defaults: defaults, decode: decode)
            if let sync = run.firstSync, entry.firstSync == nil { entry.firstSync = sync }
            let start = run.dataOffset.map { base &+ $0 } ?? dataEnd
            let end = start &+ Int(clamping: run.bytes)
            if (start < 0 || end > bytes.count) && !outsideReported {
                outsideReported = true
                warnings.add(
                    MediaTimingError(
                        .sampleDataOutside, offset: trun.offset, path: trun.path,
                        "the run's sample data (bytes \(start)..<\(end)) is not inside the \(bytes.count) bytes given"))
            }
            dataEnd = end
            decode = decode &+ run.duration
            entry.duration = entry.duration &+ run.duration
            entry.bytes = entry.bytes &+ run.bytes
            entry.samples = entry.samples &+ run.count
            if let earliest = run.earliestPresentation {
                entry.presentationStart = min(entry.presentationStart ?? earliest, earliest)
            }
        }
        entry.decodeEnd = decode
        tracks[trackID] = entry
        return dataEnd
    }

    /// What one `trun` sums to.
    private struct Run {
        var count: Int64 = 0
        var duration: Int64 = 0
        var bytes: Int64 = 0
        var dataOffset: Int?
        var firstSync: Bool?
        var earliestPresentation: Int64?
    }

    private func parse(
        trun: Box, defaults: TrackFragmentDefaults, decode: Int64
    )
        throws(MediaTimingError) -> Run
    {
        var reader = trun.reader(bytes)
        let version = try reader.u8()
        let flags = try reader.u24()
        let countOffset = reader.position
        let count = try reader.u32()
        var run = Run(count: Int64(count))
        if flags & 0x1 != 0 { run.dataOffset = Int(Int32(bitPattern: try reader.u32())) }
        let firstFlags = flags & 0x4 != 0 ? SampleFlags(rawValue: try reader.u32()) : nil
        let hasDuration = flags & 0x100 != 0
        let hasSize = flags & 0x200 != 0
        let hasFlags = flags & 0x400 != 0
        let hasOffset = flags & 0x800 != 0
        let perSample = 4 * ([hasDuration, hasSize, hasFlags, hasOffset].filter { $0 }.count)
        guard UInt64(count) * UInt64(perSample) <= UInt64(reader.remaining) else {
            throw reader.error(
                .sampleCountOverrun,
                "trun sample_count \(count) needs \(UInt64(count) * UInt64(perSample)) bytes of sample fields but the box holds \(reader.remaining)",
                at: countOffset)
        }
        guard count > 0 else { return run }
        let defaultFlags = SampleFlags(rawValue: defaults.sampleFlags)
        if perSample == 0 {
            run.duration = Int64(defaults.sampleDuration).multipliedReportingOverflow(by: Int64(count)).partialValue
            run.bytes = Int64(defaults.sampleSize).multipliedReportingOverflow(by: Int64(count)).partialValue
            run.firstSync = (firstFlags ?? defaultFlags).isSync
            run.earliestPresentation = decode
            return run
        }
        var time = decode
        var earliest = Int64.max
        for index in 0..<Int(count) {
            let duration = hasDuration ? try reader.u32() : defaults.sampleDuration
            let size = hasSize ? try reader.u32() : defaults.sampleSize
            let sampleFlags = hasFlags ? SampleFlags(rawValue: try reader.u32()) : defaultFlags
            var composition: Int64 = 0
            if hasOffset {
                let raw = try reader.u32()
                composition = version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
            }
            if index == 0 { run.firstSync = (firstFlags ?? sampleFlags).isSync }
            earliest = min(earliest, time &+ composition)
            time = time &+ Int64(duration)
            run.bytes = run.bytes &+ Int64(size)
        }
        run.duration = time &- decode
        run.earliestPresentation = earliest
        return run
    }
}
