/// A segmentation_upid: the unique program identifier a segmentation descriptor carries, as its type and
/// bytes, with a typed reading (``value``).
///
/// ANSI/SCTE 35 §10.3.3.1 Table 22 defines the types; the bytes are kept exactly as sent, so writing them
/// back is lossless whatever they hold.
public struct SegmentationUPID: Hashable, Sendable {
    /// segmentation_upid_type.
    public var type: UInt8
    /// The segmentation_upid bytes (segmentation_upid_length of them, at most 255).
    public var bytes: [UInt8]

    /// A UPID of `type` with `bytes`.
    public init(type: UInt8, bytes: [UInt8]) {
        self.type = type
        self.bytes = bytes
    }

    /// No UPID (type 0x00, length 0).
    public static let notUsed = Self(type: 0x00, bytes: [])

    /// An Ad-ID (type 0x03), 12 characters such as `ABCD0123456H`.
    public static func adID(_ text: String) -> Self { Self(type: 0x03, bytes: Array(text.utf8)) }

    /// A URI (type 0x0F), such as `urn:uuid:…`.
    public static func uri(_ text: String) -> Self { Self(type: 0x0F, bytes: Array(text.utf8)) }

    /// An ADI identifier (type 0x09), such as `PREFIX:provider.com/MOVE1234567890123456`.
    public static func adi(_ text: String) -> Self { Self(type: 0x09, bytes: Array(text.utf8)) }

    /// A MID (type 0x0D): several UPIDs in one.
    public static func mid(_ upids: [Self]) -> Self {
        Self(type: 0x0D, bytes: upids.flatMap { [$0.type, UInt8(truncatingIfNeeded: $0.bytes.count)] + $0.bytes })
    }

    /// The name of Table 22, such as `Ad-ID`; `reserved` for unassigned types.
    public var typeName: String { Self.typeNames[type] ?? "reserved" }

    private static let typeNames: [UInt8: String] = [
        0x00: "Not Used", 0x01: "User Defined", 0x02: "ISCI", 0x03: "Ad-ID", 0x04: "UMID",
        0x05: "ISAN (deprecated)", 0x06: "ISAN", 0x07: "TID", 0x08: "TI", 0x09: "ADI", 0x0A: "EIDR",
        0x0B: "ATSC Content Identifier", 0x0C: "MPU", 0x0D: "MID", 0x0E: "ADS Information", 0x0F: "URI",
        0x10: "UUID", 0x11: "SCR",
    ]

    /// The typed reading of the bytes; ``UPIDValue/bytes(_:)`` when they do not have the type's form.
    public var value: UPIDValue { UPIDValue(type: type, bytes: bytes) }

    /// The MID entries, or where and why they do not fit: each entry is a type, a length and that many bytes.
    static func midEntries(_ bytes: [UInt8]) -> Result<[Self], MIDProblem> {
        var entries: [Self] = []
        var index = 0
        while index < bytes.count {
            guard index + 2 <= bytes.count else {
                return .failure(
                    MIDProblem(offset: index, entry: entries.count, message: "a MID entry needs a type and a length"))
            }
            let length = Int(bytes[index + 1])
            guard index + 2 + length <= bytes.count else {
                return .failure(
                    MIDProblem(
                        offset: index + 1, entry: entries.count,
                        message:
                            "the MID entry's length \(length) overruns the UPID (\(bytes.count - index - 2) bytes left)"
                    ))
            }
            entries.append(Self(type: bytes[index], bytes: Array(bytes[(index + 2)..<(index + 2 + length)])))
            index += 2 + length
        }
        return .success(entries)
    }

    /// Where a MID's structure breaks.
    struct MIDProblem: Error {
        /// The offset in the UPID's bytes.
        var offset: Int
        /// The index of the entry.
        var entry: Int
        var message: String
    }

    /// The structure error of a UPID whose type requires one (MID, ATSC, MPU): its offset within the
    /// UPID's bytes, a path suffix and a message.
    func structureProblem() -> (offset: Int, path: String, message: String)? {
        switch type {
        case 0x0B where bytes.count < 4:
            return (
                0, "",
                "an ATSC Content Identifier needs at least 4 bytes (TSID, end_of_day, unique_for); it has \(bytes.count)"
            )
        case 0x0C where bytes.count < 4:
            return (0, "", "an MPU UPID needs a 4-byte format_identifier; it has \(bytes.count) bytes")
        case 0x0D:
            if case .failure(let problem) = Self.midEntries(bytes) {
                return (problem.offset, ".mid[\(problem.entry)]", problem.message)
            }
            return nil
        default: return nil
        }
    }

    var jsonFields: [(String, JSONNode)] {
        [
            ("segmentation_upid_type", .uint(type)), ("segmentation_upid_type_name", .string(typeName)),
            ("segmentation_upid_length", .uint(bytes.count)), ("segmentation_upid", value.json),
            ("segmentation_upid_bytes", .string(SectionText.hex(bytes, prefix: false, uppercase: false))),
        ]
    }
}
