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
            names a JSON configuration (every key: docs/configuration.md); --dry-run checks it, \
            prints every target's URL and exits (0, or 1 with the error). The server binds its port \
            first, then prints the URLs of its targets. The admin API (/admin/v1) needs \
            --admin-token or HLSI_ADMIN_TOKEN; the demo makes one up and prints it.
            """
    )

    @Flag(name: .long, help: "Serve the built-in demo.")
    var demo = false

    @Option(name: .long, help: "A JSON configuration file (every key: docs/configuration.md).")
    var config: String?

    @Flag(
        name: .long,
        help:
            "Check the configuration (with the other options and its directories), print every target's URL and exit: 0, or 1 with the error."
    )
    var dryRun = false

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
        do {
            try await start()
        } catch var failure as CommandFailure where dryRun {
            // A dry run's verdict: 1 for any problem it finds (usage errors stay 2).
            failure.exitCode = 1
            throw failure
        }
    }

    /// Checks the configuration and, unless `--dry-run`, serves it.
    private func start() async throws {
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
            try configuration.checkFiles()
        } catch {
            throw CommandFailure(message: "error: \(config ?? "demo"): \(error)", exitCode: 2)
        }
        for warning in configuration.seedWarnings + configuration.trackingNotes {
            Output.standardError("\(config ?? "demo"): \(warning)")
        }
        if dryRun {
            let targets = configuration.targetURLs(port: configuration.port)
            Output.standardOutput("\(config ?? "demo"): OK, \(targets.count) target\(targets.count == 1 ? "" : "s")\n")
            for target in targets { Output.standardOutput("\(target.target)  \(target.url)\n") }
            return
        }
        var logger = Logger(label: "hlsi.serve")
        logger.logLevel = .info
        if let token = adminToken ?? ProcessInfo.processInfo.environment["HLSI_ADMIN_TOKEN"] {
            configuration.adminToken = token
        } else if demo {
            var generator = SystemRandomNumberGenerator()
            configuration.adminToken = Self.demoToken(using: &generator)
        }
        // Printed once the port is bound: a taken port prints none of it (no token, no URL of
        // another server's page).
        let announce = Self.announcement(
            configuration, demo: demo,
            generatedToken: demo && adminToken == nil
                && ProcessInfo.processInfo.environment["HLSI_ADMIN_TOKEN"] == nil)
        let server: InterstitialServer
        do {
            server = try InterstitialServer(
                configuration: configuration, logger: logger,
                onServerRunning: { [logger] port in
                    for line in announce(port) { logger.info("\(line)") }
                })
        } catch let error as APIError {
            throw CommandFailure(message: "error: \(error)", exitCode: 2)
        } catch let error as StoreError {
            throw CommandFailure(message: "error: \(error)", exitCode: 2)
        } catch {
            throw CommandFailure(message: "error: cannot start the server: \(error)", exitCode: 2)
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            if let taken = PortInUse(error, host: configuration.host, port: configuration.port) {
                throw CommandFailure(message: "error: \(taken)", exitCode: 2)
            }
            throw CommandFailure(message: "error: the server stopped: \(error)", exitCode: 2)
        }
    }

    /// The lines printed once the server listens on `port`: the demo's token and page, then every
    /// target's URL.
    static func announcement(
        _ configuration: ServerConfiguration, demo: Bool, generatedToken: Bool
    ) -> @Sendable (Int) -> [String] {
        { port in
            var lines: [String] = []
            if generatedToken, let token = configuration.adminToken { lines.append("admin API token (demo): \(token)") }
            let targets = configuration.targetURLs(port: port)
            if demo {
                let base = configuration.baseURL(port: port)
                let vod = targets.first { $0.target.kind == .vod }?.url ?? ""
                let live = targets.first { $0.target.kind == .live }?.url ?? ""
                lines.append("demo: open \(base)/ — VOD \(vod), live \(live)")
            }
            for target in targets { lines.append("\(target.target): \(target.url)") }
            return lines
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
