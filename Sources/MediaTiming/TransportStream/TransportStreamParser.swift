/// Reads an MPEG-2 transport stream segment (ISO/IEC 13818-1 §2.4): 188-byte packets, the PAT and
/// PMT, and the PES headers of every elementary stream, into per-stream timing.
///
/// "The sync_byte is a fixed 8-bit field whose value is '0100 0111' (0x47)" (§2.4.3.3); a packet
/// without it stops reading with ``MediaTimingError/Code/syncByte`` at its index. PTS and DTS are
/// 33-bit 90 kHz values; they are unwrapped across the segment, so a segment that wraps has times
/// past 2^33. Only the first program of the PAT is read, as HLS requires one program per segment.
struct TransportStreamParser {
    /// The packet size.
    static let packetSize = 188

    /// What is kept per elementary stream; a class, so that a packet updates it in place (a struct
    /// taken out of the dictionary would copy its arrays on every write).
    private final class Stream {
        let pid: UInt16
        let streamType: UInt8
        let type: StreamType
        var continuity: UInt8?
        var inPES = false
        var unwrapper: TimestampUnwrapper
        var firstDecode: Int64?
        var firstPresentation: Int64?
        var minPresentation: Int64?
        var maxPresentation: Int64?
        var lastPESPresentation: Int64?
        var presentations: [Int64] = []
        var pesCount: Int64 = 0
        var bytes: Int64 = 0
        var audio: AudioFrameWalker?
        var samplesAtLastPES: Int64 = 0
        var nal: NALUnitScanner?
        var firstRandomAccess: Bool?
        var orphanBytes: Int64 = 0

        init(pid: UInt16, streamType: UInt8, type: StreamType) {
            self.pid = pid
            self.streamType = streamType
            self.type = type
            unwrapper = TimestampUnwrapper()
            if let framing = type.audioFraming { audio = AudioFrameWalker(framing: framing) }
            if let coding = type.videoCoding { nal = NALUnitScanner(isHEVC: coding == .hevc) }
        }
    }

    private let bytes: [UInt8]
    private var warnings = WarningCollector()
    private var programMapPID: UInt16?
    private var streams: [UInt16: Stream] = [:]
    private var order: [UInt16] = []
    private var sections: [UInt16: [UInt8]] = [:]
    private var sawPMT = false
    private var firstTimestamp: Int64?

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Reads every packet.
    static func parse(_ bytes: [UInt8]) throws(MediaTimingError) -> SegmentTiming {
        var parser = TransportStreamParser(bytes)
        return try parser.run()
    }

    private mutating func run() throws(MediaTimingError) -> SegmentTiming {
        let count = bytes.count / Self.packetSize
        for index in 0..<count {
            try packet(index)
        }
        if bytes.count % Self.packetSize != 0 {
            warnings.add(
                MediaTimingError(
                    .partialPacket, offset: count * Self.packetSize, path: "packet \(count)",
                    "the stream ends with a partial packet of \(bytes.count % Self.packetSize) bytes"))
        }
        if programMapPID == nil || !sawPMT {
            throw MediaTimingError(
                .missingProgramTable, offset: 0, path: programMapPID == nil ? "PID 0x0000" : "PMT",
                programMapPID == nil ? "the segment has no PAT" : "the segment has no PMT for its program")
        }
        var tracks: [TrackTiming] = []
        for pid in order {
            guard let stream = streams[pid] else { continue }
            tracks.append(timing(of: stream))
            if stream.orphanBytes > 0 {
                warnings.add(
                    MediaTimingError(
                        .orphanPayload, offset: 0, path: "PID \(Self.hex(pid))",
                        "\(stream.orphanBytes) bytes of the stream come before its first PES header (the segment was cut inside a PES packet)"
                    ))
            }
            if let audio = stream.audio, audio.skipped > 0 {
                warnings.add(
                    MediaTimingError(
                        .skippedBytes, offset: 0, path: "PID \(Self.hex(pid))",
                        "\(audio.skipped) bytes of the audio stream are not inside \(stream.type.audioFraming?.rawValue ?? "audio") frames"
                    ))
            }
        }
        return SegmentTiming(format: .mpegTS, byteCount: bytes.count, tracks: tracks, warnings: warnings.finished())
    }

    /// `packet 12 PID 0x0100`.
    static func location(_ index: Int, _ pid: UInt16) -> String { "packet \(index) PID \(hex(pid))" }

    /// `0x0100`.
    static func hex(_ pid: UInt16) -> String {
        let digits = String(pid, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private mutating func packet(_ index: Int) throws(MediaTimingError) {
        let start = index * Self.packetSize
        let end = start + Self.packetSize
        guard bytes[start] == 0x47 else {
            throw MediaTimingError(
                .syncByte, offset: start, path: "packet \(index)",
                "packet \(index) starts with 0x\(SampleEntryParser.hex(bytes[start], uppercase: true)), not the sync byte 0x47"
            )
        }
        let pid = UInt16(bytes[start + 1] & 0x1F) << 8 | UInt16(bytes[start + 2])
        // Made only when a problem is reported: formatting it for every packet would dominate the cost.
        var path: String { Self.location(index, pid) }
        if bytes[start + 1] & 0x80 != 0 {
            warnings.add(
                MediaTimingError(
                    .syncByte, offset: start, path: path, "transport_error_indicator is set; packet skipped"))
            return
        }
        let unitStart = bytes[start + 1] & 0x40 != 0
        let control = (bytes[start + 3] >> 4) & 3
        let counter = bytes[start + 3] & 0x0F
        var payload = start + 4
        var randomAccess = false
        var discontinuity = false
        if control & 2 != 0 {
            let length = Int(bytes[start + 4])
            guard length <= Self.packetSize - 5 else {
                warnings.add(
                    MediaTimingError(
                        .syncByte, offset: start + 4, path: path,
                        "adaptation_field_length \(length) runs past the packet; packet skipped"))
                return
            }
            if length > 0 {
                discontinuity = bytes[start + 5] & 0x80 != 0
                randomAccess = bytes[start + 5] & 0x40 != 0
            }
            payload = start + 5 + length
        }
        guard control & 1 != 0, payload < end else { return }
        if pid == 0 || pid == programMapPID {
            try section(pid, unitStart: unitStart, payload..<end, path: path)
            return
        }
        guard let stream = streams[pid] else { return }
        if let previous = stream.continuity, !discontinuity, counter != (previous + 1) & 0x0F, counter != previous {
            warnings.add(
                MediaTimingError(
                    .continuity, offset: start + 3, path: path,
                    "continuity_counter goes from \(previous) to \(counter): \((Int(counter) - Int(previous) + 15) % 16) packets lost"
                ))
        }
        stream.continuity = counter
        var data = payload
        if unitStart {
            if stream.firstRandomAccess == nil { stream.firstRandomAccess = randomAccess }
            if let headerEnd = pesHeader(stream, payload..<end, path: path) {
                data = headerEnd
                stream.inPES = true
            } else {
                stream.inPES = false
            }
        }
        if stream.inPES {
            stream.bytes += Int64(end - data)
            stream.audio?.feed(bytes, data..<end)
            stream.nal?.feed(bytes, data..<end)
        } else {
            stream.orphanBytes += Int64(end - data)
        }
    }

    /// Reads a PES header; returns where its payload starts, or nil (with a warning) when it is malformed.
    private mutating func pesHeader(_ stream: Stream, _ range: Range<Int>, path: String) -> Int? {
        let start = range.lowerBound
        guard range.count >= 9, bytes[start] == 0, bytes[start + 1] == 0, bytes[start + 2] == 1 else {
            warnings.add(
                MediaTimingError(
                    .pesHeader, offset: start, path: path,
                    "payload_unit_start_indicator is set but no PES start code follows"))
            return nil
        }
        let streamID = bytes[start + 3]
        // Streams without the optional PES header (§2.4.3.7): padding, private_stream_2, ECM, EMM, …
        if [0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xF2, 0xF8, 0xFF].contains(streamID) { return start + 6 }
        let flags = bytes[start + 7]
        let headerEnd = start + 9 + Int(bytes[start + 8])
        guard headerEnd <= range.upperBound else {
            warnings.add(
                MediaTimingError(
                    .pesHeader, offset: start, path: path,
                    "PES_header_data_length \(bytes[start + 8]) runs past the packet; the PES packet is skipped"))
            return nil
        }
        let hasPTS = flags & 0x80 != 0
        let hasDTS = flags & 0xC0 == 0xC0
        stream.pesCount += 1
        guard hasPTS, start + 14 + (hasDTS ? 5 : 0) <= headerEnd else { return headerEnd }
        if stream.unwrapper.last == nil, let firstTimestamp {
            stream.unwrapper = TimestampUnwrapper(reference: firstTimestamp)
        }
        let pts = stream.unwrapper.unwrap(Self.timestamp(bytes, start + 9))
        var dts = pts
        if hasDTS {
            var unwrapper = TimestampUnwrapper(reference: pts)
            dts = unwrapper.unwrap(Self.timestamp(bytes, start + 14))
        }
        if firstTimestamp == nil { firstTimestamp = dts }
        if stream.firstDecode == nil {
            stream.firstDecode = dts
            stream.firstPresentation = pts
        }
        stream.minPresentation = min(stream.minPresentation ?? pts, pts)
        stream.maxPresentation = max(stream.maxPresentation ?? pts, pts)
        stream.lastPESPresentation = pts
        if let audio = stream.audio { stream.samplesAtLastPES = audio.samples }
        if stream.type.kind == .video { stream.presentations.append(pts) }
        return headerEnd
    }

    /// A 33-bit PTS or DTS from its five bytes (§2.4.3.7: 3 + 15 + 15 bits with marker bits).
    static func timestamp(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        UInt64((bytes[offset] >> 1) & 0x07) << 30 | UInt64(bytes[offset + 1]) << 22 | UInt64(bytes[offset + 2] >> 1)
            << 15
            | UInt64(bytes[offset + 3]) << 7 | UInt64(bytes[offset + 4] >> 1)
    }

    /// Gathers a PSI section over packets and reads it when complete.
    private mutating func section(
        _ pid: UInt16, unitStart: Bool, _ range: Range<Int>, path: String
    )
        throws(MediaTimingError)
    {
        var buffer: [UInt8]
        if unitStart {
            let pointer = Int(bytes[range.lowerBound])
            let begin = range.lowerBound + 1 + pointer
            guard begin < range.upperBound else {
                throw MediaTimingError(
                    .programTable, offset: range.lowerBound, path: path, "pointer_field \(pointer) runs past the packet"
                )
            }
            buffer = Array(bytes[begin..<range.upperBound])
        } else {
            guard let pending = sections[pid] else { return }
            buffer = pending + bytes[range]
        }
        guard buffer.count >= 3 else {
            sections[pid] = buffer
            return
        }
        let length = Int(buffer[1] & 0x0F) << 8 | Int(buffer[2])
        guard length <= 1021, length >= 9 else {
            throw MediaTimingError(
                .programTable, offset: range.lowerBound, path: path, "section_length \(length) is outside 9…1021")
        }
        guard buffer.count >= 3 + length else {
            sections[pid] = buffer
            return
        }
        sections[pid] = nil
        let table = Array(buffer[0..<(3 + length)])
        if pid == 0 {
            try programAssociation(table, offset: range.lowerBound, path: path)
        } else {
            try programMap(table, offset: range.lowerBound, path: path)
        }
    }

    /// Reads the PAT (§2.4.4.3): the first program's PMT PID.
    private mutating func programAssociation(_ table: [UInt8], offset: Int, path: String) throws(MediaTimingError) {
        guard table[0] == 0x00 else {
            throw MediaTimingError(
                .programTable, offset: offset, path: path, "PID 0 carries table_id \(table[0]), not a PAT (0)")
        }
        guard programMapPID == nil else { return }
        var position = 8
        while position + 4 <= table.count - 4 {
            let program = UInt16(table[position]) << 8 | UInt16(table[position + 1])
            let pid = UInt16(table[position + 2] & 0x1F) << 8 | UInt16(table[position + 3])
            position += 4
            if program != 0 {
                programMapPID = pid
                return
            }
        }
        throw MediaTimingError(.programTable, offset: offset, path: path, "the PAT lists no program")
    }

    /// Reads the PMT (§2.4.4.8): the elementary streams, their types and PIDs.
    private mutating func programMap(_ table: [UInt8], offset: Int, path: String) throws(MediaTimingError) {
        guard table[0] == 0x02 else {
            throw MediaTimingError(
                .programTable, offset: offset, path: path, "the PMT PID carries table_id \(table[0]), not a PMT (2)")
        }
        guard !sawPMT else { return }
        sawPMT = true
        let infoLength = Int(table[10] & 0x0F) << 8 | Int(table[11])
        var position = 12 + infoLength
        let end = table.count - 4  // CRC_32
        while position + 5 <= end {
            let type = table[position]
            let pid = UInt16(table[position + 1] & 0x1F) << 8 | UInt16(table[position + 2])
            let infoEnd = position + 5 + (Int(table[position + 3] & 0x0F) << 8 | Int(table[position + 4]))
            guard infoEnd <= end else {
                throw MediaTimingError(
                    .programTable, offset: offset, path: path,
                    "the ES_info of PID \(Self.hex(pid)) runs past the PMT section")
            }
            var descriptors: [UInt8: ArraySlice<UInt8>] = [:]
            var cursor = position + 5
            while cursor + 2 <= infoEnd {
                let length = Int(table[cursor + 1])
                guard cursor + 2 + length <= infoEnd else { break }
                descriptors[table[cursor]] = table[(cursor + 2)..<(cursor + 2 + length)]
                cursor += 2 + length
            }
            position = infoEnd
            guard streams[pid] == nil, pid != 0, pid != programMapPID else { continue }
            streams[pid] = Stream(pid: pid, streamType: type, type: StreamType.of(type, descriptors: descriptors))
            order.append(pid)
        }
    }

    /// The timing of a stream once every packet is read.
    private func timing(of stream: Stream) -> TrackTiming {
        let scale: UInt32 = 90_000
        let start = stream.minPresentation ?? 0
        var durationTicks: Int64 = 0
        var samples = stream.pesCount
        var keyFrame: Bool?
        var codec = stream.type.codec
        var sampleRate: Int?
        if let audio = stream.audio, let header = audio.first {
            samples = audio.frames
            sampleRate = header.sampleRate
            codec = header.codec
            keyFrame = true
            let tail = (audio.samples - stream.samplesAtLastPES) * 90_000 / Int64(header.sampleRate)
            if let last = stream.lastPESPresentation, let first = stream.firstPresentation {
                durationTicks = last - first + tail
            } else {
                durationTicks = audio.samples * 90_000 / Int64(header.sampleRate)
            }
        } else if let maximum = stream.maxPresentation {
            durationTicks = maximum - start + Self.frameDuration(stream.presentations)
        }
        if let nal = stream.nal {
            codec = nal.codec ?? codec
            keyFrame = nal.isKeyFrame ?? (stream.firstRandomAccess == true ? true : nil)
            if stream.pesCount == 0 { keyFrame = nil }
        }
        return TrackTiming(
            id: UInt32(stream.pid), kind: stream.type.kind, codec: codec, streamType: stream.streamType,
            decodeStart: TimescaledTime(value: stream.firstDecode ?? 0, timescale: scale),
            presentationStart: TimescaledTime(value: start, timescale: scale),
            duration: TimescaledTime(value: durationTicks, timescale: scale), byteCount: Int(clamping: stream.bytes),
            sampleCount: Int(clamping: samples), startsWithKeyFrame: keyFrame, sampleRate: sampleRate)
    }

    /// The most frequent gap between consecutive presentation times (one frame), or 0 with fewer than two.
    static func frameDuration(_ presentations: [Int64]) -> Int64 {
        let sorted = presentations.sorted()
        var counts: [Int64: Int] = [:]
        for (previous, next) in zip(sorted, sorted.dropFirst()) where next > previous {
            counts[next - previous, default: 0] += 1
        }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? 0
    }
}
