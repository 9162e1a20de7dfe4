extension SpliceInfoSection {
    /// The section as JSON: the spec's field names in the order of the syntax (see docs/scte35.md).
    ///
    /// Numbers are JSON numbers (times and durations in 90 kHz ticks), flags are booleans, byte strings
    /// are lowercase hex without `0x`. Fields the syntax leaves out (a cancelled event's details, an absent
    /// break_duration) are left out. The lengths and CRC_32 are those ``encode()`` writes, which for a
    /// decoded section are the ones read.
    public func renderedJSON(pretty: Bool = true) throws(SCTE35Error) -> String {
        try jsonNode().json(pretty: pretty)
    }

    /// The section as indented `field: value` lines, times with their seconds.
    public func renderedText() throws(SCTE35Error) -> String {
        "splice_info_section:\n" + (try jsonNode()).text(indent: 1)
    }

    func jsonNode() throws(SCTE35Error) -> JSONNode {
        let bytes = try encode()
        var fields: [(String, JSONNode)] = [
            ("table_id", .uint(Self.tableID)), ("section_syntax_indicator", .bool(sectionSyntaxIndicator)),
            ("private_indicator", .bool(privateIndicator)), ("sap_type", .uint(sapType)),
            ("section_length", .uint(bytes.count - 3)), ("protocol_version", .uint(protocolVersion)),
            ("encrypted_packet", .bool(encryptedPacket)), ("encryption_algorithm", .uint(encryptionAlgorithm)),
            ("pts_adjustment", .ticks(ptsAdjustment)), ("cw_index", .uint(cwIndex)), ("tier", .uint(tier)),
        ]
        switch payload {
        case .encrypted(let encrypted):
            fields += [
                ("splice_command_length", .uint(encrypted.spliceCommandLength)),
                ("encrypted_payload", .string(SectionText.hex(encrypted.bytes, prefix: false, uppercase: false))),
                ("E_CRC_32", .uint(encrypted.encryptedCRC32)),
            ]
        case .clear(let content):
            var commandWriter = BitWriter()
            try content.command.write(to: &commandWriter)
            let commandLength =
                content.legacyCommandLength ? 0xFFF : commandWriter.bytes.count + content.commandTrailingBytes.count
            var command: [(String, JSONNode)] = [("name", .string(content.command.name))] + content.command.jsonFields
            if !content.commandTrailingBytes.isEmpty {
                command.append(
                    (
                        "trailing_bytes",
                        .string(SectionText.hex(content.commandTrailingBytes, prefix: false, uppercase: false))
                    ))
            }
            var descriptors: [JSONNode] = []
            var loopLength = 0
            for descriptor in content.descriptors {
                var writer = BitWriter()
                try descriptor.writeBody(to: &writer)
                loopLength += 2 + writer.bytes.count
                let identifier =
                    writer.bytes.count >= 4 ? writer.bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil
                var item: [(String, JSONNode)] = [
                    ("splice_descriptor_tag", .uint(descriptor.tag)), ("descriptor_length", .uint(writer.bytes.count)),
                    ("identifier", identifier.map(JSONNode.uint) ?? .null),
                    ("identifier_text", identifier.flatMap(FourCharacterCode.text).map(JSONNode.string) ?? .null),
                    ("name", .string(descriptor.name)),
                ]
                item += descriptor.jsonFields
                if !descriptor.trailingBytes.isEmpty {
                    item.append(
                        (
                            "trailing_bytes",
                            .string(SectionText.hex(descriptor.trailingBytes, prefix: false, uppercase: false))
                        ))
                }
                descriptors.append(.object(item))
            }
            fields += [
                ("splice_command_length", .uint(commandLength)), ("splice_command_type", .uint(content.command.type)),
                ("splice_command", .object(command)), ("descriptor_loop_length", .uint(loopLength)),
                ("splice_descriptors", .array(descriptors)),
            ]
            if !content.alignmentStuffing.isEmpty {
                fields.append(
                    (
                        "alignment_stuffing",
                        .string(SectionText.hex(content.alignmentStuffing, prefix: false, uppercase: false))
                    ))
            }
        }
        fields.append(("CRC_32", .uint(bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })))
        return .object(fields)
    }
}
