/// Encodes a `splice_info_section()`: the header, the command and descriptors with their lengths, and the CRC.
enum SectionEncoder {
    static func encode(_ section: SpliceInfoSection) throws(SCTE35Error) -> [UInt8] {
        var body = BitWriter(base: 3)
        try body.bits(UInt64(section.protocolVersion), 8, "protocol_version")
        try body.flag(section.encryptedPacket, "encrypted_packet")
        try body.bits(UInt64(section.encryptionAlgorithm), 6, "encryption_algorithm")
        try body.bits(section.ptsAdjustment, 33, "pts_adjustment")
        try body.bits(UInt64(section.cwIndex), 8, "cw_index")
        try body.bits(UInt64(section.tier), 12, "tier")
        switch section.payload {
        case .encrypted(let encrypted):
            try body.bits(UInt64(encrypted.spliceCommandLength), 12, "splice_command_length")
            guard encrypted.bytes.count >= 4 else {
                throw body.error(.valueRange, "E_CRC_32", "an encrypted payload ends with the 4 bytes of E_CRC_32")
            }
            body.append(encrypted.bytes)
        case .clear(let content):
            try write(content, to: &body)
        }
        let sectionLength = body.bytes.count + 4
        guard sectionLength <= SpliceInfoSection.maximumSectionLength else {
            throw SCTE35Error(
                .valueRange, at: 1, path: "section_length",
                "the section needs section_length \(sectionLength); at most \(SpliceInfoSection.maximumSectionLength) fit"
            )
        }
        var head = BitWriter()
        try head.bits(UInt64(SpliceInfoSection.tableID), 8, "table_id")
        try head.flag(section.sectionSyntaxIndicator, "section_syntax_indicator")
        try head.flag(section.privateIndicator, "private_indicator")
        try head.bits(UInt64(section.sapType), 2, "sap_type")
        try head.bits(UInt64(sectionLength), 12, "section_length")
        var bytes = head.bytes + body.bytes
        let crc = MPEG2CRC32.checksum(bytes)
        bytes += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return bytes
    }

    private static func write(_ content: SpliceContent, to body: inout BitWriter) throws(SCTE35Error) {
        var command = BitWriter(base: body.offset + 3, path: "splice_command")
        try content.command.write(to: &command)
        command.append(content.commandTrailingBytes)
        if content.legacyCommandLength {
            let type = content.command.type
            guard SpliceCommand.isKnown(type), type != 0xFF, content.commandTrailingBytes.isEmpty else {
                throw body.error(
                    .unknownCommand, "splice_command_length",
                    "the legacy splice_command_length 0xFFF needs a command whose length its fields give, without trailing bytes"
                )
            }
            try body.bits(0xFFF, 12, "splice_command_length")
        } else {
            guard command.bytes.count < 0xFFF else {
                throw body.error(
                    .valueRange, "splice_command_length",
                    "the command has \(command.bytes.count) bytes; at most 4094 fit")
            }
            try body.bits(UInt64(command.bytes.count), 12, "splice_command_length")
        }
        try body.bits(UInt64(content.command.type), 8, "splice_command_type")
        body.append(command.bytes)
        var loop = BitWriter(base: body.offset + 2)
        for (index, descriptor) in content.descriptors.enumerated() {
            var item = BitWriter(base: loop.offset + 2, path: "splice_descriptor[\(index)]")
            try descriptor.writeBody(to: &item)
            try loop.bits(UInt64(descriptor.tag), 8, "splice_descriptor_tag")
            loop.path = item.path
            try loop.lengthPrefixed(item.bytes, lengthBits: 8, "descriptor_length")
            loop.path = ""
        }
        try body.lengthPrefixed(loop.bytes, lengthBits: 16, "descriptor_loop_length")
        body.append(content.alignmentStuffing)
    }
}
