import MediaTiming
import Testing

/// MPEG-TS timing on streams built for the case: the 33-bit wrap and key frame detection.
@Suite struct TransportStreamTimingTests {
    typealias Builder = TransportStreamBuilder

    /// Five H.264 frames 3600 ticks (40 ms) apart whose PTS wraps after the second.
    static func wrappingStream(firstSlice: UInt8) -> [UInt8] {
        var bytes = Builder.tables([(0x1B, 0x100)])
        let first: UInt64 = (1 << 33) - 7200
        for index in 0..<5 {
            let pts = (first + UInt64(index) * 3600) & ((1 << 33) - 1)
            let slice: UInt8 = index == 0 ? firstSlice : 1
            bytes += Builder.pes(
                pid: 0x100, counter: UInt8(index), pts: pts, data: Builder.accessUnit(sliceType: slice))
        }
        return bytes
    }

    @Test func timestampsUnwrapAcross33Bits() throws {
        let timing = try MediaTimingParser.parse(Self.wrappingStream(firstSlice: 5))
        let video = try #require(timing.track(.video))
        #expect(video.presentationStart.value == (1 << 33) - 7200)
        #expect(video.duration.value == 5 * 3600)
        #expect(video.sampleCount == 5)
        #expect(video.startsWithKeyFrame == true)
        #expect(video.codec == "avc1.64001f")
        #expect(timing.warnings.isEmpty)
    }

    @Test func nonIDRFirstSliceIsNoKeyFrame() throws {
        let timing = try MediaTimingParser.parse(Self.wrappingStream(firstSlice: 1))
        #expect(timing.track(.video)?.startsWithKeyFrame == false)
    }

    @Test func streamsWrappingAtDifferentPacketsStayComparable() throws {
        // Audio's first PTS has wrapped already while video's has not: both start near 2^33.
        var bytes = Builder.tables([(0x1B, 0x100), (0x0F, 0x101)])
        bytes += Builder.pes(pid: 0x100, counter: 0, pts: (1 << 33) - 900, data: Builder.accessUnit(sliceType: 5))
        let adts: [UInt8] = [0xFF, 0xF1, 0x4C, 0x40, 0x01, 0x7F, 0xFC] + [UInt8](repeating: 0, count: 4)
        bytes += Builder.packet(
            pid: 0x101, unitStart: true, counter: 0,
            payload: [0, 0, 1, 0xC0, 0, 0, 0x80, 0x80, 5] + Builder.timestamp(900, prefix: 2) + adts)
        let timing = try MediaTimingParser.parse(bytes)
        let video = try #require(timing.track(.video))
        let audio = try #require(timing.track(.audio))
        #expect(audio.presentationStart.value - video.presentationStart.value == 1800)
        #expect(audio.sampleCount == 1)
        #expect(audio.sampleRate == 48000)
        #expect(audio.duration.value == 1024 * 90000 / 48000)
    }

    @Test func randomAccessIndicatorWithoutSlice() throws {
        var bytes = Builder.tables([(0x1B, 0x100)])
        bytes += Builder.pes(pid: 0x100, counter: 0, pts: 0, data: [0, 0, 1, 0x09, 0xF0], randomAccess: true)
        #expect(try MediaTimingParser.parse(bytes).track(.video)?.startsWithKeyFrame == true)
    }

    @Test func payloadBeforeTheFirstPESHeaderIsCounted() throws {
        var bytes = Builder.tables([(0x1B, 0x100)])
        bytes += Builder.packet(pid: 0x100, unitStart: false, counter: 0, payload: [UInt8](repeating: 7, count: 184))
        bytes += Builder.pes(pid: 0x100, counter: 1, pts: 0, data: Builder.accessUnit(sliceType: 5))
        let timing = try MediaTimingParser.parse(bytes)
        #expect(timing.warnings.map(\.code) == [.orphanPayload])
        #expect(timing.warnings.first?.message.hasPrefix("184 bytes") == true)
    }
}
