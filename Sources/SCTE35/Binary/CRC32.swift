/// The MPEG-2 CRC-32 that SCTE 35 sections end with.
///
/// ANSI/SCTE 35 §9.1: "CRC_32 … contains the CRC value that gives a zero output of the registers in the
/// decoder defined in [MPEG Systems] Annex A after processing the entire splice_info_section": polynomial
/// 0x04C11DB7, initial value 0xFFFFFFFF, no reflection, no final XOR.
public enum MPEG2CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    /// The CRC-32 of `bytes`; over a whole section including its CRC_32 field it is zero.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc << 8) ^ table[Int(((crc >> 24) ^ UInt32(byte)) & 0xFF)] }
        return crc
    }
}
