import Foundation
import Testing

@testable import InterstitialServer

@Suite("Decode time shift: looped fMP4 segments keep their timestamps running")
struct DecodeTimeShiftTests {
    func demoFile(_ name: String) throws -> [UInt8] {
        let configuration = try ServerConfiguration.demo()
        guard case .directory(let directory) = configuration.vod[0].origin,
            let data = FileManager.default.contents(atPath: directory + "/" + name)
        else { throw APIError.notFound(name) }
        return Array(data)
    }

    /// The base media decode time of the first `tfdt` (version 1).
    func decodeTime(_ bytes: [UInt8]) -> UInt64? {
        let marker = Array("tfdt".utf8)
        guard let at = (0..<(bytes.count - 16)).first(where: { Array(bytes[$0..<($0 + 4)]) == marker }),
            bytes[at + 4] == 1
        else { return nil }
        return bytes[(at + 8)..<(at + 16)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    @Test("The timescale comes from the initialization segment's mdhd")
    func timescales() throws {
        #expect(DecodeTimeShift.timescale(ofInitialization: try demoFile("video/init_0.mp4")) == 12_800)
        #expect(DecodeTimeShift.timescale(ofInitialization: try demoFile("audio-en/init_1.mp4")) == 48_000)
        #expect(DecodeTimeShift.timescale(ofInitialization: Array("not an mp4".utf8)) == nil)
    }

    @Test("A segment's decode time moves by the ticks asked, every other byte unchanged")
    func shifts() throws {
        let segment = try demoFile("video/seg003.m4s")
        let before = try #require(decodeTime(segment))
        #expect(before == 3 * 2 * 12_800)
        let moved = try DecodeTimeShift.shifted(segment, by: 512_000)
        #expect(decodeTime(moved) == before + 512_000)
        #expect(moved.count == segment.count)
        #expect(zip(moved, segment).filter { $0 != $1 }.count <= 8)
    }

    @Test("Malformed or foreign input is refused with the reason, never read past its end")
    func refusals() throws {
        let segment = try demoFile("video/seg003.m4s")
        #expect(throws: DecodeTimeShift.Failure.noDecodeTime) {
            try DecodeTimeShift.shifted(try demoFile("video/init_0.mp4"), by: 1)
        }
        #expect(throws: DecodeTimeShift.Failure.malformed(offset: 0)) {
            try DecodeTimeShift.shifted([0, 0, 0, 200, 109, 111, 111, 102], by: 1)
        }
        #expect(throws: DecodeTimeShift.Failure.overflow) { try DecodeTimeShift.shifted(segment, by: UInt64.max) }
        for cut in stride(from: 1, to: segment.count, by: 97) {
            _ = try? DecodeTimeShift.shifted(Array(segment[..<cut]), by: 1)
        }
    }
}
