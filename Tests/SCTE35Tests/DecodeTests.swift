import SCTE35
import Testing

/// Hand-built sections decode to the fields they were built with.
@Suite("Decoding")
struct DecodeTests {
    @Test("the CRC is the MPEG-2 CRC-32: the check value of \"123456789\" is 0x0376E6E7")
    func crcCheckValue() {
        #expect(MPEG2CRC32.checksum(Array("123456789".utf8)) == 0x0376_E6E7)
        #expect(HandBuilt.crc32(Array("123456789".utf8)) == 0x0376_E6E7)
    }

    @Test("a splice_null section (the common heartbeat) decodes and encodes back")
    func spliceNull() throws {
        let bytes = HandBuilt.section(commandType: 0x00, command: [])
        #expect(bytes.count == 20)
        let section = try SpliceInfoSection.decode(bytes)
        #expect(section.command == .spliceNull)
        #expect(section.descriptors.isEmpty)
        #expect(section.tier == 0xFFF)
        #expect(section.sapType == 3)
        #expect(try section.encode() == bytes)
        #expect(try SpliceInfoSection.decode(text: SectionText.hex(bytes)) == section)
        #expect(try SpliceInfoSection.decode(text: SectionText.hex(bytes, prefix: false, uppercase: false)) == section)
        #expect(try SpliceInfoSection.decode(text: SectionText.base64(bytes)) == section)
    }

    @Test("a splice_insert out with a time, break_duration and avail descriptor decodes field by field")
    func spliceInsert() throws {
        var command = HandBuilt()
        command.put(0x4800_008F, 32)  // splice_event_id
        command.put(0, 1)  // cancel
        command.put(0x7F, 7)
        command.put(0b11101, 5)  // out, program, duration, !immediate, compliance
        command.put(0b111, 3)
        command.put(1, 1)  // time_specified_flag
        command.put(0x3F, 6)
        command.put(0x1_7369_C02E, 33)
        command.put(1, 1)  // auto_return
        command.put(0x3F, 6)
        command.put(5_426_421, 33)
        command.put(0x1234, 16)
        command.put(2, 8)
        command.put(4, 8)
        let avail = HandBuilt.descriptor(tag: 0x00, body: [0, 0, 0x01, 0x35])
        let bytes = HandBuilt.section(
            commandType: 0x05, command: command.bytes, descriptors: avail, ptsAdjustment: 0x1_0000_0001)
        let section = try SpliceInfoSection.decode(bytes)
        #expect(section.ptsAdjustment == 0x1_0000_0001)
        guard case .spliceInsert(let insert) = section.command, let splice = insert.splice else {
            Issue.record("not a splice_insert: \(String(describing: section.command))")
            return
        }
        #expect(insert.spliceEventID == 0x4800_008F)
        #expect(splice.outOfNetwork && splice.programSpliceFlag && splice.eventIDCompliance && !splice.spliceImmediate)
        #expect(splice.mode == .program(SpliceTime(ptsTime: 0x1_7369_C02E)))
        #expect(splice.breakDuration == BreakDuration(autoReturn: true, duration: 5_426_421))
        #expect(splice.uniqueProgramID == 0x1234 && splice.availNum == 2 && splice.availsExpected == 4)
        #expect(section.descriptors == [.avail(AvailDescriptor(providerAvailID: 309))])
        #expect(try section.encode() == bytes)
    }

    @Test("a time_signal with a segmentation descriptor: restrictions, duration, Ad-ID, type and sub-segments")
    func timeSignalSegmentation() throws {
        var time = HandBuilt()
        time.put(1, 1)
        time.put(0x3F, 6)
        time.put(0x0_0001_0000, 33)
        var body = HandBuilt()
        body.put(0x4000_0001, 32)  // segmentation_event_id
        body.put(0, 1)  // cancel
        body.put(1, 1)  // compliance
        body.put(0x3F, 6)
        body.put(1, 1)  // program_segmentation_flag
        body.put(1, 1)  // segmentation_duration_flag
        body.put(0, 1)  // delivery_not_restricted_flag
        body.put(0, 1)  // web_delivery_allowed
        body.put(1, 1)  // no_regional_blackout
        body.put(1, 1)  // archive_allowed
        body.put(2, 2)  // device_restrictions
        body.put(0xAB_CDEF_0123, 40)  // segmentation_duration (40 bits)
        body.put(0x03, 8)
        body.put(12, 8)
        body.put(bytes: Array("ABCD0123456H".utf8))
        body.put(0x34, 8)  // provider placement opportunity start
        body.put(1, 8)
        body.put(2, 8)
        body.put(3, 8)  // sub_segment_num
        body.put(4, 8)  // sub_segments_expected
        let bytes = HandBuilt.section(
            commandType: 0x06, command: time.bytes, descriptors: HandBuilt.descriptor(tag: 0x02, body: body.bytes))
        let section = try SpliceInfoSection.decode(bytes)
        #expect(section.command == .timeSignal(SpliceTime(ptsTime: 0x1_0000)))
        let descriptor = try #require(section.segmentationDescriptors.first)
        let segmentation = try #require(descriptor.segmentation)
        #expect(descriptor.segmentationEventID == 0x4000_0001)
        #expect(
            segmentation.deliveryRestrictions
                == .init(
                    webDeliveryAllowed: false, noRegionalBlackout: true, archiveAllowed: true, deviceRestrictions: 2))
        #expect(segmentation.segmentationDuration == 0xAB_CDEF_0123)
        #expect(segmentation.upid.value == .text("ABCD0123456H"))
        #expect(segmentation.upid.typeName == "Ad-ID")
        #expect(segmentation.type == .providerPlacementOpportunityStart)
        #expect(segmentation.type.name == "Provider Placement Opportunity Start")
        #expect(segmentation.segmentNum == 1 && segmentation.segmentsExpected == 2)
        #expect(segmentation.subSegment == .init(subSegmentNum: 3, subSegmentsExpected: 4))
        #expect(try section.encode() == bytes)
    }

    @Test("a placement opportunity start without sub-segment fields (older encoders) decodes without them")
    func optionalSubSegments() throws {
        let section = SpliceInfoSection.timeSignal(
            ptsTime: 1000, segmentationEventID: 7, type: .providerPlacementOpportunityStart, duration: 90_000)
        let bytes = try section.encode()
        let decoded = try SpliceInfoSection.decode(bytes)
        #expect(decoded.segmentationDescriptors.first?.segmentation?.subSegment == nil)
        #expect(decoded.segmentationDescriptors.first?.trailingBytes == [])
        #expect(decoded == section)
    }

    @Test(
        "UPIDs read as their types",
        arguments: [
            (
                SegmentationUPID(type: 0x08, bytes: [0, 0, 0, 0, 0x2C, 0xB2, 0xD7, 0x9D]),
                UPIDValue.airingID(0x2CB2_D79D)
            ),
            (SegmentationUPID(type: 0x10, bytes: Array(0..<16)), .uuid("00010203-0405-0607-0809-0a0b0c0d0e0f")),
            (
                SegmentationUPID(
                    type: 0x0A, bytes: [0x14, 0x78, 0xF8, 0x5A, 0xE1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]),
                .eidr("10.5240/F85A-E100-0000-0000-0001")
            ),
            (
                SegmentationUPID(type: 0x06, bytes: Array(repeating: 0xAB, count: 12)),
                .isan("ABAB-ABAB-ABAB-ABAB-ABAB-ABAB")
            ),
            (
                SegmentationUPID(type: 0x0B, bytes: [0x00, 0xF1, 0xEF, 0xFF] + Array("human012".utf8)),
                .atsc(
                    .init(tsid: 241, reservedBits: 3, endOfDay: 23, uniqueFor: 511, contentID: Array("human012".utf8)))
            ),
            (
                SegmentationUPID(type: 0x0C, bytes: Array("RTLN".utf8) + [1, 2]),
                .mpu(formatIdentifier: 0x5254_4C4E, privateData: [1, 2])
            ),
            (SegmentationUPID.uri("urn:uuid:1"), .text("urn:uuid:1")),
            (SegmentationUPID(type: 0x03, bytes: [0x00, 0x01]), .bytes([0x00, 0x01])),
            (SegmentationUPID(type: 0x55, bytes: [7]), .bytes([7])),
            (SegmentationUPID.notUsed, .none),
        ])
    func upidValues(upid: SegmentationUPID, value: UPIDValue) {
        #expect(upid.value == value)
    }

    @Test("a MID UPID holds a list of UPIDs, each read as its type")
    func midUPID() throws {
        let upid = SegmentationUPID.mid([.adID("ABCD0123456H"), .uri("https://example.com/a")])
        #expect(upid.value == .mid([.adID("ABCD0123456H"), .uri("https://example.com/a")]))
        let section = SpliceInfoSection.timeSignal(
            ptsTime: nil, segmentationEventID: 1, type: .breakStart, duration: 900_000, upid: upid)
        let json = try SpliceInfoSection.decode(section.encode()).renderedJSON(pretty: false)
        #expect(json.contains(#""segmentation_upid":[{"segmentation_upid_type":3"#))
    }

    @Test("descriptors with another identifier, or a reserved tag, are kept as bytes")
    func rawDescriptors() throws {
        let privateDescriptor: [UInt8] = [0x02, 6, 0x41, 0x42, 0x43, 0x44, 9, 9]
        let reserved = HandBuilt.descriptor(tag: 0x09, body: [1, 2, 3])
        let bytes = HandBuilt.section(commandType: 0x00, command: [], descriptors: privateDescriptor + reserved)
        let section = try SpliceInfoSection.decode(bytes)
        #expect(
            section.descriptors == [
                .raw(RawDescriptor(tag: 0x02, bytes: [0x41, 0x42, 0x43, 0x44, 9, 9])),
                .raw(RawDescriptor(tag: 0x09, bytes: [0x43, 0x55, 0x45, 0x49, 1, 2, 3])),
            ])
        #expect(try section.encode() == bytes)
    }

    @Test("an unknown command type is kept as its bytes")
    func unknownCommand() throws {
        let bytes = HandBuilt.section(commandType: 0x42, command: [1, 2, 3, 4, 5])
        let section = try SpliceInfoSection.decode(bytes)
        #expect(section.command == .unknown(type: 0x42, bytes: [1, 2, 3, 4, 5]))
        #expect(try section.encode() == bytes)
    }

    @Test("the legacy splice_command_length 0xFFF: a time_signal's length comes from its fields")
    func legacyCommandLength() throws {
        let bytes = HandBuilt.section(commandType: 0x06, command: [0x7F], commandLength: 0xFFF)
        let section = try SpliceInfoSection.decode(bytes)
        #expect(section.command == .timeSignal(SpliceTime(ptsTime: nil)))
        #expect(try section.encode() == bytes)
    }

    @Test("an encrypted section keeps its encrypted bytes")
    func encrypted() throws {
        var body = HandBuilt()
        body.put(0, 8)
        body.put(1, 1)  // encrypted_packet
        body.put(2, 6)  // DES CBC
        body.put(0, 33)
        body.put(7, 8)
        body.put(0xFFF, 12)
        body.put(5, 12)
        body.put(bytes: [0x99, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
        var head = HandBuilt()
        head.put(0xFC, 8)
        head.put(0, 4)
        head.put(UInt64(body.bytes.count + 4), 12)
        let unsigned = head.bytes + body.bytes
        let crc = HandBuilt.crc32(unsigned)
        let bytes = unsigned + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        let section = try SpliceInfoSection.decode(bytes)
        #expect(section.encryptedPacket && section.encryptionAlgorithm == 2 && section.cwIndex == 7)
        #expect(section.payload == .encrypted(EncryptedPayload(spliceCommandLength: 5, bytes: [0x99] + Array(1...11))))
        #expect(section.command == nil)
        #expect(try section.encode() == bytes)
    }

    @Test("splice_schedule, DTMF, time and audio descriptors, and a component splice_insert round-trip")
    func otherStructures() throws {
        let schedule = SpliceSchedule(events: [
            .init(
                spliceEventID: 1,
                splice: .init(
                    outOfNetwork: true, mode: .program(utcSpliceTime: 1_300_000_000),
                    breakDuration: BreakDuration(autoReturn: false, duration: 2_700_000), uniqueProgramID: 3)),
            .init(spliceEventID: 2, splice: nil),
            .init(
                spliceEventID: 3,
                splice: .init(outOfNetwork: false, mode: .components([.init(componentTag: 1, utcSpliceTime: 5)]))),
        ])
        let descriptors: [SpliceDescriptor] = [
            .dtmf(DTMFDescriptor(preroll: 50, characters: Array("121#".utf8))),
            .time(TimeDescriptor(taiSeconds: 0xFFFF_FFFF_FFFF, taiNanoseconds: 5, utcOffset: 37)),
            .audio(
                AudioDescriptor(components: [
                    .init(componentTag: 1, isoCode: 0x656E_67, bitStreamMode: 7, numChannels: 5, fullServiceAudio: true)
                ])),
        ]
        let insert = SpliceInsert(
            spliceEventID: 9,
            splice: .init(
                outOfNetwork: true,
                mode: .components([
                    .init(componentTag: 1, spliceTime: SpliceTime(ptsTime: 5)),
                    .init(componentTag: 2, spliceTime: SpliceTime(ptsTime: nil)),
                ])))
        for section in [
            SpliceInfoSection(command: .spliceSchedule(schedule), descriptors: descriptors),
            SpliceInfoSection(command: .spliceInsert(insert)),
            SpliceInfoSection(command: .bandwidthReservation),
            SpliceInfoSection(command: .privateCommand(PrivateCommand(identifier: 0x5445_5354, privateBytes: [1, 2]))),
        ] {
            let bytes = try section.encode()
            #expect(try SpliceInfoSection.decode(bytes) == section)
        }
    }
}
