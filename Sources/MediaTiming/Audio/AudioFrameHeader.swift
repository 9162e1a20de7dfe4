/// The header of one audio frame of an elementary stream: ADTS (ISO/IEC 13818-7 §6.2), MPEG audio
/// layers I–III (ISO/IEC 11172-3 §2.4.2.3, 13818-3), AC-3 or E-AC-3 (ETSI TS 102 366 §4.4, E.1.2).
public struct AudioFrameHeader: Hashable, Sendable {
    /// The framing of an elementary audio stream.
    public enum Framing: String, Hashable, Sendable, Codable {
        /// AAC in ADTS frames.
        case adts
        /// MPEG-1/2/2.5 audio layers I–III (MP3 is layer III).
        case mpegAudio = "mpeg-audio"
        /// Dolby AC-3.
        case ac3 = "ac-3"
        /// Dolby E-AC-3.
        case eac3 = "ec-3"
    }

    /// The framing.
    public var framing: Framing
    /// The frame's length in bytes, header included.
    public var length: Int
    /// The number of PCM samples (per channel) the frame decodes to.
    public var samples: Int
    /// The sample rate in Hz.
    public var sampleRate: Int
    /// The channel count, when the header tells it.
    public var channelCount: Int?
    /// The codec as HLS `CODECS` writes it: `mp4a.40.2` (AAC-LC), `mp4a.40.34` (MP3), `ac-3`, `ec-3`.
    public var codec: String

    /// The most header bytes ``parse(_:at:framing:)`` reads.
    public static let maximumHeaderSize = 7

    /// The header at `offset` of `bytes`, or nil when no valid header of `framing` (any framing
    /// when nil) starts there or fewer than the header's bytes are left.
    public static func parse(_ bytes: [UInt8], at offset: Int, framing: Framing? = nil) -> AudioFrameHeader? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let b0 = bytes[offset]
        let b1 = bytes[offset + 1]
        if b0 == 0xFF, b1 & 0xF0 == 0xF0, b1 & 0x06 == 0 {
            guard framing == nil || framing == .adts else { return nil }
            return adts(bytes, offset)
        }
        if b0 == 0xFF, b1 & 0xE0 == 0xE0 {
            guard framing == nil || framing == .mpegAudio else { return nil }
            return mpegAudio(bytes, offset)
        }
        if b0 == 0x0B, b1 == 0x77 {
            guard offset + 6 <= bytes.count else { return nil }
            let bsid = bytes[offset + 5] >> 3
            if bsid <= 10 {
                guard framing == nil || framing == .ac3 else { return nil }
                return ac3(bytes, offset)
            }
            guard bsid <= 16, framing == nil || framing == .eac3 else { return nil }
            return eac3(bytes, offset)
        }
        return nil
    }

    private static func adts(_ bytes: [UInt8], _ offset: Int) -> AudioFrameHeader? {
        guard offset + 7 <= bytes.count else { return nil }
        let profile = Int(bytes[offset + 2] >> 6)
        let rateIndex = Int((bytes[offset + 2] >> 2) & 0x0F)
        let channels = Int((bytes[offset + 2] & 1) << 2 | bytes[offset + 3] >> 6)
        let length = Int(bytes[offset + 3] & 3) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5] >> 5)
        let blocks = Int(bytes[offset + 6] & 3) + 1
        let headerSize = bytes[offset + 1] & 1 == 0 ? 9 : 7
        guard rateIndex < SampleEntryParser.mpeg4SampleRates.count, length >= headerSize else { return nil }
        return AudioFrameHeader(
            framing: .adts, length: length, samples: 1024 * blocks,
            sampleRate: SampleEntryParser.mpeg4SampleRates[rateIndex], channelCount: channels == 7 ? 8 : channels,
            codec: "mp4a.40.\(profile + 1)")
    }

    /// Kbit/s of MPEG-1 layers I, II, III, then MPEG-2/2.5 layer I and layers II/III, by bitrate_index 1…14.
    private static let bitrates: [[Int]] = [
        [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
        [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
        [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    ]

    private static func mpegAudio(_ bytes: [UInt8], _ offset: Int) -> AudioFrameHeader? {
        let b1 = bytes[offset + 1]
        let b2 = bytes[offset + 2]
        let version = Int((b1 >> 3) & 3)  // 0: MPEG-2.5, 2: MPEG-2, 3: MPEG-1
        let layer = 4 - Int((b1 >> 1) & 3)  // 1, 2, 3 (4 is reserved)
        let bitrateIndex = Int(b2 >> 4)
        let rateIndex = Int((b2 >> 2) & 3)
        guard version != 1, layer <= 3, (1...14).contains(bitrateIndex), rateIndex < 3 else { return nil }
        let padding = Int((b2 >> 1) & 1)
        let isMPEG1 = version == 3
        let table = isMPEG1 ? layer - 1 : (layer == 1 ? 3 : 4)
        let bitrate = bitrates[table][bitrateIndex - 1] * 1000
        let sampleRate = [44100, 48000, 32000][rateIndex] / (isMPEG1 ? 1 : version == 2 ? 2 : 4)
        let samples = layer == 1 ? 384 : (layer == 3 && !isMPEG1 ? 576 : 1152)
        let length =
            layer == 1 ? (12 * bitrate / sampleRate + padding) * 4 : samples / 8 * bitrate / sampleRate + padding
        let channels = bytes[offset + 3] >> 6 == 3 ? 1 : 2
        return AudioFrameHeader(
            framing: .mpegAudio, length: length, samples: samples, sampleRate: sampleRate, channelCount: channels,
            codec: layer == 3 ? "mp4a.40.34" : "mp4a.6B")
    }

    /// AC-3 bitrates in kbit/s by `frmsizecod / 2`.
    private static let ac3Bitrates = [
        32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640,
    ]

    private static func ac3(_ bytes: [UInt8], _ offset: Int) -> AudioFrameHeader? {
        let code = bytes[offset + 4]
        let rateCode = Int(code >> 6)
        let sizeCode = Int(code & 0x3F)
        guard rateCode < 3, sizeCode / 2 < ac3Bitrates.count else { return nil }
        let kbps = ac3Bitrates[sizeCode / 2]
        // Frame sizes in 16-bit words: 2 per kbit/s at 48 kHz, 3 at 32 kHz, and 320/147 at 44.1 kHz
        // with one more word for odd frmsizecod.
        let words: Int =
            switch rateCode {
            case 0: kbps * 2
            case 1: kbps * 320 / 147 + (sizeCode & 1)
            default: kbps * 3
            }
        return AudioFrameHeader(
            framing: .ac3, length: words * 2, samples: 1536, sampleRate: [48000, 44100, 32000][rateCode],
            channelCount: nil, codec: "ac-3")
    }

    private static func eac3(_ bytes: [UInt8], _ offset: Int) -> AudioFrameHeader? {
        let size = (Int(bytes[offset + 2] & 0x07) << 8 | Int(bytes[offset + 3]) + 1) * 2
        let rateCode = Int(bytes[offset + 4] >> 6)
        let blocksCode = Int((bytes[offset + 4] >> 4) & 3)
        let sampleRate: Int
        let blocks: Int
        if rateCode == 3 {
            guard blocksCode < 3 else { return nil }
            sampleRate = [24000, 22050, 16000][blocksCode]
            blocks = 6
        } else {
            sampleRate = [48000, 44100, 32000][rateCode]
            blocks = [1, 2, 3, 6][blocksCode]
        }
        guard size >= 6 else { return nil }
        return AudioFrameHeader(
            framing: .eac3, length: size, samples: 256 * blocks, sampleRate: sampleRate, channelCount: nil,
            codec: "ec-3")
    }
}
