/// Finds the first VCL NAL unit (a coded slice) of an H.264 or HEVC Annex B byte stream that arrives
/// in pieces, to tell whether an access unit is a key frame, and the codec of its first sequence
/// parameter set.
///
/// H.264 (ITU-T H.264 Table 7-1): slice NAL unit types 1–5, 5 being "coded slice of an IDR picture".
/// HEVC (ITU-T H.265 Table 7-1): VCL types 0–31, IRAP pictures (BLA, IDR, CRA) being 16–23.
struct NALUnitScanner {
    /// Whether the stream is HEVC (else H.264).
    let isHEVC: Bool
    /// The first VCL NAL unit's type, once found.
    private(set) var firstSliceType: UInt8?
    private var zeros = 0
    private var atHeader = false
    /// The first bytes of the first sequence parameter set, emulation prevention bytes removed: for
    /// H.264 profile_idc, the constraint flags and level_idc; for HEVC the second NAL header byte, the
    /// SPS's first byte and the 12-byte general profile_tier_level.
    private var parameterSet: [UInt8] = []
    private var inParameterSet = false
    private var parameterSetZeros = 0

    /// How many bytes of the sequence parameter set give the codec.
    private var parameterSetLength: Int { isHEVC ? 14 : 3 }

    /// The codec of the first sequence parameter set as HLS `CODECS` writes it: `avc1.PPCCLL` (ITU-T
    /// H.264 §7.3.2.1.1) or `hvc1.…` (ITU-T H.265 §7.3.3, ISO/IEC 14496-15 Annex E); nil before one is seen.
    var codec: String? {
        guard parameterSet.count == parameterSetLength else { return nil }
        guard isHEVC else { return "avc1." + parameterSet.map { SampleEntryParser.hex($0) }.joined() }
        let compatibility = parameterSet[3..<7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return SampleEntryParser.hevcCodec(
            "hvc1", first: parameterSet[2], compatibility: compatibility, constraints: Array(parameterSet[7..<13]),
            level: parameterSet[13])
    }

    init(isHEVC: Bool) { self.isHEVC = isHEVC }

    /// Whether the first slice is a key frame (IDR, or IRAP for HEVC); nil before one is found.
    var isKeyFrame: Bool? {
        guard let type = firstSliceType else { return nil }
        return isHEVC ? (16...23).contains(type) : type == 5
    }

    /// Whether more bytes can tell more: no slice yet, or (H.264) no sequence parameter set yet.
    var isLooking: Bool { firstSliceType == nil || parameterSet.count < parameterSetLength }

    /// Feeds `bytes[range]`; once a slice and (H.264) a sequence parameter set are found, returns at once.
    mutating func feed(_ bytes: [UInt8], _ range: Range<Int>) {
        guard isLooking else { return }
        for index in range {
            let byte = bytes[index]
            if inParameterSet {
                // An emulation_prevention_three_byte follows two zero bytes (H.264 §7.4.1).
                if byte == 3 && parameterSetZeros >= 2 {
                    parameterSetZeros = 0
                } else {
                    parameterSet.append(byte)
                    parameterSetZeros = byte == 0 ? parameterSetZeros + 1 : 0
                }
                inParameterSet = parameterSet.count < parameterSetLength
            }
            if atHeader {
                atHeader = false
                let type = isHEVC ? (byte >> 1) & 0x3F : byte & 0x1F
                if type == (isHEVC ? 33 : 7), parameterSet.isEmpty { inParameterSet = true }
                if firstSliceType == nil, isHEVC ? type <= 31 : (1...5).contains(type) {
                    firstSliceType = type
                    guard isLooking else { return }
                }
            }
            if byte == 0 {
                zeros += 1
            } else {
                atHeader = byte == 1 && zeros >= 2
                zeros = 0
            }
        }
    }
}
