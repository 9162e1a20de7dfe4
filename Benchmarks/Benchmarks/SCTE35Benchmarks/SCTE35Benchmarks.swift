import Benchmark
import Foundation
import SCTE35

/// Decoding SCTE-35 sections in-process: a typical ~50-byte section (a time_signal with a break-start
/// segmentation_descriptor) from its bytes and from hex, and the committed corpus (Tests/Fixtures/scte35).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds, maxDuration: .seconds(5), maxIterations: 1_000_000)

    let typical = "0xFC302C000000000000FFFFF00506FE000F424000160214435545490000004D7FFF00002932E00000220000136010CA"
    let typicalBytes = [UInt8](
        stride(from: 2, to: typical.count, by: 2).map { offset in
            let start = typical.index(typical.startIndex, offsetBy: offset)
            return UInt8(typical[start..<typical.index(start, offsetBy: 2)], radix: 16) ?? 0
        })
    Benchmark("decode typical section from bytes (\(typicalBytes.count) bytes)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try SpliceInfoSection.decode(typicalBytes)) }
    }
    Benchmark("decode typical section from hex") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try SpliceInfoSection.decode(text: typical)) }
    }

    let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../../Tests/Fixtures/scte35"
    ).standardized
    var texts: [String] = []
    for folder in ["ours", "threefive"] {
        let directory = corpus.appendingPathComponent(folder)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            if let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) {
                texts.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
    }
    Benchmark("decode corpus (\(texts.count) sections, from hex/base64)") { benchmark in
        for _ in benchmark.scaledIterations {
            for text in texts { blackHole(try? SpliceInfoSection.decode(text: text)) }
        }
    }
}
