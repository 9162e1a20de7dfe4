import ArgumentParser
import Foundation
import HLSPlaylist
import InterstitialServer
import Logging
import ServiceLifecycle

/// `hlsi serve`: the server-guided ad insertion origin.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve HLS content with interstitials, asset lists, an admin API and a web player.",
        discussion: """
            --demo serves the built-in demo (no other file needed): a VOD asset with a pre-roll, two \
            mid-rolls and a post-roll at /demo/vod/master.m3u8, a live channel with a break every \
            minute at /demo/live/master.m3u8, and a page at / that plays them. Otherwise --config \
            names a JSON configuration (see the README). The admin API (/admin/v1) needs \
            --admin-token or HLSI_ADMIN_TOKEN; the demo makes one up and prints it.
            """
    )

    @Flag(name: .long, help: "Serve the built-in demo.")
    var demo = false

    @Option(name: .long, help: "A JSON configuration file.")
    var config: String?

    @Option(name: .long, help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(name: .long, help: "The port to listen on (default 8080; 0 picks one).")
    var port: Int?

    @Option(
        name: .long,
        help:
            "The SQLite database file, or a PostgreSQL URL postgres://user@host:port/db that several servers share (default: $HLSI_DATABASE, else hlsi-server.sqlite; the demo keeps state in memory)."
    )
    var database: String?

    @Option(name: .long, help: "The admin API's bearer token (default: $HLSI_ADMIN_TOKEN).")
    var adminToken: String?

    @Option(
        name: .long,
        help:
            "The URL or local file of an hls.js ES module for the web page to play with (default: none; the page plays with its own controller on the browser's native HLS)."
    )
    var hlsjs: String?

    @Option(
        name: .long,
        help:
            "The scheme://host[:port] viewers use, for the absolute URLs the server writes (required unless --host is a loopback address)."
    )
    var publicURL: String?

    @Option(name: .long, help: "Seconds a client connection may stay idle (default 60).")
    var idleTimeout: Double?

    @Option(name: .long, help: "Seconds a client has to finish a request head once begun (default 10).")
    var headerTimeout: Double?

    @Option(name: .long, help: "Seconds an upstream playlist may take, whole (default 10).")
    var upstreamTimeout: Double?

    @Option(name: .long, help: "The most concurrent requests to one upstream origin (default 32).")
    var upstreamConcurrency: Int?

    @Option(
        name: .long,
        help: "The most connections open at once from one address (default 128; raise it behind a proxy or CDN).")
    var maxConnectionsPerPeer: Int?

    func run() async throws {
        var configuration: ServerConfiguration
        do {
            switch (demo, config) {
            case (true, nil): configuration = try ServerConfiguration.demo()
            case (false, let path?):
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CommandFailure(message: "error: cannot read the configuration \(path)", exitCode: 2)
                }
                let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
                configuration = try ServerConfiguration.decode(Array(data), base: base)
            case (true, .some): throw ValidationError("give --demo or --config, not both")
            case (false, nil): throw ValidationError("give --demo, or --config FILE")
            }
        } catch let error as APIError {
            throw CommandFailure(message: "error: \(config ?? "demo"): \(error)", exitCode: 2)
        }
        if let host { configuration.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
            configuration.port = port
        }
        // HLSI_DATABASE stands in for --database, except for the demo, which stays in memory.
        if let database = database ?? (demo ? nil : ProcessInfo.processInfo.environment["HLSI_DATABASE"]) {
            configuration.database = database
        }
        do {
            _ = try StoreLocation(configuration.database)
        } catch {
            throw CommandFailure(message: "error: \(error)", exitCode: 2)
        }
        if let hlsjs {
            configuration.hlsjs =
                hlsjs.contains("://") ? hlsjs : URL(fileURLWithPath: hlsjs).standardizedFileURL.path
        }
        if let module = configuration.hlsjs, !module.contains("://"), !FileManager.default.fileExists(atPath: module) {
            throw CommandFailure(message: "error: the hls.js module \(module) does not exist", exitCode: 2)
        }
        if let publicURL { configuration.publicURL = publicURL }
        for (value, name, keyPath) in [
            (idleTimeout, "--idle-timeout", \ServerLimits.idleTimeout),
            (headerTimeout, "--header-timeout", \ServerLimits.headerTimeout),
            (upstreamTimeout, "--upstream-timeout", \ServerLimits.upstreamTimeout),
        ] {
            guard let value else { continue }
            guard value > 0, value < 86400 else {
                throw ValidationError("\(name) must be more than 0 seconds and less than a day")
            }
            configuration.limits[keyPath: keyPath] = MediaTime(seconds: value)
        }
        if let upstreamConcurrency {
            guard upstreamConcurrency > 0 else { throw ValidationError("--upstream-concurrency must be at least 1") }
            configuration.limits.upstreamConcurrency = upstreamConcurrency
        }
        if let maxConnectionsPerPeer {
            guard maxConnectionsPerPeer > 0 else {
                throw ValidationError("--max-connections-per-peer must be at least 1")
            }
            configuration.limits.maxConnectionsPerPeer = maxConnectionsPerPeer
        }
        do {
            try configuration.check()
        } catch {
            throw CommandFailure(message: "error: \(error)", exitCode: 2)
        }
        var logger = Logger(label: "hlsi.serve")
        logger.logLevel = .info
        if let token = adminToken ?? ProcessInfo.processInfo.environment["HLSI_ADMIN_TOKEN"] {
            configuration.adminToken = token
        } else if demo {
            var generator = SystemRandomNumberGenerator()
            let token = Self.demoToken(using: &generator)
            configuration.adminToken = token
            logger.info("admin API token (demo): \(token)")
        }
        let server: InterstitialServer
        do {
            server = try InterstitialServer(configuration: configuration, logger: logger)
        } catch let error as APIError {
            throw CommandFailure(message: "error: \(error)", exitCode: 2)
        } catch let error as StoreError {
            throw CommandFailure(message: "error: \(error)", exitCode: 2)
        } catch {
            throw CommandFailure(message: "error: cannot start the server: \(error)", exitCode: 2)
        }
        if demo {
            let address = "http://\(configuration.host):\(configuration.port)"
            logger.info(
                "demo: open \(address)/ — VOD \(address)/demo/vod/master.m3u8, live \(address)/demo/live/master.m3u8")
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            throw CommandFailure(message: "error: the server stopped: \(error)", exitCode: 2)
        }
    }

    /// A demo admin token: 128 random bits as 32 hexadecimal digits (leading zeros kept).
    static func demoToken(using generator: inout some RandomNumberGenerator) -> String {
        (0..<2).map { _ in
            let digits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
