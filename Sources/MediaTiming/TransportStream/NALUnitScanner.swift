/// Finds the first VCL NAL unit (a coded slice), and the codec of the first sequence parameter set, of an H.264 or HEVC Annex B byte stream that arrives
/// in pieces, to tell whether an access unit is a key frame.
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
    /// The first bytes of an H.264 sequence parameter set: profile_idc, the constraint flags, level_idc.
    private var parameterSet: [UInt8] = []
    private var inParameterSet = false

    /// `avc1.PPCCLL` from the first H.264 sequence parameter set (ITU-T H.264 §7.3.2.1.1), as HLS
    /// `CODECS` writes it; nil before one is seen, and for HEVC.
    var codec: String? {
        guard !isHEVC, parameterSet.count == 3 else { return nil }
        return "avc1." + parameterSet.map { SampleEntryParser.hex($0) }.joined()
    }

    init(isHEVC: Bool) { self.isHEVC = isHEVC }

    /// Whether the first slice is a key frame (IDR, or IRAP for HEVC); nil before one is found.
    var isKeyFrame: Bool? {
        guard let type = firstSliceType else { return nil }
        return isHEVC ? (16...23).contains(type) : type == 5
    }

    /// Whether more bytes can tell more: no slice yet, or (H.264) no sequence parameter set yet.
    var isLooking: Bool { firstSliceType == nil || (!isHEVC && parameterSet.count < 3) }

    /// Feeds `bytes[range]`; once a slice and (H.264) a sequence parameter set are found, returns at once.
    mutating func feed(_ bytes: [UInt8], _ range: Range<Int>) {
        guard isLooking else { return }
        for index in range {
            let byte = bytes[index]
            if inParameterSet {
                parameterSet.append(byte)
                inParameterSet = parameterSet.count < 3
            }
            if atHeader {
                atHeader = false
                let type = isHEVC ? (byte >> 1) & 0x3F : byte & 0x1F
                if !isHEVC, type == 7, parameterSet.isEmpty { inParameterSet = true }
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
