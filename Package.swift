// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "hls-interstitials",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .visionOS(.v1)],
    products: [
        .library(name: "HLSPlaylist", targets: ["HLSPlaylist"]),
        .library(name: "HLSInterstitials", targets: ["HLSInterstitials"]),
        .library(name: "HLSLoading", targets: ["HLSLoading"]),
        .library(name: "PlaybackCoordination", targets: ["PlaybackCoordination"]),
        .library(name: "PlaybackEngine", targets: ["PlaybackEngine"]),
        .library(name: "InterstitialPlayback", targets: ["InterstitialPlayback"]),
        .library(name: "InterstitialServer", targets: ["InterstitialServer"]),
        .library(name: "SCTE35", targets: ["SCTE35"]),
        .library(name: "AdDecisioning", targets: ["AdDecisioning"]),
        .library(name: "MediaTiming", targets: ["MediaTiming"]),
        .library(name: "MediaValidation", targets: ["MediaValidation"]),
        .executable(name: "hlsi", targets: ["hlsi"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // Pure core: parsing, model, writing, diagnostics, exact time and the bound on user-given times. No I/O.
        .target(name: "HLSPlaylist"),
        // Pure core: the interstitial schema, asset lists, validation, authoring, the schedule and timeline,
        // SCTE-35 signals in playlists, and the event time rules (effective end, early-return limit). No I/O.
        .target(name: "HLSInterstitials", dependencies: ["HLSPlaylist", "SCTE35"]),
        // I/O: loading playlists from files and http(s) URLs, and the stream validator that downloads
        // what it checks (it re-exports MediaValidation, whose types its API uses).
        .target(
            name: "HLSLoading",
            dependencies: [
                "HLSPlaylist",
                "HLSInterstitials",
                "MediaTiming",
                "MediaValidation",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Pure core: SCTE 35 splice_info_section decoding, encoding and rendering. No I/O.
        .target(name: "SCTE35"),
        // The allocator's figures for the server's metrics (glibc's mallinfo2), in C.
        .target(name: "CHeapUsage"),
        // Pure core: VAST/VMAP reading, wrapper resolution, creative selection, macros, SVTA signaling. No I/O.
        .target(name: "AdDecisioning", dependencies: ["HLSPlaylist", "HLSInterstitials"]),
        // Pure core: segment timing from fMP4, MPEG-TS and packed audio (boxes, packets, frame headers), and the
        // fMP4 it writes (decode time shifts, empty subtitle segments). No I/O, no dependencies.
        .target(name: "MediaTiming"),
        // Pure core: the media rules, comparing what MediaTiming measured in segments with what the
        // playlists say (media-extinf, media-av-offset...). No I/O: HLSLoading downloads.
        .target(name: "MediaValidation", dependencies: ["HLSPlaylist", "HLSInterstitials", "MediaTiming"]),
        // Pure core: the coordinated-group protocol, its hub as a value, and hand-off sessions. No I/O.
        .target(name: "PlaybackCoordination", dependencies: ["HLSPlaylist", "HLSInterstitials"]),
        // Pure core: the playback engine, a state machine (inputs in, actions out) on the schedule. No I/O.
        .target(
            name: "PlaybackEngine",
            dependencies: ["HLSPlaylist", "HLSInterstitials", "PlaybackCoordination", "AdDecisioning"]
        ),
        // I/O: the player, the engine's driver that loads over HTTP, keeps time and coordinates groups.
        .target(
            name: "InterstitialPlayback",
            dependencies: [
                "HLSPlaylist",
                "HLSInterstitials",
                "HLSLoading",
                "PlaybackCoordination",
                "PlaybackEngine",
                "MediaTiming",
                "AdDecisioning",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // I/O: the server-guided ad insertion origin (Hummingbird; state in SQLite through GRDB or in PostgreSQL).
        .target(
            name: "InterstitialServer",
            dependencies: [
                "CHeapUsage",
                "HLSPlaylist",
                "HLSInterstitials",
                "HLSLoading",
                "MediaTiming",
                "PlaybackCoordination",
                "SCTE35",
                "AdDecisioning",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [
                .copy("Resources/demo"), .copy("Resources/page"), .copy("Resources/console"),
                .copy("Resources/openapi.json"),
            ]
        ),
        // I/O: the command-line tool over every module above.
        .executableTarget(
            name: "hlsi",
            dependencies: [
                "HLSPlaylist",
                "HLSInterstitials",
                "HLSLoading",
                "InterstitialServer",
                "InterstitialPlayback",
                "PlaybackCoordination",
                "SCTE35",
                "MediaTiming",
                "AdDecisioning",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "HLSPlaylistTests",
            dependencies: [
                "HLSPlaylist",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "SCTE35Tests",
            dependencies: ["SCTE35", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "AdDecisioningTests", dependencies: ["AdDecisioning", "HLSInterstitials", "HLSPlaylist"]),
        .testTarget(name: "MediaTimingTests", dependencies: ["MediaTiming"]),
        .testTarget(
            name: "MediaValidationTests",
            dependencies: ["MediaValidation", "MediaTiming", "HLSInterstitials", "HLSPlaylist"]
        ),
        .testTarget(
            name: "HLSInterstitialsTests",
            dependencies: [
                "HLSInterstitials", "HLSPlaylist", "SCTE35",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "HLSLoadingTests",
            dependencies: [
                "HLSLoading",
                "HLSInterstitials",
                "HLSPlaylist",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "InterstitialServerTests",
            dependencies: [
                "InterstitialServer",
                "AdDecisioning",
                "HLSInterstitials",
                "HLSPlaylist",
                "HLSLoading",
                "MediaTiming",
                "SCTE35",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PlaybackCoordinationTests",
            dependencies: ["PlaybackCoordination", "HLSInterstitials", "HLSPlaylist"]
        ),
        .testTarget(
            name: "InterstitialPlaybackTests",
            dependencies: [
                "InterstitialPlayback",
                "HLSLoading",
                "PlaybackEngine",
                "MediaTiming",
                "PlaybackCoordination",
                "HLSInterstitials",
                "HLSPlaylist",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PlaybackEngineTests",
            dependencies: ["PlaybackEngine", "PlaybackCoordination", "HLSInterstitials", "HLSPlaylist"]
        ),
        .testTarget(
            name: "hlsiTests",
            dependencies: ["hlsi"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
