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
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 1.37.0: a request's local address (viewers spread over loopback addresses).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
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
        // The live-break herd: virtual viewers and a rate-limited VAST ad server (issue 32).
        .executableTarget(
            name: "herd",
            dependencies: [
                .product(name: "HLSPlaylist", package: toolkit.lastPathComponent),
                .product(name: "HLSInterstitials", package: toolkit.lastPathComponent),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "herd",
            exclude: ["run.sh", "README.md"]
        ),
        .executableTarget(
            name: "compare-threefive",
            dependencies: [.product(name: "SCTE35", package: toolkit.lastPathComponent)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
