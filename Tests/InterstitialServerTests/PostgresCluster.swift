import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// A real PostgreSQL cluster for the store's tests, started once per test process in a temporary
/// directory, as an unprivileged user, and stopped when the process exits.
///
/// It listens only on a Unix socket in its own directory (no TCP port, so test runs and servers on
/// this machine never collide). `initdb` and `pg_ctl` are looked up in `/usr/lib/postgresql/*/bin`,
/// then `/usr/local/bin` and `/usr/bin`; as root they run as `nobody` through `runuser` (PostgreSQL
/// refuses to run as root). Each test asks for a database of its own (``database()``).
enum PostgresCluster {
    /// A running cluster.
    struct Running: Sendable {
        /// The temporary directory: the data, the socket and the log.
        var directory: String
        /// Where `initdb`, `pg_ctl` and `createdb` are.
        var binaries: String
    }

    /// The cluster, started on first use; the failure says why PostgreSQL cannot run here.
    static let started = Task { () -> Result<Running, StartFailure> in
        do {
            return .success(try await start())
        } catch let failure as StartFailure {
            FileHandle.standardError.write(Data("PostgreSQL store tests skipped: \(failure.reason)\n".utf8))
            return .failure(failure)
        } catch {
            return .failure(StartFailure(reason: "\(error)"))
        }
    }

    /// Why the cluster did not start.
    struct StartFailure: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Why PostgreSQL cases are skipped, or nil when the cluster runs.
    static func unavailability() async -> String? {
        if case .failure(let failure) = await started.value { return failure.reason }
        return nil
    }

    /// A new, empty database on the cluster.
    ///
    /// - Throws: ``StartFailure`` when the cluster cannot run (callers skip first, see
    ///   ``unavailability()``), or when `createdb` fails.
    static func database() async throws -> PostgresLocation {
        let running = try await started.value.get()
        let name = "hlsi_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await run(
            running.binaries + "/createdb", ["-h", running.directory, "-p", "\(port)", "-U", user, name],
            log: running.directory + "/createdb.log")
        return try PostgresLocation(url: "postgres://\(user)@localhost:\(port)/\(name)?host=\(running.directory)")
    }

    /// The superuser `initdb` creates.
    static let user = "hlsi"
    /// The port, which only names the socket file (`.s.PGSQL.5432` in the cluster's directory).
    static let port = 5432

    /// Data directories to stop when the process exits.
    private static let toStop = NIOLockedValueBox<[(binaries: String, directory: String)]>([])

    /// A cluster of its own, for a test that stops and starts it (``stop(_:)``, ``restart(_:)``); it
    /// is stopped when the process exits too.
    static func startPrivate() async throws -> Running {
        guard await unavailability() == nil else { throw StartFailure(reason: "PostgreSQL cannot be started") }
        return try await start()
    }

    /// The location of the cluster's `postgres` database.
    static func location(_ running: Running) throws -> PostgresLocation {
        try PostgresLocation(url: "postgres://\(user)@localhost:\(port)/postgres?host=\(running.directory)")
    }

    /// Stops a cluster at once (as a crash or a network failure would look to its clients).
    static func stop(_ running: Running) async throws {
        try await run(
            running.binaries + "/pg_ctl", ["-D", running.directory + "/data", "-m", "immediate", "-w", "stop"],
            log: running.directory + "/setup.log", asServer: true)
    }

    /// Starts a stopped cluster again.
    static func restart(_ running: Running) async throws {
        try await run(
            running.binaries + "/pg_ctl", startArguments(running.directory), log: running.directory + "/setup.log",
            asServer: true, daemon: true)
    }

    private static func startArguments(_ directory: String) -> [String] {
        [
            "-D", directory + "/data", "-l", directory + "/postgres.log", "-w", "-t", "60", "-o",
            "-k \(directory) -p \(port) -c listen_addresses='' -c fsync=off -c max_connections=200", "start",
        ]
    }

    private static func start() async throws -> Running {
        guard let binaries = locateBinaries() else {
            throw StartFailure(
                reason:
                    "initdb and pg_ctl were not found in /usr/lib/postgresql/*/bin, /usr/local/bin or /usr/bin (install Debian's postgresql package)"
            )
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hlsi-pg-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 {
            // PostgreSQL refuses to run as root: the cluster belongs to nobody.
            try await run("/bin/chown", ["nobody", directory], log: nil)
        }
        let data = directory + "/data"
        let log = directory + "/setup.log"
        do {
            try await run(
                binaries + "/initdb", ["-D", data, "-U", user, "-A", "trust", "-E", "UTF8", "--no-sync"],
                log: log, asServer: true)
            toStop.withLockedValue { $0.append((binaries, directory)) }
            try await run(binaries + "/pg_ctl", startArguments(directory), log: log, asServer: true, daemon: true)
        } catch let failure as StartFailure {
            let detail = (try? String(contentsOfFile: directory + "/postgres.log", encoding: .utf8)) ?? ""
            throw StartFailure(reason: failure.reason + (detail.isEmpty ? "" : "\n" + detail))
        }
        if toStop.withLockedValue({ $0.count }) == 1 { atexit { PostgresCluster.stopAll() } }
        return Running(directory: directory, binaries: binaries)
    }

    /// Stops every cluster this process started and removes its directory (at exit: with libc's
    /// `system`, not Foundation's `Process`).
    private static func stopAll() {
        for (binaries, directory) in toStop.withLockedValue({ $0 }) {
            let user = getuid() == 0 ? "/usr/sbin/runuser -u nobody -- " : ""
            _ = system(
                "\(user)'\(binaries)/pg_ctl' -D '\(directory)/data' -m immediate -w stop >/dev/null 2>&1; rm -rf '\(directory)'"
            )
        }
    }

    private static func locateBinaries() -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let candidates =
            versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" } + [
                "/usr/local/bin", "/usr/bin",
            ]
        return candidates.first { directory in
            ["initdb", "pg_ctl", "createdb"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: directory + "/" + $0)
            }
        }
    }

    /// Runs a program to its end; as root, `asServer` runs it as nobody.
    ///
    /// A `daemon` (`pg_ctl start`) leaves a server running: it is started through Python's
    /// `subprocess` with the other descriptors closed, since Foundation's `Process` watches a socket
    /// it hands the child, and a server that inherits it would keep the run from ending.
    private static func run(
        _ program: String, _ arguments: [String], log: String?, asServer: Bool = false, daemon: Bool = false
    ) async throws {
        let process = Process()
        var command = [program] + arguments
        if asServer && getuid() == 0 {
            command = ["/usr/sbin/runuser", "-u", "nobody", "--"] + command
            process.currentDirectoryURL = URL(fileURLWithPath: "/")
        }
        if daemon {
            command =
                [
                    "/usr/bin/env", "python3", "-c",
                    "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], close_fds=True).returncode)",
                ] + command
        }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let output: FileHandle
        if let log {
            if !FileManager.default.fileExists(atPath: log) {
                _ = FileManager.default.createFile(atPath: log, contents: nil)
            }
            output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            try output.seekToEnd()
        } else {
            output = FileHandle.nullDevice
        }
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: StartFailure(reason: "cannot run \(program): \(error)"))
            }
        }
        guard status == 0 else {
            let text = log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            throw StartFailure(
                reason: "\(([program] + arguments).joined(separator: " ")) exited with \(status)\n\(text)")
        }
    }
}
