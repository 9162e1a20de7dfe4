/// The encrypted part of a section (encrypted_packet 1), kept as bytes.
///
/// ANSI/SCTE 35 §11: with encryption, the bytes from splice_command_type up to and including E_CRC_32 are
/// encrypted; splice_command_length stays in the clear.
public struct EncryptedPayload: Hashable, Sendable {
    /// splice_command_length as sent.
    public var spliceCommandLength: UInt16
    /// The encrypted bytes: splice_command_type through E_CRC_32 (at least the 4 bytes of E_CRC_32).
    public var bytes: [UInt8]

    /// An encrypted payload.
    public init(spliceCommandLength: UInt16, bytes: [UInt8]) {
        self.spliceCommandLength = spliceCommandLength
        self.bytes = bytes
    }

    /// E_CRC_32, the last four bytes (still encrypted).
    public var encryptedCRC32: UInt32 { bytes.suffix(4).reduce(0) { $0 << 8 | UInt32($1) } }
}
