/// The clear part of a section after splice_command_length: the command, the descriptor loop and the
/// alignment stuffing.
public struct SpliceContent: Hashable, Sendable {
    /// The splice command.
    public var command: SpliceCommand
    /// The splice descriptors, in order.
    public var descriptors: [SpliceDescriptor]
    /// Bytes inside splice_command_length after the command's last field (kept for later versions).
    public var commandTrailingBytes: [UInt8]
    /// Whether splice_command_length is the legacy 0xFFF ("the length is not given", SCTE 35 before 2007).
    public var legacyCommandLength: Bool
    /// alignment_stuffing: bytes between the descriptor loop and the CRC.
    public var alignmentStuffing: [UInt8]

    /// A command with its descriptors.
    public init(
        command: SpliceCommand, descriptors: [SpliceDescriptor] = [], commandTrailingBytes: [UInt8] = [],
        legacyCommandLength: Bool = false, alignmentStuffing: [UInt8] = []
    ) {
        self.command = command
        self.descriptors = descriptors
        self.commandTrailingBytes = commandTrailingBytes
        self.legacyCommandLength = legacyCommandLength
        self.alignmentStuffing = alignmentStuffing
    }
}
