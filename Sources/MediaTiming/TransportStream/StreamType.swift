/// What an MPEG-TS `stream_type` (ISO/IEC 13818-1 Table 2-34, and the HLS SAMPLE-AES types) carries.
struct StreamType {
    /// The kind of track.
    var kind: TrackKind
    /// The codec family, when known (the precise codec string comes from the stream itself).
    var codec: String?
    /// The audio framing, for audio streams this reader can count frames of.
    var audioFraming: AudioFrameHeader.Framing?
    /// Whether the stream is H.264 or HEVC video whose NAL units tell key frames.
    var videoCoding: VideoCoding?

    /// A video coding whose NAL units are scanned.
    enum VideoCoding { case h264, hevc }

    /// The type of `streamType` with the PMT descriptors `descriptors` (for private data, 0x06).
    static func of(_ streamType: UInt8, descriptors: [UInt8: ArraySlice<UInt8>]) -> StreamType {
        switch streamType {
        case 0x1B, 0xDB: StreamType(kind: .video, codec: "avc1", videoCoding: .h264)
        case 0x24: StreamType(kind: .video, codec: "hvc1", videoCoding: .hevc)
        case 0x01, 0x02: StreamType(kind: .video, codec: "mp4v")
        case 0x0F, 0xCF: StreamType(kind: .audio, codec: "mp4a.40.2", audioFraming: .adts)
        case 0x03, 0x04: StreamType(kind: .audio, codec: "mp4a.40.34", audioFraming: .mpegAudio)
        case 0x81, 0xC1: StreamType(kind: .audio, codec: "ac-3", audioFraming: .ac3)
        case 0x87, 0xC2: StreamType(kind: .audio, codec: "ec-3", audioFraming: .eac3)
        case 0x15: StreamType(kind: .metadata, codec: nil)
        case 0x06 where descriptors[0x6A] != nil: StreamType(kind: .audio, codec: "ac-3", audioFraming: .ac3)
        case 0x06 where descriptors[0x7A] != nil: StreamType(kind: .audio, codec: "ec-3", audioFraming: .eac3)
        case 0x06 where descriptors[0x59] != nil || descriptors[0x56] != nil: StreamType(kind: .subtitles, codec: nil)
        default: StreamType(kind: .other, codec: nil)
        }
    }
}
