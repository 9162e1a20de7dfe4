/// The typed reading of a ``SegmentationUPID``'s bytes, by segmentation_upid_type.
public enum UPIDValue: Hashable, Sendable {
    /// Type 0x00, no UPID.
    case none
    /// A text UPID: User Defined (0x01), ISCI (0x02), Ad-ID (0x03), TID (0x07), ADI (0x09), ADS Information
    /// (0x0E), URI (0x0F), SCR (0x11); only when the bytes are printable UTF-8.
    case text(String)
    /// A UMID (0x04, 32 bytes), as eight groups of eight hex digits joined by `.`.
    case umid(String)
    /// An ISAN (0x05 with 8 bytes, 0x06 with 12), as groups of four hex digits joined by `-` (no check
    /// characters).
    case isan(String)
    /// A TI airing ID (0x08, 8 bytes).
    case airingID(UInt64)
    /// An EIDR (0x0A, 12 bytes: a 16-bit sub-prefix and an 80-bit suffix), as `10.<prefix>/XXXX-XXXX-XXXX-XXXX-XXXX`
    /// (no check character).
    case eidr(String)
    /// An ATSC Content Identifier (0x0B).
    case atsc(ATSCContentIdentifier)
    /// An MPU (0x0C): format_identifier and private data.
    case mpu(formatIdentifier: UInt32, privateData: [UInt8])
    /// A MID (0x0D): the UPIDs it holds.
    case mid([SegmentationUPID])
    /// A UUID (0x10, 16 bytes), lowercase `8-4-4-4-12`.
    case uuid(String)
    /// Bytes of a reserved type, or bytes without the form their type has.
    case bytes([UInt8])

    /// An ATSC A/57B content identifier.
    public struct ATSCContentIdentifier: Hashable, Sendable {
        /// TSID.
        public var tsid: UInt16
        /// The 2 reserved bits.
        public var reservedBits: UInt8
        /// end_of_day (5 bits): the hour the identifier stops being unique.
        public var endOfDay: UInt8
        /// unique_for (9 bits): days the identifier stays unique.
        public var uniqueFor: UInt16
        /// content_id.
        public var contentID: [UInt8]

        /// An ATSC content identifier.
        public init(tsid: UInt16, reservedBits: UInt8 = 3, endOfDay: UInt8, uniqueFor: UInt16, contentID: [UInt8]) {
            self.tsid = tsid
            self.reservedBits = reservedBits
            self.endOfDay = endOfDay
            self.uniqueFor = uniqueFor
            self.contentID = contentID
        }
    }

    /// The reading of `bytes` as a UPID of `type`.
    init(type: UInt8, bytes: [UInt8]) {
        func hex(_ bytes: ArraySlice<UInt8>) -> String {
            SectionText.hex(Array(bytes), prefix: false, uppercase: false)
        }
        func groups(_ text: String, of size: Int, separator: String) -> String {
            let characters = Array(text)
            return stride(from: 0, to: characters.count, by: size).map {
                String(characters[$0..<Swift.min($0 + size, characters.count)])
            }.joined(separator: separator)
        }
        switch (type, bytes.count) {
        case (0x00, 0): self = .none
        case (0x01, _), (0x02, _), (0x03, _), (0x07, _), (0x09, _), (0x0E, _), (0x0F, _), (0x11, _):
            self = Self.printable(bytes).map(Self.text) ?? .bytes(bytes)
        case (0x04, 32): self = .umid(groups(hex(bytes[...]), of: 8, separator: "."))
        case (0x05, 8), (0x06, 12): self = .isan(groups(hex(bytes[...]).uppercased(), of: 4, separator: "-"))
        case (0x08, 8): self = .airingID(bytes.reduce(0) { $0 << 8 | UInt64($1) })
        case (0x0A, 12):
            let prefix = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            self = .eidr("10.\(prefix)/" + groups(hex(bytes[2...]).uppercased(), of: 4, separator: "-"))
        case (0x0B, 4...):
            let packed = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
            self = .atsc(
                ATSCContentIdentifier(
                    tsid: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), reservedBits: UInt8(packed >> 14),
                    endOfDay: UInt8(packed >> 9 & 0x1F), uniqueFor: packed & 0x1FF, contentID: Array(bytes[4...])))
        case (0x0C, 4...):
            self = .mpu(
                formatIdentifier: bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) }, privateData: Array(bytes[4...]))
        case (0x0D, _):
            if case .success(let entries) = SegmentationUPID.midEntries(bytes) {
                self = .mid(entries)
            } else {
                self = .bytes(bytes)
            }
        case (0x10, 16):
            let digits = hex(bytes[...])
            let cuts = [0, 8, 12, 16, 20, 32]
            self = .uuid(
                zip(cuts, cuts.dropFirst()).map { start, end in
                    String(
                        digits[
                            digits.index(
                                digits.startIndex, offsetBy: start)..<digits.index(digits.startIndex, offsetBy: end)])
                }.joined(separator: "-"))
        default: self = .bytes(bytes)
        }
    }

    /// The bytes as text when they are UTF-8 without control characters.
    static func printable(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            return nil
        }
        return text
    }

    var json: JSONNode {
        switch self {
        case .none: .string("")
        case .text(let text), .umid(let text), .isan(let text), .eidr(let text), .uuid(let text): .string(text)
        case .airingID(let value): .string("0x" + String(value, radix: 16))
        case .atsc(let atsc):
            .object([
                ("tsid", .uint(atsc.tsid)), ("end_of_day", .uint(atsc.endOfDay)), ("unique_for", .uint(atsc.uniqueFor)),
                (
                    "content_id",
                    Self.printable(atsc.contentID).map(JSONNode.string)
                        ?? .string(SectionText.hex(atsc.contentID, prefix: false, uppercase: false))
                ),
            ])
        case .mpu(let identifier, let data):
            .object([
                ("format_identifier", .uint(identifier)),
                ("format_identifier_text", FourCharacterCode.text(identifier).map(JSONNode.string) ?? .null),
                ("private_data", .string(SectionText.hex(data, prefix: false, uppercase: false))),
            ])
        case .mid(let entries): .array(entries.map { .object($0.jsonFields) })
        case .bytes(let bytes): .string(SectionText.hex(bytes, prefix: false, uppercase: false))
        }
    }
}
