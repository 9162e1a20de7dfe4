import Foundation
import MediaTiming
import Testing

/// Broken input gets a located, typed error (or a warning when reading can go on), never a crash.
@Suite struct MalformedInputTests {
    /// The offset of the first box of type `type` (the 4 bytes before the type).
    static func boxOffset(_ type: String, in bytes: [UInt8]) throws -> Int {
        let pattern = Array(type.utf8)
        let index = try #require(
            (4..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(pattern) })
        return index - 4
    }

    static func write32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8((value >> UInt32(24 - 8 * index)) & 0xFF) }
    }

    static func initSegment() throws -> InitSegment {
        try MediaTimingParser.parseInitSegment(try Media.bytes("fmp4-muxed/init.mp4"))
    }

    static func segment() throws -> [UInt8] { try Media.bytes("fmp4-muxed/seg0.m4s") }

    /// The error `parse` throws.
    static func error(_ bytes: [UInt8], initSegment: InitSegment? = nil) -> MediaTimingError? {
        do {
            _ = try MediaTimingParser.parse(bytes, initSegment: initSegment)
            return nil
        } catch {
            return error
        }
    }

    @Test func truncatedInitSegment() throws {
        let bytes = try Media.bytes("fmp4-muxed/init.mp4")
        let moov = try Self.boxOffset("moov", in: bytes)
        let error = try #require(Self.error(Array(bytes.prefix(bytes.count - 100))))
        #expect(error.code == .truncated)
        #expect(error.offset == moov)
        #expect(error.path == "moov")
    }

    @Test func truncatedMediaSegment() throws {
        let bytes = try Self.segment()
        let moof = try Self.boxOffset("moof", in: bytes)
        let error = try #require(Self.error(Array(bytes.prefix(moof + 100)), initSegment: try Self.initSegment()))
        #expect(error.code == .truncated)
        #expect(error.offset == moof)
        #expect(error.path == "moof")
    }

    @Test(arguments: [4, 7])
    func boxSmallerThanItsHeader(_ size: UInt32) throws {
        var bytes = try Self.segment()
        let tfdt = try Self.boxOffset("tfdt", in: bytes)
        Self.write32(size, at: tfdt, in: &bytes)
        let error = try #require(Self.error(bytes, initSegment: try Self.initSegment()))
        #expect(error.code == .boxSize)
        #expect(error.offset == tfdt)
        #expect(error.path == "moof/traf[1]/tfdt")
        #expect(error.description.hasPrefix("byte \(tfdt) (moof/traf[1]/tfdt): [media-box-size]"))
    }

    @Test func childLargerThanItsParent() throws {
        var bytes = try Self.segment()
        let tfdt = try Self.boxOffset("tfdt", in: bytes)
        Self.write32(0x7FFF, at: tfdt, in: &bytes)
        let error = try #require(Self.error(bytes, initSegment: try Self.initSegment()))
        #expect(error.code == .boxSize)
        #expect(error.path == "moof/traf[1]/tfdt")
    }

    @Test func sizeZeroRunsToTheEnd() throws {
        var bytes = try Self.segment()
        let mdat = try Self.boxOffset("mdat", in: bytes)
        let initSegment = try Self.initSegment()
        let expected = try MediaTimingParser.parse(bytes, initSegment: initSegment)
        Self.write32(0, at: mdat, in: &bytes)
        #expect(try MediaTimingParser.parse(bytes, initSegment: initSegment) == expected)
    }

    @Test func sizeOneReadsTheLargeSize() throws {
        let original = try Self.segment()
        let moof = try Self.boxOffset("moof", in: original)
        let size = Int(original[moof..<(moof + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        // The same moof with a 16-byte header: size 1, type, 64-bit largesize.
        var large = Array(original[..<moof]) + [0, 0, 0, 1] + Array("moof".utf8)
        large += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(size + 8) >> UInt64(56 - 8 * $0)) }
        large += original[(moof + 8)...]
        let initSegment = try Self.initSegment()
        let expected = try MediaTimingParser.parse(original, initSegment: initSegment)
        let timing = try MediaTimingParser.parse(large, initSegment: initSegment)
        #expect(timing.tracks.map(\.duration) == expected.tracks.map(\.duration))
        #expect(timing.tracks.map(\.byteCount) == expected.tracks.map(\.byteCount))
        // A largesize smaller than the 16-byte header.
        for index in 0..<8 { large[moof + 8 + index] = index == 7 ? 10 : 0 }
        let error = try #require(Self.error(large, initSegment: initSegment))
        #expect(error.code == .boxSize)
        #expect(error.offset == moof)
    }

    @Test func sizeOneWithoutRoomForTheLargeSize() throws {
        let bytes: [UInt8] = [0, 0, 0, 1] + Array("moof".utf8) + [0, 0]
        let error = try #require(Self.error(bytes, initSegment: try Self.initSegment()))
        #expect(error.code == .truncated)
        #expect(error.offset == 0)
    }

    @Test func trunSampleCountOverrunsTheBox() throws {
        var bytes = try Self.segment()
        let trun = try Self.boxOffset("trun", in: bytes)
        Self.write32(0x00FF_FFFF, at: trun + 12, in: &bytes)
        let error = try #require(Self.error(bytes, initSegment: try Self.initSegment()))
        #expect(error.code == .sampleCountOverrun)
        #expect(error.offset == trun + 12)
        #expect(error.path == "moof/traf[1]/trun")
    }

    @Test func hugeSampleCountWithoutPerSampleFieldsCostsNothing() throws {
        var bytes = try Self.segment()
        let trun = try Self.boxOffset("trun", in: bytes)
        // flags: data offset only, so every sample takes the defaults; count 2^32 - 1.
        Self.write32(0x0000_0001, at: trun + 8, in: &bytes)
        Self.write32(0xFFFF_FFFF, at: trun + 12, in: &bytes)
        let timing = try MediaTimingParser.parse(bytes, initSegment: try Self.initSegment())
        #expect(timing.tracks.first?.sampleCount == 0xFFFF_FFFF)
        #expect(timing.warnings.map(\.code).contains(.sampleDataOutside))
    }

    @Test func trackMissingFromTheInitSegment() throws {
        var bytes = try Self.segment()
        let tfhd = try Self.boxOffset("tfhd", in: bytes)
        Self.write32(9, at: tfhd + 12, in: &bytes)
        let error = try #require(Self.error(bytes, initSegment: try Self.initSegment()))
        #expect(error.code == .unknownTrack)
        #expect(error.path == "moof/traf[1]/tfhd")
        #expect(error.offset == tfhd)
    }

    @Test func mediaSegmentWithoutInitSegment() throws {
        let bytes = try Self.segment()
        let error = try #require(Self.error(bytes))
        #expect(error.code == .initSegmentRequired)
        #expect(error.offset == (try Self.boxOffset("moof", in: bytes)))
    }

    @Test func missingDecodeTimeIsAWarning() throws {
        var bytes = try Self.segment()
        let tfdt = try Self.boxOffset("tfdt", in: bytes)
        for (index, byte) in "free".utf8.enumerated() { bytes[tfdt + 4 + index] = byte }
        let timing = try MediaTimingParser.parse(bytes, initSegment: try Self.initSegment())
        #expect(timing.warnings.map(\.code) == [.missingDecodeTime])
        #expect(timing.warnings.first?.path == "moof/traf[1]")
    }

    @Test func badSyncByte() throws {
        var bytes = try Media.bytes("ts/seg0.ts")
        bytes[188 * 5] = 0x48
        let error = try #require(Self.error(bytes))
        #expect(error.code == .syncByte)
        #expect(error.offset == 940)
        #expect(error.path == "packet 5")
    }

    @Test func partialLastPacket() throws {
        let bytes = try Media.bytes("ts/seg0.ts") + [0x47, 0, 0]
        let timing = try MediaTimingParser.parse(bytes)
        #expect(timing.warnings.map(\.code) == [.partialPacket])
        #expect(timing.warnings.first?.offset == bytes.count - 3)
    }

    @Test func lostPacketBreaksTheContinuityCounter() throws {
        let bytes = try Media.bytes("ts/seg0.ts")
        let video = try #require(try MediaTimingParser.parse(bytes).track(.video))
        // Drop the first video packet after packet 10 that does not start a PES packet.
        let index = try #require(
            (10..<(bytes.count / 188)).first {
                let start = $0 * 188
                let pid = UInt32(bytes[start + 1] & 0x1F) << 8 | UInt32(bytes[start + 2])
                return pid == video.id && bytes[start + 1] & 0x40 == 0
            })
        let cut = Array(bytes[..<(index * 188)] + bytes[((index + 1) * 188)...])
        let timing = try MediaTimingParser.parse(cut)
        #expect(timing.warnings.map(\.code) == [.continuity])
        #expect(timing.warnings.first?.offset == index * 188 + 3)
        #expect(timing.track(.video)?.byteCount == video.byteCount - 184)
    }

    @Test func transportStreamWithoutProgramTables() throws {
        let bytes = try Media.bytes("ts/seg0.ts")
        var kept: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 188)
        where bytes[start + 1] & 0x1F != 0 || bytes[start + 2] != 0 {
            kept += bytes[start..<(start + 188)]
        }
        let error = try #require(Self.error(kept))
        #expect(error.code == .missingProgramTable)
    }

    @Test func packedAudioWithoutTimestamp() throws {
        let bytes = try Media.bytes("packed/audio.aac")
        let tagLength = 10 + Int(bytes[6]) << 21 + Int(bytes[7]) << 14 + Int(bytes[8]) << 7 + Int(bytes[9])
        let timing = try MediaTimingParser.parse(Array(bytes[tagLength...]))
        #expect(timing.warnings.map(\.code) == [.missingTimestamp])
        #expect(timing.tracks.first?.presentationStart.value == 0)
        #expect(timing.id3Timestamp == nil)
    }

    @Test func packedAudioTruncatedInTheLastFrame() throws {
        let bytes = try Media.bytes("packed/audio.aac")
        let whole = try MediaTimingParser.parse(bytes)
        let timing = try MediaTimingParser.parse(Array(bytes.dropLast(10)))
        #expect(timing.warnings.map(\.code) == [.truncated])
        #expect(timing.tracks.first?.sampleCount == (whole.tracks.first?.sampleCount ?? 0) - 1)
    }

    @Test func packedAudioGarbageBetweenFrames() throws {
        let bytes = try Media.bytes("packed/audio.mp3")
        let whole = try MediaTimingParser.parse(bytes)
        let timing = try MediaTimingParser.parse(bytes + [1, 2, 3, 4, 5])
        #expect(timing.warnings.map(\.code) == [.skippedBytes])
        #expect(timing.warnings.first?.offset == bytes.count)
        #expect(timing.tracks == whole.tracks)
    }

    @Test func id3SizeThatIsNotSyncsafe() throws {
        var bytes = try Media.bytes("packed/audio.aac")
        bytes[7] = 0x80
        let error = try #require(Self.error(bytes))
        #expect(error.code == .id3Tag)
        #expect(error.offset == 6)
    }

    @Test(arguments: [[], Array("hello, world".utf8), [UInt8](repeating: 0, count: 64)])
    func unknownFormat(_ bytes: [UInt8]) throws {
        let error = try #require(Self.error(bytes))
        #expect(error.code == .unknownFormat)
    }
}
