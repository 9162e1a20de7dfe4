/// Decodes a `splice_info_section()`: the header, the lengths, the CRC, then the command and descriptors.
enum SectionDecoder {
    /// The bytes before splice_command_type: table_id through splice_command_length.
    static let headerLength = 13

    static func decode(_ bytes: [UInt8]) throws(SCTE35Error) -> SpliceInfoSection {
        var reader = BitReader(bytes)
        let tableID = try reader.uint8("table_id")
        guard tableID == SpliceInfoSection.tableID else {
            throw SCTE35Error(
                .tableID, at: 0, path: "table_id", "table_id is \(hex(tableID)); a splice_info_section has 0xFC")
        }
        let syntax = try reader.flag("section_syntax_indicator")
        let privateIndicator = try reader.flag("private_indicator")
        let sapType = UInt8(try reader.bits(2, "sap_type"))
        let sectionLength = Int(try reader.bits(12, "section_length"))
        let total = 3 + sectionLength
        guard total <= bytes.count else {
            throw SCTE35Error(
                .truncated, at: 1, path: "section_length",
                "section_length \(sectionLength) needs \(total) bytes; the input has \(bytes.count)")
        }
        guard total == bytes.count else {
            throw SCTE35Error(
                .trailingBytes, at: total, path: "",
                "\(bytes.count - total) bytes follow the section (section_length \(sectionLength) ends it at byte \(total))"
            )
        }
        guard total >= headerLength + 4 else {
            throw SCTE35Error(
                .truncated, at: 1, path: "section_length",
                "section_length \(sectionLength) is too short for the header and CRC_32 (at least \(headerLength + 1))")
        }
        let crc = MPEG2CRC32.checksum(bytes)
        guard crc == 0 else {
            let stated = bytes[(total - 4)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let computed = MPEG2CRC32.checksum(bytes[..<(total - 4)])
            throw SCTE35Error(
                .crcMismatch, at: total - 4, path: "CRC_32",
                "CRC_32 is \(hex32(stated)) but the section's bytes give \(hex32(computed))")
        }
        reader.end = total - 4
        let protocolVersion = try reader.uint8("protocol_version")
        let encrypted = try reader.flag("encrypted_packet")
        let algorithm = UInt8(try reader.bits(6, "encryption_algorithm"))
        let ptsAdjustment = try reader.bits(33, "pts_adjustment")
        let cwIndex = try reader.uint8("cw_index")
        let tier = UInt16(try reader.bits(12, "tier"))
        let commandLengthOffset = reader.offset
        let commandLength = UInt16(try reader.bits(12, "splice_command_length"))
        let payload: SpliceInfoSection.Payload
        if encrypted {
            guard reader.remainingBytes >= 4 else {
                throw reader.error(
                    .truncated, "E_CRC_32", "an encrypted section needs at least the 4 bytes of E_CRC_32")
            }
            payload = .encrypted(
                EncryptedPayload(spliceCommandLength: commandLength, bytes: try reader.rest("encrypted")))
        } else {
            payload = .clear(
                try content(&reader, commandLength: Int(commandLength), commandLengthOffset: commandLengthOffset))
        }
        return SpliceInfoSection(
            payload: payload, ptsAdjustment: ptsAdjustment, tier: tier, cwIndex: cwIndex, sapType: sapType,
            protocolVersion: protocolVersion, encryptionAlgorithm: algorithm, sectionSyntaxIndicator: syntax,
            privateIndicator: privateIndicator)
    }

    /// The command, descriptor loop and stuffing; the reader's window ends before CRC_32.
    private static func content(
        _ reader: inout BitReader, commandLength: Int, commandLengthOffset: Int
    ) throws(SCTE35Error) -> SpliceContent {
        let bodyEnd = reader.end
        let commandType = try reader.uint8("splice_command_type")
        let legacy = commandLength == 0xFFF
        let command: SpliceCommand
        var trailing: [UInt8] = []
        if legacy {
            guard SpliceCommand.isKnown(commandType), commandType != 0xFF else {
                throw SCTE35Error(
                    .unknownCommand, at: commandLengthOffset, path: "splice_command_length",
                    "splice_command_length is 0xFFF (not given) and the length of command type \(hex(commandType)) cannot be found from its fields"
                )
            }
            reader.path = "splice_command"
            command = try SpliceCommand(type: commandType, reading: &reader)
        } else {
            let commandEnd = try reader.window(
                length: commandLength, field: "splice_command_length", at: commandLengthOffset, of: "the section")
            reader.end = commandEnd
            reader.path = "splice_command"
            command = try SpliceCommand(type: commandType, reading: &reader)
            trailing = try reader.rest("trailing_bytes")
            reader.end = bodyEnd
        }
        reader.path = ""
        let loopOffset = reader.offset
        let loopLength = Int(try reader.uint16("descriptor_loop_length"))
        let loopEnd = try reader.window(
            length: loopLength, field: "descriptor_loop_length", at: loopOffset, of: "the section")
        var descriptors: [SpliceDescriptor] = []
        reader.end = loopEnd
        while !reader.isAtEnd {
            reader.path = "splice_descriptor[\(descriptors.count)]"
            let tag = try reader.uint8("splice_descriptor_tag")
            let lengthOffset = reader.offset
            let length = Int(try reader.uint8("descriptor_length"))
            let end = try reader.window(
                length: length, field: "descriptor_length", at: lengthOffset, of: "the descriptor loop")
            reader.end = end
            descriptors.append(try SpliceDescriptor(tag: tag, reading: &reader))
            reader.end = loopEnd
        }
        reader.path = ""
        reader.end = bodyEnd
        let stuffing = try reader.rest("alignment_stuffing")
        return SpliceContent(
            command: command, descriptors: descriptors, commandTrailingBytes: trailing, legacyCommandLength: legacy,
            alignmentStuffing: stuffing)
    }

    static func hex(_ value: UInt8) -> String {
        "0x" + (value < 16 ? "0" : "") + String(value, radix: 16, uppercase: true)
    }

    static func hex32(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
