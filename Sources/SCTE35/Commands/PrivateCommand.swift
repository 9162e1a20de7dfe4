/// A `private_command()` (type 0xFF): an identifier and private bytes.
///
/// ANSI/SCTE 35 §9.7.6: "identifier … a 32-bit number used to identify the owner of the command", registered
/// like an MPEG format_identifier; the private bytes fill the rest of splice_command_length.
public struct PrivateCommand: Hashable, Sendable {
    /// identifier, such as `0x43554549` ("CUEI") or a registered four-character code.
    public var identifier: UInt32
    /// private_byte.
    public var privateBytes: [UInt8]

    /// A private command.
    public init(identifier: UInt32, privateBytes: [UInt8]) {
        self.identifier = identifier
        self.privateBytes = privateBytes
    }

    /// The identifier as four ASCII characters, or `nil` when any is not printable.
    public var identifierText: String? { FourCharacterCode.text(identifier) }
}

/// Four-character codes such as descriptor identifiers.
enum FourCharacterCode {
    /// "CUEI", the identifier of the descriptors SCTE 35 defines.
    static let cuei: UInt32 = 0x4355_4549

    /// The code as text when all four bytes are printable ASCII.
    static func text(_ value: UInt32) -> String? {
        let bytes = [24, 16, 8, 0].map { UInt8(value >> UInt32($0) & 0xFF) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
