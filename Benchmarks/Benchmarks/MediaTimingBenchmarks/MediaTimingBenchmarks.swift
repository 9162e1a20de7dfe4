import Benchmark
import Foundation
import MediaTiming

/// Timing of a 6 s, 5 Mbit/s segment, fMP4 (init + media segment in one file) and MPEG-TS, as
/// media-timing-vs-ffprobe.sh makes them in $HLSI_MEDIA_BENCH_DIR (default /tmp/hlsi-media-bench):
/// the whole parse, in-process.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .microseconds, maxDuration: .seconds(5), maxIterations: 2000)

    let directory = ProcessInfo.processInfo.environment["HLSI_MEDIA_BENCH_DIR"] ?? "/tmp/hlsi-media-bench"
    for (name, file) in [("fMP4", "segment-6s-5mbps.mp4"), ("MPEG-TS", "segment-6s-5mbps.ts")] {
        guard let data = FileManager.default.contents(atPath: directory + "/" + file) else {
            print("\(directory)/\(file) is missing: run media-timing-vs-ffprobe.sh first")
            continue
        }
        let bytes = [UInt8](data)
        Benchmark("timing \(name) 6 s 5 Mbit/s (\(bytes.count / 1024) KiB)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try MediaTimingParser.parse(bytes)) }
        }
    }
}
