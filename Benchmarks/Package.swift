// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The toolkit is the parent folder; SwiftPM names a path dependency after its folder.
let toolkit = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "PlaylistBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HLSPlaylist", package: toolkit.lastPathComponent),
            ],
            path: "Benchmarks/PlaylistBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ScheduleBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HLSPlaylist", package: toolkit.lastPathComponent),
                .product(name: "HLSInterstitials", package: toolkit.lastPathComponent),
            ],
            path: "Benchmarks/ScheduleBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "compare-python",
            dependencies: [.product(name: "HLSPlaylist", package: toolkit.lastPathComponent)]
        ),
        .executableTarget(
            name: "MediaTimingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MediaTiming", package: toolkit.lastPathComponent),
            ],
            path: "Benchmarks/MediaTimingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "SCTE35Benchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SCTE35", package: toolkit.lastPathComponent),
            ],
            path: "Benchmarks/SCTE35Benchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "compare-ffprobe",
            dependencies: [.product(name: "MediaTiming", package: toolkit.lastPathComponent)]
        ),
        .executableTarget(
            name: "compare-threefive",
            dependencies: [.product(name: "SCTE35", package: toolkit.lastPathComponent)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
