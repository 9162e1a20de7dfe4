import SCTE35
import Testing

/// The JSON and text renderings and the server's builders.
@Suite("Rendering and builders")
struct RenderingTests {
    @Test("the JSON of a splice_insert out: the spec's names in the syntax's order, times in ticks")
    func insertJSON() throws {
        let section = SpliceInfoSection.spliceInsertOut(eventID: 5, ptsTime: 900_000, duration: 2_700_000)
        let json = try section.renderedJSON(pretty: false)
        #expect(
            json.contains(
                #""splice_command_type":5,"splice_command":{"name":"splice_insert","splice_event_id":5,"splice_event_cancel_indicator":false,"out_of_network_indicator":true,"program_splice_flag":true,"duration_flag":true,"splice_immediate_flag":false,"event_id_compliance_flag":true,"splice_time":{"time_specified_flag":true,"pts_time":900000},"break_duration":{"auto_return":true,"duration":2700000}"#
            ))
        let bytes = try section.encode()
        #expect(json.contains(#""section_length":\#(bytes.count - 3)"#))
        #expect(json.contains(#""splice_command_length":20"#))
        #expect(json.hasSuffix(#""CRC_32":\#(bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })}"#))
    }

    @Test("the JSON of a segmentation descriptor names its type and UPID")
    func segmentationJSON() throws {
        let section = SpliceInfoSection.timeSignal(
            ptsTime: 90_000, segmentationEventID: 3, type: .breakStart, duration: 2_700_000, upid: .adID("ABCD0123456H")
        )
        let json = try section.renderedJSON(pretty: false)
        #expect(
            json.contains(
                #""segmentation_duration":2700000,"segmentation_upid_type":3,"segmentation_upid_type_name":"Ad-ID","segmentation_upid_length":12,"segmentation_upid":"ABCD0123456H""#
            ))
        #expect(json.contains(#""segmentation_type_id":34,"segmentation_type_name":"Break Start""#))
        #expect(json.contains(#""identifier":1129661769,"identifier_text":"CUEI","name":"segmentation_descriptor""#))
    }

    @Test("the text rendering shows ticks with seconds and nests structures")
    func text() throws {
        let text = try SpliceInfoSection.spliceInsertOut(eventID: 5, ptsTime: 900_000, duration: 2_700_001)
            .renderedText()
        #expect(
            text.contains("\n    splice_time:\n      time_specified_flag: true\n      pts_time: 900000 (10.000000 s)"))
        #expect(text.contains("duration: 2700001 (30.000011 s)"))
    }

    @Test("text from the input is escaped in renderings")
    func escaping() throws {
        let section = SpliceInfoSection.timeSignal(
            ptsTime: nil, segmentationEventID: 1, type: .breakEnd,
            upid: SegmentationUPID(type: 0x0F, bytes: Array("a\"b\\c".utf8)))
        #expect(try section.renderedJSON(pretty: false).contains(#""segmentation_upid":"a\"b\\c""#))
        let control = SpliceInfoSection(
            command: .spliceNull, descriptors: [.dtmf(DTMFDescriptor(preroll: 1, characters: [0x1B, 0x41]))])
        #expect(try control.renderedText().contains("DTMF_char: \\u{1B}A"))
    }

    @Test("the builders make what the server sends")
    func builders() throws {
        let out = SpliceInfoSection.spliceInsertOut(eventID: 1, ptsTime: nil, duration: Ticks.ticks(seconds: 30))
        guard case .spliceInsert(let insert) = out.command, let splice = insert.splice else {
            Issue.record("not a splice_insert")
            return
        }
        #expect(splice.outOfNetwork && splice.spliceImmediate && splice.mode == .program(nil))
        #expect(splice.breakDuration?.duration == 2_700_000)
        let back = SpliceInfoSection.spliceInsertIn(eventID: 1, ptsTime: 5)
        if case .spliceInsert(let insert) = back.command { #expect(insert.splice?.outOfNetwork == false) }
        for type in [
            SegmentationType.breakStart, .breakEnd, .providerPlacementOpportunityStart,
            .providerPlacementOpportunityEnd,
        ] {
            let section = SpliceInfoSection.timeSignal(
                ptsTime: 10, segmentationEventID: 2, type: type, duration: 90_000)
            let decoded = try SpliceInfoSection.decode(base64: section.encodedBase64())
            #expect(decoded.segmentationDescriptors.first?.segmentation?.type == type)
        }
        #expect(Ticks.secondsText(90_000 * 61 + 45_000) == "61.500000")
        #expect(Ticks.ticks(seconds: 1.5) == 135_000)
    }
}
