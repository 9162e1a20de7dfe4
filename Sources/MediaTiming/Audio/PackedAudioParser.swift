/// Reads a packed audio segment (RFC 8216 §3.4): ID3 tags and ADTS, MPEG audio, AC-3 or E-AC-3
/// frames, into the timing of its one audio track.
///
/// The start time is the ID3 `com.apple.streaming.transportStreamTimestamp`; the duration is the
/// frames' samples over the sample rate. Bytes between frames that are not a header are skipped
/// with a warning. A leading Xing/Info frame of MP3 (an encoder's metadata, no audio) is not counted.
enum PackedAudioParser {
    /// Reads `bytes`.
    static func parse(_ bytes: [UInt8]) throws(MediaTimingError) -> SegmentTiming {
        var warnings = WarningCollector()
        var timestamp: UInt64?
        var first: AudioFrameHeader?
        var frames: Int64 = 0
        var samples: Int64 = 0
        var frameBytes: Int64 = 0
        var position = 0
        var skipStart: Int?
        func endSkip(at end: Int) {
            guard let start = skipStart else { return }
            warnings.add(
                MediaTimingError(
                    .skippedBytes, offset: start, path: "packed audio",
                    "\(end - start) bytes are neither an audio frame nor an ID3 tag"))
            skipStart = nil
        }
        while position < bytes.count {
            if ID3Tag.starts(bytes, at: position) {
                endSkip(at: position)
                let tag = try ID3Tag.parse(bytes, at: position)
                if timestamp == nil { timestamp = tag.transportStreamTimestamp }
                position += tag.length
                continue
            }
            guard let header = AudioFrameHeader.parse(bytes, at: position, framing: first?.framing) else {
                if skipStart == nil, bytes.count - position < AudioFrameHeader.maximumHeaderSize,
                    bytes[position] == 0xFF || bytes[position] == 0x0B
                {
                    warnings.add(
                        MediaTimingError(
                            .truncated, offset: position, path: "packed audio",
                            "the input ends inside a frame header (\(bytes.count - position) bytes left)"))
                    position = bytes.count
                    break
                }
                if skipStart == nil { skipStart = position }
                position += 1
                continue
            }
            endSkip(at: position)
            guard position + header.length <= bytes.count else {
                warnings.add(
                    MediaTimingError(
                        .truncated, offset: position, path: "packed audio",
                        "the last \(header.framing.rawValue) frame declares \(header.length) bytes but \(bytes.count - position) are left; it is not counted"
                    ))
                break
            }
            if first == nil, header.framing == .mpegAudio, isXingFrame(bytes, at: position, header) {
                position += header.length
                continue
            }
            if first == nil { first = header }
            frames += 1
            samples += Int64(header.samples)
            frameBytes += Int64(header.length)
            position += header.length
        }
        endSkip(at: position)
        guard let first else {
            throw MediaTimingError(.audioFrame, offset: 0, path: "packed audio", "the segment holds no audio frame")
        }
        let start: TimescaledTime
        if let timestamp {
            start = TimescaledTime(value: Int64(timestamp), timescale: 90_000)
        } else {
            start = TimescaledTime(value: 0, timescale: 90_000)
            warnings.add(
                MediaTimingError(
                    .missingTimestamp, offset: 0, path: "packed audio",
                    "RFC 8216 §3.4: \"Each Packed Audio Segment MUST signal the timestamp of its first sample with an ID3 Private frame (PRIV) tag\"; there is none, so the start is taken as 0"
                ))
        }
        let track = TrackTiming(
            id: 0, kind: .audio, codec: first.codec, decodeStart: start, presentationStart: start,
            duration: TimescaledTime(value: samples, timescale: UInt32(first.sampleRate)), byteCount: Int(frameBytes),
            sampleCount: Int(frames), startsWithKeyFrame: true, sampleRate: first.sampleRate)
        return SegmentTiming(
            format: .packedAudio, byteCount: bytes.count, tracks: [track],
            id3Timestamp: timestamp.map { TimescaledTime(value: Int64($0), timescale: 90_000) },
            warnings: warnings.finished())
    }

    /// Whether the MPEG audio frame at `offset` is a Xing or Info frame (metadata an encoder writes in
    /// place of the first frame's audio, after the side information).
    static func isXingFrame(_ bytes: [UInt8], at offset: Int, _ header: AudioFrameHeader) -> Bool {
        let isMPEG1 = (bytes[offset + 1] >> 3) & 3 == 3
        let mono = header.channelCount == 1
        let sideInfo = isMPEG1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        let tag = offset + 4 + sideInfo + (bytes[offset + 1] & 1 == 0 ? 2 : 0)
        guard tag + 4 <= bytes.count, tag + 4 <= offset + header.length else { return false }
        let word = bytes[tag..<(tag + 4)]
        return word.elementsEqual("Xing".utf8) || word.elementsEqual("Info".utf8)
    }
}
