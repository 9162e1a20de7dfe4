import Foundation
import SCTE35
import Testing

/// The committed corpus: sections from this library's encoder (ours/) and from threefive's (threefive/).
@Suite("Corpus")
struct CorpusTests {
    /// The sections of `ours/`, by file name: what the server sends and the structures the decoder knows.
    static let ours: [(String, SpliceInfoSection)] = [
        ("splice-null", SpliceInfoSection(command: .spliceNull)),
        (
            "insert-out-30s",
            .spliceInsertOut(eventID: 1001, ptsTime: 8_100_000, duration: 2_700_000, availNum: 1, availsExpected: 1)
        ),
        ("insert-in", .spliceInsertIn(eventID: 1001, ptsTime: 10_800_000)),
        ("insert-out-immediate", .spliceInsertOut(eventID: 1002, ptsTime: nil, duration: 5_400_000, autoReturn: false)),
        ("insert-cancel", .spliceInsertCancel(eventID: 1003)),
        (
            "break-start",
            .timeSignal(ptsTime: 1_000_000, segmentationEventID: 77, type: .breakStart, duration: 2_700_000)
        ),
        ("break-end", .timeSignal(ptsTime: 3_700_000, segmentationEventID: 77, type: .breakEnd)),
        (
            "provider-po-start",
            .timeSignal(
                ptsTime: 0x1_FFFF_FFFF, segmentationEventID: 0x4000_0001, type: .providerPlacementOpportunityStart,
                duration: 5_400_000, upid: .adID("ABCD0123456H"), segmentNum: 1, segmentsExpected: 1,
                subSegment: .init(subSegmentNum: 1, subSegmentsExpected: 2))
        ),
        (
            "provider-po-end",
            .timeSignal(
                ptsTime: 5_400_000, segmentationEventID: 0x4000_0001, type: .providerPlacementOpportunityEnd,
                upid: .adID("ABCD0123456H"), segmentNum: 1, segmentsExpected: 1)
        ),
        (
            "provider-ad-start-uri",
            .timeSignal(
                ptsTime: 123_456, segmentationEventID: 5, type: .providerAdvertisementStart, duration: 1_350_000,
                upid: .uri("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"))
        ),
        (
            "distributor-ad-end-mid",
            .timeSignal(
                ptsTime: 200, segmentationEventID: 6, type: .distributorAdvertisementEnd,
                upid: .mid([.adID("ABCD0123456H"), .uri("https://example.com/ad/1")]))
        ),
        (
            "program-start-restricted",
            SpliceInfoSection(
                command: .timeSignal(SpliceTime(ptsTime: 42)),
                descriptors: [
                    .segmentation(
                        SegmentationDescriptor(
                            segmentationEventID: 9,
                            segmentation: .init(
                                type: .programStart,
                                upid: SegmentationUPID(type: 0x08, bytes: [0, 0, 0, 0, 0x2C, 0xB2, 0xD7, 0x9D]),
                                deliveryRestrictions: .init(
                                    webDeliveryAllowed: false, noRegionalBlackout: true, archiveAllowed: true,
                                    deviceRestrictions: 3))))
                ], ptsAdjustment: 900, tier: 0x123)
        ),
        (
            "chapter-start-uuid",
            .timeSignal(
                ptsTime: 99, segmentationEventID: 10, type: .chapterStart,
                upid: SegmentationUPID(type: 0x10, bytes: Array(0..<16)), segmentNum: 2, segmentsExpected: 5)
        ),
        (
            "segmentation-cancel",
            .timeSignal(
                ptsTime: nil,
                descriptors: [.segmentation(SegmentationDescriptor(segmentationEventID: 11, segmentation: nil))])
        ),
        (
            "insert-with-descriptors",
            SpliceInfoSection(
                command: .spliceInsert(
                    SpliceInsert(
                        spliceEventID: 12,
                        splice: .init(
                            outOfNetwork: true, mode: .program(SpliceTime(ptsTime: 900_000)),
                            breakDuration: BreakDuration(autoReturn: true, duration: 1_800_000), uniqueProgramID: 7))),
                descriptors: [
                    .avail(AvailDescriptor(providerAvailID: 309)),
                    .dtmf(DTMFDescriptor(preroll: 50, characters: Array("121#".utf8))),
                    .time(TimeDescriptor(taiSeconds: 1_700_000_000, taiNanoseconds: 500, utcOffset: 37)),
                ])
        ),
        (
            "private-command",
            SpliceInfoSection(
                command: .privateCommand(PrivateCommand(identifier: 0x5445_5354, privateBytes: [1, 2, 3])))
        ),
        ("bandwidth-reservation", SpliceInfoSection(command: .bandwidthReservation)),
    ]

    @Test("ours/ holds exactly what the encoder writes (SCTE35_WRITE_FIXTURES=1 rewrites it)", arguments: ours.map(\.0))
    func oursMatchEncoder(name: String) throws {
        let section = try #require(Self.ours.first { $0.0 == name }?.1)
        let hex = try section.encodedHex()
        let url = Corpus.root.appendingPathComponent("ours/\(name).hex")
        if ProcessInfo.processInfo.environment["SCTE35_WRITE_FIXTURES"] == "1" {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (hex + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(Corpus.text("ours/\(name).hex") == hex)
        #expect(try SpliceInfoSection.decode(hex: hex) == section)
    }

    @Test("every corpus section decodes, encodes back byte for byte and renders", arguments: Corpus.names)
    func roundTrip(name: String) throws {
        let text = Corpus.text(name)
        let bytes = try SectionText.bytes(text: text)
        let section = try SpliceInfoSection.decode(bytes)
        #expect(try section.encode() == bytes)
        if name.hasSuffix(".b64") {
            #expect(try section.encodedBase64() == text)
        } else {
            #expect(try section.encodedHex() == text)
        }
        let json = try section.renderedJSON()
        #expect(json.hasPrefix("{\n  \"table_id\": 252,"))
        #expect(try section.renderedText().hasPrefix("splice_info_section:\n  table_id: 252"))
    }

    @Test("the corpus has both halves")
    func corpusHalves() {
        #expect(Corpus.names.filter { $0.hasPrefix("ours/") }.count == Self.ours.count)
        #expect(Corpus.names.filter { $0.hasPrefix("threefive/") }.count >= 10)
    }
}
