/// A `splice_info_section()`: one SCTE 35 cue message, decoded from and encoded to its exact bytes.
///
/// ANSI/SCTE 35 §9.6: "The splice_info_section shall be carried in transport packets whose PID shall be
/// identified in the program's PMT"; in HLS it travels as hex (`SCTE35-OUT=0xFC…`) or base64
/// (`#EXT-OATCLS-SCTE35:/DA…`). Decoding checks table_id 0xFC, every length and the CRC_32; encoding
/// writes the lengths and the CRC, so `try SpliceInfoSection.decode(bytes).encode() == bytes`.
public struct SpliceInfoSection: Hashable, Sendable {
    /// table_id of every splice_info_section.
    public static let tableID: UInt8 = 0xFC
    /// The largest section_length (a section is at most 4096 bytes).
    public static let maximumSectionLength = 4093

    /// section_syntax_indicator (0 in valid sections).
    public var sectionSyntaxIndicator: Bool
    /// private_indicator (0 in valid sections).
    public var privateIndicator: Bool
    /// sap_type (2 bits; reserved before SCTE 35 2019, where all ones means "not specified").
    public var sapType: UInt8
    /// protocol_version (0).
    public var protocolVersion: UInt8
    /// encryption_algorithm (6 bits): 0 none, 1 DES ECB, 2 DES CBC, 3 triple DES, 32–63 private.
    public var encryptionAlgorithm: UInt8
    /// pts_adjustment (33 bits of 90 kHz ticks), added to every pts_time of the section.
    public var ptsAdjustment: UInt64
    /// cw_index: the control word (key) for decryption.
    public var cwIndex: UInt8
    /// tier (12 bits): an authorization tier; 0xFFF for none.
    public var tier: UInt16
    /// The command and descriptors, or the encrypted bytes (encrypted_packet 1).
    public var payload: Payload

    /// The clear or encrypted part after splice_command_length.
    public enum Payload: Hashable, Sendable {
        /// encrypted_packet 0.
        case clear(SpliceContent)
        /// encrypted_packet 1.
        case encrypted(EncryptedPayload)
    }

    /// A section with every header field set to the defaults of an unencrypted cue.
    public init(
        command: SpliceCommand, descriptors: [SpliceDescriptor] = [], ptsAdjustment: UInt64 = 0, tier: UInt16 = 0xFFF,
        cwIndex: UInt8 = 0xFF, sapType: UInt8 = 3
    ) {
        self.init(
            payload: .clear(SpliceContent(command: command, descriptors: descriptors)), ptsAdjustment: ptsAdjustment,
            tier: tier, cwIndex: cwIndex, sapType: sapType)
    }

    /// A section with every field given.
    public init(
        payload: Payload, ptsAdjustment: UInt64 = 0, tier: UInt16 = 0xFFF, cwIndex: UInt8 = 0xFF, sapType: UInt8 = 3,
        protocolVersion: UInt8 = 0, encryptionAlgorithm: UInt8 = 0, sectionSyntaxIndicator: Bool = false,
        privateIndicator: Bool = false
    ) {
        self.payload = payload
        self.ptsAdjustment = ptsAdjustment
        self.tier = tier
        self.cwIndex = cwIndex
        self.sapType = sapType
        self.protocolVersion = protocolVersion
        self.encryptionAlgorithm = encryptionAlgorithm
        self.sectionSyntaxIndicator = sectionSyntaxIndicator
        self.privateIndicator = privateIndicator
    }

    /// encrypted_packet.
    public var encryptedPacket: Bool {
        if case .encrypted = payload { return true }
        return false
    }

    /// The splice command; `nil` when encrypted.
    public var command: SpliceCommand? {
        if case .clear(let content) = payload { return content.command }
        return nil
    }

    /// The splice descriptors; empty when encrypted.
    public var descriptors: [SpliceDescriptor] {
        if case .clear(let content) = payload { return content.descriptors }
        return []
    }

    /// The segmentation descriptors, in order.
    public var segmentationDescriptors: [SegmentationDescriptor] { descriptors.compactMap(\.segmentation) }
}

extension SpliceInfoSection {
    /// Decodes one section that fills `bytes` exactly.
    public static func decode(_ bytes: [UInt8]) throws(SCTE35Error) -> SpliceInfoSection {
        try SectionDecoder.decode(bytes)
    }

    /// Decodes a section from hex (`0xFC…` or `FC…`) or base64 (`/DA…`) text.
    public static func decode(text: String) throws(SCTE35Error) -> SpliceInfoSection {
        try decode(SectionText.bytes(text: text))
    }

    /// Decodes a section from hex text, with or without `0x`.
    public static func decode(hex: String) throws(SCTE35Error) -> SpliceInfoSection {
        try decode(SectionText.bytes(hex: hex))
    }

    /// Decodes a section from base64 text.
    public static func decode(base64: String) throws(SCTE35Error) -> SpliceInfoSection {
        try decode(SectionText.bytes(base64: base64))
    }

    /// The section's bytes, with section_length, the inner lengths and CRC_32 computed.
    public func encode() throws(SCTE35Error) -> [UInt8] { try SectionEncoder.encode(self) }

    /// The section as hex: `0xFC30…` by default.
    public func encodedHex(prefix: Bool = true, uppercase: Bool = true) throws(SCTE35Error) -> String {
        SectionText.hex(try encode(), prefix: prefix, uppercase: uppercase)
    }

    /// The section as base64: `/DA…`.
    public func encodedBase64() throws(SCTE35Error) -> String { SectionText.base64(try encode()) }
}
