import PropertyBased
import SCTE35
import Testing

/// Generated sections: the round trip in both directions and the CRC catching every single-bit flip.
@Suite("Property tests")
struct PropertyTests {
    /// Draws a section's choices from a list of random numbers (the generator shrinks the list).
    struct Draws {
        var values: [UInt64]
        var index = 0

        mutating func next(_ bound: UInt64) -> UInt64 {
            defer { index += 1 }
            guard !values.isEmpty else { return 0 }
            let value = values[index % values.count] &+ UInt64(index / values.count)
            return bound == 0 ? value : value % bound
        }

        mutating func bool() -> Bool { next(2) == 1 }
        mutating func bits(_ count: Int) -> UInt64 { next(count >= 64 ? 0 : 1 << UInt64(count)) }
        mutating func byte() -> UInt8 { UInt8(next(256)) }
        mutating func bytes(upTo count: Int) -> [UInt8] { (0..<Int(next(UInt64(count) + 1))).map { _ in byte() } }

        mutating func spliceTime() -> SpliceTime {
            SpliceTime(ptsTime: bool() ? bits(33) : nil, reservedBits: bool() ? nil : 0)
        }

        mutating func breakDuration() -> BreakDuration? {
            bool() ? BreakDuration(autoReturn: bool(), duration: bits(33), reservedBits: UInt8(bits(6))) : nil
        }

        mutating func upid() -> SegmentationUPID {
            switch next(6) {
            case 0: .notUsed
            case 1: .adID(String((0..<12).map { _ in Character(Unicode.Scalar(UInt8(0x41 + next(26)))) }))
            case 2: .mid([.adID("ABCD0123456H"), SegmentationUPID(type: byte(), bytes: bytes(upTo: 20))])
            case 3: SegmentationUPID(type: 0x0B, bytes: [byte(), byte(), byte(), byte()] + bytes(upTo: 10))
            default: SegmentationUPID(type: UInt8(next(0x0B)), bytes: bytes(upTo: 40))
            }
        }

        mutating func segmentation() -> SegmentationDescriptor {
            guard next(5) != 0 else {
                return SegmentationDescriptor(
                    segmentationEventID: UInt32(bits(32)), eventIDCompliance: bool(), segmentation: nil)
            }
            let type = SegmentationType(rawValue: byte())
            let restrictions: SegmentationDescriptor.DeliveryRestrictions? =
                bool()
                ? .init(
                    webDeliveryAllowed: bool(), noRegionalBlackout: bool(), archiveAllowed: bool(),
                    deviceRestrictions: UInt8(bits(2)))
                : nil
            let components: [SegmentationDescriptor.Component]? =
                bool() ? nil : (0..<next(4)).map { _ in .init(componentTag: byte(), ptsOffset: bits(33)) }
            let subSegment: SegmentationDescriptor.SubSegment? =
                type.carriesSubSegments && bool() ? .init(subSegmentNum: byte(), subSegmentsExpected: byte()) : nil
            return SegmentationDescriptor(
                segmentationEventID: UInt32(bits(32)), eventIDCompliance: bool(),
                segmentation: .init(
                    type: type, segmentationDuration: bool() ? bits(40) : nil, upid: upid(), segmentNum: byte(),
                    segmentsExpected: byte(), subSegment: subSegment, deliveryRestrictions: restrictions,
                    components: components, deliveryReservedBits: restrictions == nil ? UInt8(bits(5)) : 0x1F),
                reservedBits: UInt8(bits(6)))
        }

        mutating func descriptor() -> SpliceDescriptor {
            switch next(6) {
            case 0: .avail(AvailDescriptor(providerAvailID: UInt32(bits(32))))
            case 1: .dtmf(DTMFDescriptor(preroll: byte(), characters: (0..<next(8)).map { _ in byte() }))
            case 2:
                .time(
                    TimeDescriptor(taiSeconds: bits(48), taiNanoseconds: UInt32(bits(32)), utcOffset: UInt16(bits(16))))
            case 3:
                .audio(
                    AudioDescriptor(
                        components: (0..<next(4)).map { _ in
                            .init(
                                componentTag: byte(), isoCode: UInt32(bits(24)), bitStreamMode: UInt8(bits(3)),
                                numChannels: UInt8(bits(4)), fullServiceAudio: bool())
                        }))
            case 4: .raw(RawDescriptor(tag: UInt8(5 + next(250)), bytes: bytes(upTo: 30)))
            default: .segmentation(segmentation())
            }
        }

        mutating func command() -> SpliceCommand {
            switch next(7) {
            case 0: return .spliceNull
            case 1: return .timeSignal(spliceTime())
            case 2: return .bandwidthReservation
            case 3: return .privateCommand(PrivateCommand(identifier: UInt32(bits(32)), privateBytes: bytes(upTo: 20)))
            case 4: return .unknown(type: UInt8(0x08 + next(0xF0)), bytes: bytes(upTo: 20))
            case 5:
                return .spliceSchedule(
                    SpliceSchedule(
                        events: (0..<next(3)).map { _ in
                            .init(
                                spliceEventID: UInt32(bits(32)), eventIDCompliance: bool(),
                                splice: bool()
                                    ? .init(
                                        outOfNetwork: bool(),
                                        mode: bool()
                                            ? .program(utcSpliceTime: UInt32(bits(32)))
                                            : .components(
                                                (0..<next(3)).map { _ in
                                                    .init(componentTag: byte(), utcSpliceTime: UInt32(bits(32)))
                                                }),
                                        breakDuration: breakDuration(), uniqueProgramID: UInt16(bits(16)))
                                    : nil)
                        }))
            default:
                guard bool() else { return .spliceInsert(SpliceInsert(spliceEventID: UInt32(bits(32)), splice: nil)) }
                let immediate = bool()
                let mode: SpliceInsert.SpliceMode =
                    bool()
                    ? .program(immediate ? nil : spliceTime())
                    : .components(
                        (0..<next(3)).map { _ in .init(componentTag: byte(), spliceTime: immediate ? nil : spliceTime())
                        })
                return .spliceInsert(
                    SpliceInsert(
                        spliceEventID: UInt32(bits(32)),
                        splice: .init(
                            outOfNetwork: bool(), spliceImmediate: immediate, eventIDCompliance: bool(), mode: mode,
                            breakDuration: breakDuration(), uniqueProgramID: UInt16(bits(16)), availNum: byte(),
                            availsExpected: byte(), reservedBits: UInt8(bits(3)))))
            }
        }

        mutating func section() -> SpliceInfoSection {
            if next(12) == 0 {
                return SpliceInfoSection(
                    payload: .encrypted(
                        EncryptedPayload(
                            spliceCommandLength: UInt16(bits(12)),
                            bytes: [byte(), byte(), byte(), byte()] + bytes(upTo: 30))),
                    ptsAdjustment: bits(33), tier: UInt16(bits(12)), cwIndex: byte(), sapType: UInt8(bits(2)),
                    encryptionAlgorithm: UInt8(bits(6)))
            }
            let command = command()
            let legacy: Bool
            if case .timeSignal = command { legacy = bool() } else { legacy = false }
            return SpliceInfoSection(
                payload: .clear(
                    SpliceContent(
                        command: command, descriptors: (0..<next(4)).map { _ in descriptor() },
                        legacyCommandLength: legacy,
                        alignmentStuffing: next(5) == 0 ? bytes(upTo: 8) : [])),
                ptsAdjustment: bits(33), tier: UInt16(bits(12)), cwIndex: byte(), sapType: UInt8(bits(2)),
                protocolVersion: next(4) == 0 ? byte() : 0)
        }
    }

    static let draws = Gen.uint64().array(of: 1...64)

    @Test("generated sections: decode(encode(s)) == s, and encode(decode(b)) == b")
    func roundTrip() async {
        await propertyCheck(count: 400, input: Self.draws) { values in
            var draws = Draws(values: values)
            let section = draws.section()
            do {
                let bytes = try section.encode()
                let decoded = try SpliceInfoSection.decode(bytes)
                #expect(decoded == section)
                #expect(try decoded.encode() == bytes)
                #expect(try SpliceInfoSection.decode(text: SectionText.base64(bytes)) == section)
                _ = try decoded.renderedJSON()
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("any single-bit flip of a section is detected")
    func singleBitFlips() async {
        await propertyCheck(count: 60, input: Self.draws) { values in
            var draws = Draws(values: values)
            guard let bytes = try? draws.section().encode() else {
                Issue.record("a generated section did not encode")
                return
            }
            for bit in 0..<(bytes.count * 8) {
                var flipped = bytes
                flipped[bit / 8] ^= UInt8(0x80 >> (bit % 8))
                #expect(throws: SCTE35Error.self, "bit \(bit) of \(SectionText.hex(bytes))") {
                    try SpliceInfoSection.decode(flipped)
                }
            }
        }
    }

    @Test("any bytes: decoding never crashes, and what decodes encodes back to the same bytes")
    func anyBytes() async {
        let bytes = Gen.uint8().array(of: 0...80)
        await propertyCheck(count: 500, input: bytes, Gen.uint64().array(of: 1...8)) { tail, values in
            // Half the inputs get a valid header and CRC so decoding goes past the CRC check.
            var input = tail
            if values[0] % 2 == 0, tail.count >= 14 {
                var body = Array(tail[3...])
                body[0] = 0
                input = [0xFC, UInt8(0x30 | (body.count + 4) >> 8), UInt8((body.count + 4) & 0xFF)] + body
                let crc = MPEG2CRC32.checksum(input)
                input += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
            }
            do throws(SCTE35Error) {
                let section = try SpliceInfoSection.decode(input)
                let again = try section.encode()
                #expect(again == input)
            } catch {
                #expect(error.offset >= 0 && error.offset <= input.count)
            }
        }
    }
}
