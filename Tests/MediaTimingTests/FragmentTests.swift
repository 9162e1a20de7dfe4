import MediaTiming
import Testing

/// Movie fragments built for the case: every combination of `trun` per-sample fields, with and
/// without `first_sample_flags`, `tfhd` defaults over `trex` defaults, and signed composition offsets.
@Suite struct FragmentTests {
    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> UInt32(24 - 8 * $0)) & 0xFF) } }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func fullBox(_ type: String, version: UInt8, flags: UInt32, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8((flags >> 16) & 0xFF), UInt8((flags >> 8) & 0xFF), UInt8(flags & 0xFF)] + payload)
    }

    /// Track 1 at 1000 ticks per second, whose `trex` gives duration 5, size 40 and non-sync flags.
    static let initSegment = InitSegment(
        movieTimescale: 1000, isFragmented: true,
        tracks: [
            TrackDescription(
                trackID: 1, kind: .video, handlerType: "vide", timescale: 1000,
                duration: TimescaledTime(value: 0, timescale: 1000), sampleEntryType: "avc1",
                fragmentDefaults: TrackFragmentDefaults(sampleDuration: 5, sampleSize: 40, sampleFlags: nonSync))
        ])

    static let sync: UInt32 = 0x0200_0000  // sample_depends_on 2: an I picture
    static let nonSync: UInt32 = 0x0101_0000  // depends on others, non-sync

    /// Three samples: durations 10, 20, 30; sizes 100, 200, 300; flags sync, non-sync, non-sync;
    /// composition offsets 20, −10, 0.
    struct Layout: Sendable, CustomTestStringConvertible {
        var fields: UInt32  // 0x100 duration, 0x200 size, 0x400 flags, 0x800 composition offset
        var firstSampleFlags: Bool
        var tfhdDefaults: Bool
        var version: UInt8

        var testDescription: String {
            "fields 0x\(String(fields, radix: 16)) first \(firstSampleFlags) tfhd \(tfhdDefaults) v\(version)"
        }

        static let all: [Layout] = (0..<16).flatMap { bits in
            [false, true].flatMap { first in
                [false, true].flatMap { tfhd in
                    [0, 1].map {
                        Layout(fields: UInt32(bits) << 8, firstSampleFlags: first, tfhdDefaults: tfhd, version: $0)
                    }
                }
            }
        }

        var durations: [UInt32] {
            fields & 0x100 != 0 ? [10, 20, 30] : [UInt32](repeating: tfhdDefaults ? 7 : 5, count: 3)
        }
        var sizes: [UInt32] {
            fields & 0x200 != 0 ? [100, 200, 300] : [UInt32](repeating: tfhdDefaults ? 50 : 40, count: 3)
        }
        var offsets: [Int64] {
            guard fields & 0x800 != 0 else { return [0, 0, 0] }
            return version == 1 ? [20, -10, 0] : [20, Int64(UInt32(bitPattern: -10)), 0]
        }
        var firstIsSync: Bool {
            if firstSampleFlags { return true }  // first_sample_flags: sync
            if fields & 0x400 != 0 { return true }  // the first sample's own flags: sync
            return tfhdDefaults  // tfhd default: sync; trex default: non-sync
        }

        func segment(decodeTime: UInt64) -> [UInt8] {
            var tfhdFlags: UInt32 = 0x2_0000  // default-base-is-moof
            var tfhd = be32(1)
            if tfhdDefaults {
                tfhdFlags |= 0x8 | 0x10 | 0x20
                tfhd += be32(7) + be32(50) + be32(FragmentTests.sync)
            }
            func moof(dataOffset: UInt32) -> [UInt8] {
                var trun = be32(3) + be32(dataOffset)
                if firstSampleFlags { trun += be32(FragmentTests.sync) }
                for index in 0..<3 {
                    if fields & 0x100 != 0 { trun += be32([10, 20, 30][index]) }
                    if fields & 0x200 != 0 { trun += be32([100, 200, 300][index]) }
                    if fields & 0x400 != 0 { trun += be32(index == 0 ? FragmentTests.sync : FragmentTests.nonSync) }
                    if fields & 0x800 != 0 { trun += be32(UInt32(bitPattern: [20, -10, 0][index])) }
                }
                let traf = box(
                    "traf",
                    fullBox("tfhd", version: 0, flags: tfhdFlags, tfhd)
                        + fullBox(
                            "tfdt", version: 1, flags: 0,
                            (0..<8).map { UInt8((decodeTime >> UInt64(56 - 8 * $0)) & 0xFF) })
                        + fullBox("trun", version: version, flags: 0x1 | (firstSampleFlags ? 0x4 : 0) | fields, trun))
                return box("moof", fullBox("mfhd", version: 0, flags: 0, be32(7)) + traf)
            }
            let size = moof(dataOffset: 0).count
            let data = [UInt8](repeating: 0, count: Int(sizes.reduce(0, +)))
            return moof(dataOffset: UInt32(size + 8)) + box("mdat", data)
        }
    }

    @Test(arguments: Layout.all)
    func trunFieldsDefaultsAndFirstSampleFlags(_ layout: Layout) throws {
        let decode: Int64 = 90_000
        let timing = try MediaTimingParser.parse(
            layout.segment(decodeTime: UInt64(decode)), initSegment: Self.initSegment)
        let track = try #require(timing.tracks.first)
        #expect(timing.sequenceNumber == 7)
        #expect(timing.warnings.isEmpty)
        #expect(track.sampleCount == 3)
        #expect(track.decodeStart.value == decode)
        #expect(track.duration.value == Int64(layout.durations.reduce(0, +)))
        #expect(track.byteCount == Int(layout.sizes.reduce(0, +)))
        #expect(track.startsWithKeyFrame == layout.firstIsSync)
        var time = decode
        var earliest = Int64.max
        for (duration, offset) in zip(layout.durations, layout.offsets) {
            earliest = min(earliest, time + offset)
            time += Int64(duration)
        }
        #expect(track.presentationStart.value == earliest)
    }

    @Test func sampleDataPastTheInputIsAWarning() throws {
        let layout = Layout(fields: 0x300, firstSampleFlags: false, tfhdDefaults: false, version: 0)
        // An mdat of size 0 (to the end) that holds 100 bytes less than the run's 600.
        var bytes = Array(layout.segment(decodeTime: 0).dropLast(100))
        let mdat = bytes.count - 508
        #expect(bytes[(mdat + 4)..<(mdat + 8)].elementsEqual("mdat".utf8))
        bytes.replaceSubrange(mdat..<(mdat + 4), with: [0, 0, 0, 0])
        let timing = try MediaTimingParser.parse(bytes, initSegment: Self.initSegment)
        #expect(timing.warnings.map(\.code) == [.sampleDataOutside])
        #expect(timing.warnings.first?.path == "moof/traf[1]/trun")
    }
}
