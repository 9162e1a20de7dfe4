import SCTE35
import Testing

/// Malformed input gets a located error (code, byte, field), never a crash.
@Suite("Malformed input")
struct MalformedTests {
    /// The error decoding `bytes` throws, or `nil` when it decodes.
    static func error(_ bytes: [UInt8]) -> SCTE35Error? {
        do {
            _ = try SpliceInfoSection.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    static func error(text: String) -> SCTE35Error? {
        do {
            _ = try SpliceInfoSection.decode(text: text)
            return nil
        } catch {
            return error
        }
    }

    static let segmentation = SpliceInfoSection.timeSignal(
        ptsTime: 1000, segmentationEventID: 1, type: .breakStart, duration: 2_700_000, upid: .adID("ABCD0123456H"))

    @Test("every truncation of a section is an error inside the input")
    func truncations() throws {
        let bytes = try Self.segmentation.encode()
        for length in 0..<bytes.count {
            let error = try #require(Self.error(Array(bytes.prefix(length))), "prefix \(length) decoded")
            #expect(error.code == .truncated || error.code == .crcMismatch, "\(error)")
            #expect(error.offset <= max(length, 1))
        }
    }

    @Test("a wrong CRC_32 is crc-mismatch at the CRC's offset")
    func wrongCRC() throws {
        var bytes = try Self.segmentation.encode()
        bytes[bytes.count - 1] ^= 0x01
        let error = try #require(Self.error(bytes))
        #expect(error.code == .crcMismatch)
        #expect(error.offset == bytes.count - 4)
        #expect(error.path == "CRC_32")
        #expect(error.description.hasPrefix("byte \(bytes.count - 4), CRC_32: CRC_32 is 0x"))
    }

    @Test("a table_id other than 0xFC")
    func tableID() throws {
        var bytes = try Self.segmentation.encode()
        bytes[0] = 0xFD
        #expect(Self.error(bytes)?.code == .tableID)
        #expect(Self.error(bytes)?.path == "table_id")
    }

    @Test("bytes after the section are trailing-bytes at the section's end")
    func trailing() throws {
        let bytes = try Self.segmentation.encode()
        let error = try #require(Self.error(bytes + [0xFF]))
        #expect(error.code == .trailingBytes && error.offset == bytes.count)
    }

    @Test("a splice_command_length past the section is length-overrun at byte 11")
    func commandOverrun() throws {
        let bytes = HandBuilt.section(commandType: 0x00, command: [], commandLength: 40)
        let error = try #require(Self.error(bytes))
        #expect(error.code == .lengthOverrun)
        #expect(error.path == "splice_command_length")
        #expect(error.offset == 11)
    }

    @Test("a command shorter than its fields is truncated inside the command")
    func commandTooShort() throws {
        let bytes = HandBuilt.section(commandType: 0x05, command: [0, 0, 0, 1, 0x7F, 0xFF])
        let error = try #require(Self.error(bytes))
        #expect(error.code == .truncated)
        #expect(error.path.hasPrefix("splice_command."))
        #expect(error.offset >= 14 && error.offset <= 20)
    }

    @Test("a descriptor_length past the loop is length-overrun at that descriptor")
    func descriptorOverrun() throws {
        let good = HandBuilt.descriptor(tag: 0, body: [0, 0, 0, 1])
        let bad: [UInt8] = [0x00, 200, 0x43, 0x55, 0x45, 0x49]
        let bytes = HandBuilt.section(commandType: 0x00, command: [], descriptors: good + bad)
        let error = try #require(Self.error(bytes))
        #expect(error.code == .lengthOverrun)
        #expect(error.path == "splice_descriptor[1].descriptor_length")
        #expect(error.offset == 14 + 2 + good.count + 1)
    }

    @Test("a segmentation_upid_length past the descriptor is length-overrun in that descriptor")
    func upidOverrun() throws {
        var body = HandBuilt()
        body.put(1, 32)
        body.put(0x7F, 8)  // not cancelled, compliance, reserved
        body.put(0xFF, 8)  // program, duration, not restricted, reserved
        body.put(0, 40)
        body.put(0x0F, 8)
        body.put(50, 8)  // segmentation_upid_length overruns
        body.put(bytes: [1, 2, 3])
        let bytes = HandBuilt.section(
            commandType: 0x00, command: [], descriptors: HandBuilt.descriptor(tag: 2, body: body.bytes))
        let error = try #require(Self.error(bytes))
        #expect(error.code == .lengthOverrun)
        #expect(error.path == "splice_descriptor[0].segmentation_upid_length")
    }

    @Test("a MID whose entry overruns it is upid-malformed at that entry")
    func malformedMID() throws {
        let upid = SegmentationUPID(type: 0x0D, bytes: [0x03, 2, 0x41, 0x42, 0x0F, 9, 0x41])
        let section = SpliceInfoSection.timeSignal(ptsTime: nil, segmentationEventID: 1, type: .breakEnd, upid: upid)
        var content = try #require(section.descriptors.first?.segmentation)
        content.segmentation?.upid = .notUsed
        var bytes = try SpliceInfoSection.timeSignal(ptsTime: nil, descriptors: [.segmentation(content)]).encode()
        // The encoder refuses the MID too, so the section is patched by hand: the UPID goes in at its offset.
        #expect(throws: SCTE35Error.self) { try section.encode() }
        let upidAt = 14 + 1 + 2 + 2 + 4 + 4 + 1 + 1
        #expect(bytes[upidAt] == 0x00 && bytes[upidAt + 1] == 0)
        bytes.replaceSubrange(upidAt..<(upidAt + 2), with: [0x0D, UInt8(upid.bytes.count)] + upid.bytes)
        bytes[2] += UInt8(upid.bytes.count)
        bytes[16] += UInt8(upid.bytes.count)  // descriptor_loop_length (low byte)
        bytes[18] += UInt8(upid.bytes.count)  // descriptor_length
        let crc = HandBuilt.crc32(Array(bytes.dropLast(4)))
        bytes.replaceSubrange(
            (bytes.count - 4)...,
            with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        let error = try #require(Self.error(bytes))
        #expect(error.code == .upidMalformed)
        #expect(error.path == "splice_descriptor[0].segmentation_upid.mid[1]")
        #expect(error.offset == upidAt + 2 + 4 + 1)
    }

    @Test("the legacy splice_command_length with a command whose length is unknown is unknown-command")
    func legacyUnknown() throws {
        let bytes = HandBuilt.section(commandType: 0x42, command: [1, 2], commandLength: 0xFFF)
        let error = try #require(Self.error(bytes))
        #expect(error.code == .unknownCommand)
        #expect(error.path == "splice_command_length")
    }

    @Test(
        "bad hex and bad base64 are located by character",
        arguments: [
            ("0xFC3G", SCTE35Error.Code.badHex, 5), ("0xFC3", .badHex, 5), ("0xFC30zz", .badHex, 6),
            ("FC3", .badHex, 3),
            ("/DA*AAA=", .badBase64, 3), ("/DAvA", .badBase64, 5), ("", .badHex, 0),
        ])
    func badText(text: String, code: SCTE35Error.Code, offset: Int) throws {
        let error = try #require(Self.error(text: text))
        #expect(error.code == code)
        #expect(error.offset == offset)
        #expect(error.description.hasPrefix("character \(offset): "))
    }

    @Test("encoding refuses values that do not fit, naming the field")
    func encodeRanges() {
        func failure(_ section: SpliceInfoSection) -> SCTE35Error? {
            do {
                _ = try section.encode()
                return nil
            } catch {
                return error
            }
        }
        let tooLate = SpliceInfoSection.spliceInsertOut(eventID: 1, ptsTime: 1 << 33, duration: nil)
        #expect(failure(tooLate)?.code == .valueRange)
        #expect(
            failure(tooLate)?.path == "splice_command.splice_time.pts_time"
                || failure(tooLate)?.path == "splice_command.pts_time")
        let longUPID = SpliceInfoSection.timeSignal(
            ptsTime: nil, segmentationEventID: 1, type: .breakStart, upid: .uri(String(repeating: "a", count: 300)))
        #expect(failure(longUPID)?.path == "splice_descriptor[0].segmentation_upid_length")
        let subSegmentOnEnd = SpliceInfoSection.timeSignal(
            ptsTime: nil, segmentationEventID: 1, type: .breakEnd,
            subSegment: .init(subSegmentNum: 1, subSegmentsExpected: 1))
        #expect(failure(subSegmentOnEnd)?.path == "splice_descriptor[0].sub_segment_num")
        let inconsistent = SpliceInfoSection(
            command: .spliceInsert(
                SpliceInsert(
                    spliceEventID: 1,
                    splice: .init(outOfNetwork: true, spliceImmediate: true, mode: .program(SpliceTime(ptsTime: 1))))))
        #expect(failure(inconsistent)?.code == .valueRange)
    }

    @Test("errors render like the project's others, in text and JSON")
    func rendering() throws {
        let error = SCTE35Error(
            .crcMismatch, at: 30, path: "CRC_32", "CRC_32 is 0x00000000 but the section's bytes give 0x12345678")
        #expect(
            error.rendered(source: "cue")
                == "cue: error: [crc-mismatch] byte 30, CRC_32: CRC_32 is 0x00000000 but the section's bytes give 0x12345678"
        )
        #expect(
            error.errorJSON
                == #"{"code":"crc-mismatch","offset":30,"path":"CRC_32","message":"CRC_32 is 0x00000000 but the section's bytes give 0x12345678"}"#
        )
    }
}
