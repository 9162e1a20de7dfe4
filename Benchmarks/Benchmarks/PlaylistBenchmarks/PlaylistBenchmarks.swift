import Benchmark
import HLSPlaylist

/// Parse and write of a 100,000-segment VOD playlist (a PROGRAM-DATE-TIME on every segment, an
/// interstitial DATERANGE every 100 segments) and of a 3-hour LL-HLS live playlist.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds, maxDuration: .seconds(10), maxIterations: 30)

    let vod = Array(SyntheticPlaylist.vod(segments: 100_000, interstitialEvery: 100).utf8)
    let live = Array(SyntheticPlaylist.lowLatencyLive(duration: MediaTime(seconds: 3 * 3600)).utf8)

    for (name, bytes) in [("VOD 100k segments", vod), ("LL-HLS live 3 h", live)] {
        Benchmark("parse \(name) (\(bytes.count / 1024) KiB)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(PlaylistParser.parse(bytes)) }
        }
        Benchmark("write \(name)") { benchmark in
            let document = PlaylistParser.parse(bytes).document
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(document.write()) }
        }
    }
}
