import Foundation
import MediaTiming
import Testing

@Suite("Decode time shift: looped fMP4 segments keep their timestamps running")
struct DecodeTimeShiftTests {
    /// A file of the server's demo media.
    func demoFile(_ name: String) throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = root.appendingPathComponent("Sources/InterstitialServer/Resources/demo/primary/" + name)
        return Array(try Data(contentsOf: url))
    }

    @Test("The timescale comes from the initialization segment's mdhd")
    func timescales() throws {
        #expect(DecodeTimeShift.timescale(ofInitialization: try demoFile("video/init_0.mp4")) == 12_800)
        #expect(DecodeTimeShift.timescale(ofInitialization: try demoFile("audio-en/init_1.mp4")) == 48_000)
        #expect(DecodeTimeShift.timescale(ofInitialization: Array("not an mp4".utf8)) == nil)
    }

    @Test("A segment's decode time moves by the ticks asked, every other byte unchanged")
    func shifts() throws {
        let initSegment = try MediaTimingParser.parseInitSegment(try demoFile("video/init_0.mp4"))
        let segment = try demoFile("video/seg003.m4s")
        let before = try MediaTimingParser.parse(segment, initSegment: initSegment)
        #expect(before.tracks.first?.decodeStart.seconds == 6)
        let moved = try DecodeTimeShift.shifted(segment, by: 512_000)
        let after = try MediaTimingParser.parse(moved, initSegment: initSegment)
        #expect(after.tracks.first?.decodeStart.seconds == 46)
        #expect(after.tracks.first?.duration == before.tracks.first?.duration)
        #expect(moved.count == segment.count)
        #expect(zip(moved, segment).filter { $0 != $1 }.count <= 8)
    }

    @Test("Malformed or foreign input is refused with a located error, never read past its end")
    func refusals() throws {
        let segment = try demoFile("video/seg003.m4s")
        let noFragment = #expect(throws: MediaTimingError.self) {
            try DecodeTimeShift.shifted(try demoFile("video/init_0.mp4"), by: 1)
        }
        #expect(noFragment?.code == .missingDecodeTime)
        let bad = #expect(throws: MediaTimingError.self) {
            try DecodeTimeShift.shifted([0, 0, 0, 200, 109, 111, 111, 102], by: 1)
        }
        #expect(bad?.offset == 0)
        let overflow = #expect(throws: MediaTimingError.self) { try DecodeTimeShift.shifted(segment, by: UInt64.max) }
        #expect(overflow?.path.hasSuffix("tfdt") == true)
        for cut in stride(from: 1, to: segment.count, by: 97) {
            _ = try? DecodeTimeShift.shifted(Array(segment[..<cut]), by: 1)
        }
    }
}
