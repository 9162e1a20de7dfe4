import MediaTiming
import Testing

/// Deterministic mutations of every fixture (byte flips, truncations, sizes and counts set to 0, 1 and
/// 2^32 − 1): reading never crashes, errors and warnings point inside the input, warnings stay capped.
/// Fuzz/MediaTimingFuzzer.swift does the same at random and at length.
@Suite struct MutationTests {
    /// SplitMix64, so every run mutates the same way.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func mutate(_ bytes: [UInt8], _ generator: inout Generator) -> [UInt8] {
        var bytes = bytes
        guard bytes.count > 8 else { return bytes }
        switch generator.next() % 4 {
        case 0:
            for _ in 0..<(1 + Int(generator.next() % 8)) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
        case 1:
            bytes.removeLast(Int(generator.next() % UInt64(bytes.count)))
        case 2:
            let offset = Int(generator.next() % UInt64(bytes.count - 4))
            let value: [UInt8] = [[0, 0, 0, 0], [0, 0, 0, 1], [0xFF, 0xFF, 0xFF, 0xFF]][Int(generator.next() % 3)]
            bytes.replaceSubrange(offset..<(offset + 4), with: value)
        default:
            let start = Int(generator.next() % UInt64(bytes.count))
            let end = min(bytes.count, start + Int(generator.next() % 400))
            bytes.insert(contentsOf: bytes[start..<end], at: Int(generator.next() % UInt64(bytes.count)))
        }
        return bytes
    }

    @Test(arguments: MediaCase.all)
    func mutatedFixturesAreReadSafely(_ fixture: MediaCase) throws {
        let original = try Media.bytes(fixture.file)
        let initSegment = try fixture.`init`.map { try MediaTimingParser.parseInitSegment(try Media.bytes($0)) }
        var generator = Generator(state: fixture.name.utf8.reduce(UInt64(21)) { $0 &* 31 &+ UInt64($1) })
        let expected = try MediaTimingParser.parse(original, initSegment: initSegment)
        var noticed = 0
        for _ in 0..<150 {
            let bytes = Self.mutate(original, &generator)
            do {
                let timing = try MediaTimingParser.parse(bytes, initSegment: initSegment)
                #expect(timing.warnings.count <= MediaTimingParser.maximumWarnings + 1)
                #expect(timing.warnings.allSatisfy { (0...bytes.count).contains($0.offset) })
                if !timing.warnings.isEmpty || timing.tracks != expected.tracks { noticed += 1 }
            } catch {
                noticed += 1
                #expect((0...bytes.count).contains(error.offset), "\(error)")
            }
        }
        // Mutations must be noticed (an error, a warning or other timing) often, or the test mutates nothing that matters (flips inside sample data change nothing).
        #expect(noticed > 50)
    }
}
