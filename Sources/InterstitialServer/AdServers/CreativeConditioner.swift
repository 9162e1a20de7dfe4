import AdDecisioning
import AsyncHTTPClient
import Crypto
import Foundation
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Turns progressive MP4 creatives into HLS assets that match a primary (``ConditioningProfile``:
/// fMP4, or MPEG-TS for a stitched MPEG-TS primary) with ffmpeg, once per creative and profile, in
/// the background; the results live in a directory on disk (``ServerConfiguration/creativeCache``)
/// with a size limit, and survive restarts.
///
/// A creative that is not ready is left out of the fill (the VAST says which ads exist; this cache
/// answers which can play now) and queued: the viewer is never kept waiting for ffmpeg. Jobs run one
/// at a time; the queue holds at most ``queueCapacity`` creatives, a download at most
/// ``maximumDownloadBytes`` (http and https only). The download is read as MP4 only, from the local
/// file only (``CreativeProbe/inputOptions``): ffprobe checks it first (``CreativeProbe``), and each
/// ffmpeg or ffprobe run is killed past ``timeout`` (wall clock) or ``cpuSeconds`` of CPU time
/// (RLIMIT_CPU). A creative that fails is not tried again for ``retryDelay``. The least recently used
/// assets are removed when the cache grows past its limit.
///
/// Replicas may share the directory (a network file system): an asset is ready when its directory
/// holds a master playlist, whichever server made it, so ``isReady(_:)`` looks on disk for what it
/// does not know and checks that what it knows is still there; each server works in a directory of
/// its own and moves a finished asset into place only if no other server did first; use is recorded
/// on the master playlist's modification time (at most once a minute), so eviction by any server
/// removes what no server used for longest.
final class CreativeConditioner: Service, Sendable {
    /// A creative to condition.
    struct Job: Sendable {
        /// The cache key (``key(creative:profile:)``).
        var key: String
        /// The MP4's URL.
        var url: String
        /// What to make.
        var profile: ConditioningProfile
    }

    static let queueCapacity = 64
    static let maximumDownloadBytes = 256 << 20
    static let retryDelay = MediaTime(seconds: 300)
    /// How long a creative's download may take.
    static let downloadTimeout = MediaTime(seconds: 120)

    private struct State {
        /// Assets this server found ready on disk (or made), with when it last recorded a use of
        /// each; the directory is what decides (``isReady(_:)``).
        var ready: [String: Date] = [:]
        var queued: Set<String> = []
        var failed: [String: MediaTime] = [:]
    }

    let directory: URL
    let maximumBytes: Int
    /// How long one ffmpeg or ffprobe run may take before it is killed.
    let timeout: Duration
    /// The CPU time one ffmpeg or ffprobe run may use (RLIMIT_CPU), in seconds.
    let cpuSeconds: Int
    private let fetcher: AdServerFetcher
    /// The server's clock, the fetcher's: when a failed creative may be tried again, and the wall
    /// time of the uses recorded on disk.
    private var clock: any ServerClock { fetcher.clock }
    private let logger: Logger
    private let state = NIOLockedValueBox(State())
    private let stream: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    /// A conditioner over `directory` (created if missing); the assets already there are ready
    /// (``isReady(_:)`` looks on disk, so nothing is read at start). Each ffmpeg run is killed
    /// past `timeout` or `cpuSeconds` of CPU time.
    init(
        directory: String, maximumBytes: Int, fetcher: AdServerFetcher, logger: Logger,
        timeout: Duration = ServerLimits().conditioningTimeout.duration,
        cpuSeconds: Int = ServerLimits().conditioningCPUSeconds
    ) {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        self.maximumBytes = maximumBytes
        self.timeout = timeout
        self.cpuSeconds = cpuSeconds
        self.fetcher = fetcher
        self.logger = logger
        (stream, continuation) = AsyncStream.makeStream(
            of: Job.self, bufferingPolicy: .bufferingOldest(Self.queueCapacity))
        try? FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    }

    /// The cache key of a creative made for `profile`: 32 hexadecimal digits.
    static func key(creative: String, profile: ConditioningProfile) -> String {
        HexDigits.lowercase(SHA256.hash(data: Array((creative + "\n" + profile.description).utf8)).prefix(16))
    }

    /// Whether `name` can be a key (and so a directory of the cache, and a URL path component).
    static func isKey(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// How often a use of an asset is written to its master playlist's modification time.
    static let touchInterval: TimeInterval = 60

    /// Whether the asset of `key` is ready on disk (made by this server or another sharing the
    /// directory), and marks it used.
    func isReady(_ key: String) -> Bool {
        let master = directory.appendingPathComponent(key).appendingPathComponent("master.m3u8").path
        let now = clock.wall.date
        guard FileManager.default.fileExists(atPath: master) else {
            // Gone (evicted by another server), or not made yet.
            state.withLockedValue { _ = $0.ready.removeValue(forKey: key) }
            return false
        }
        let touch = state.withLockedValue { state -> Bool in
            let last = state.ready[key]
            state.ready[key] = now
            return last.map { now.timeIntervalSince($0) >= Self.touchInterval } ?? true
        }
        if touch { try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: master) }
        return true
    }

    /// Whether the creative of `key` failed to condition less than ``retryDelay`` ago (it is not
    /// tried again before).
    func failedRecently(_ key: String) -> Bool {
        let now = clock.now
        return state.withLockedValue { state in state.failed[key].map { now - $0 < Self.retryDelay } ?? false }
    }

    /// Queues `job` unless it is ready, queued, failed recently or the queue is full.
    func request(_ job: Job) {
        let now = clock.now
        let accepted = state.withLockedValue { state -> Bool in
            if state.ready[job.key] != nil || state.queued.contains(job.key) { return false }
            if let failed = state.failed[job.key], now - failed < Self.retryDelay { return false }
            state.queued.insert(job.key)
            return true
        }
        guard accepted else { return }
        if case .dropped = continuation.yield(job) {
            state.withLockedValue { _ = $0.queued.remove(job.key) }
            logger.warning("the creative conditioning queue is full; \(job.url) is not conditioned now")
        }
    }

    /// Conditions the queued creatives one at a time until shut down.
    func run() async throws {
        await withGracefulShutdownHandler {
            for await job in stream {
                let ok = await condition(job)
                let (wall, now) = (clock.wall.date, clock.now)
                state.withLockedValue { state in
                    state.queued.remove(job.key)
                    if ok { state.ready[job.key] = wall } else { state.failed[job.key] = now }
                }
                if ok { evict() }
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
    }

    /// Downloads, probes and converts one creative into a temporary directory, then moves it into
    /// place (so a directory with a master playlist is always complete); false when it cannot.
    func condition(_ job: Job) async -> Bool {
        let target = directory.appendingPathComponent(job.key)
        // Another server sharing the directory may have made it meanwhile.
        if FileManager.default.fileExists(atPath: target.appendingPathComponent("master.m3u8").path) { return true }
        let work = directory.appendingPathComponent(".work-\(job.key)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let input = work.appendingPathComponent("input.mp4")
            try await download(job.url, to: input)
            let probed = try await Self.run(
                "ffprobe", CreativeProbe.arguments(input: input.path), timeout: min(timeout, .seconds(60)),
                cpuSeconds: min(cpuSeconds, 60))
            guard probed.status == 0 else {
                throw Failure(description: "ffprobe refused it (\(probed.status)): \(probed.output.suffix(500))")
            }
            let probe = try CreativeProbe(json: probed.output)
            let output = work.appendingPathComponent("asset")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            let arguments = Self.restrictingInput(
                job.profile.ffmpegArguments(input: input.path, output: output.path, hasAudio: probe.hasAudio),
                input: input.path)
            let result = try await Self.run("ffmpeg", arguments, timeout: timeout, cpuSeconds: cpuSeconds)
            guard result.status == 0,
                FileManager.default.fileExists(atPath: output.appendingPathComponent("master.m3u8").path)
            else { throw Failure(description: "ffmpeg failed (\(result.status)): \(result.output.suffix(500))") }
            // rename(2) does not replace a directory with contents: the first server to finish wins.
            guard rename(output.path, target.path) == 0 else {
                if FileManager.default.fileExists(atPath: target.appendingPathComponent("master.m3u8").path) {
                    logger.info("\(job.url) was conditioned by another server sharing \(directory.path)")
                    return true
                }
                throw Failure(
                    description: "cannot move the asset into \(target.path): \(String(cString: strerror(errno)))")
            }
            logger.info("conditioned \(job.url) into \(target.path)")
            return true
        } catch {
            logger.warning("cannot condition the creative \(job.url): \(error)")
            return false
        }
    }

    private struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `arguments` with ``CreativeProbe/inputOptions`` before the `-i` of `input`.
    static func restrictingInput(_ arguments: [String], input: String) -> [String] {
        guard
            let index = arguments.indices.first(where: {
                arguments[$0] == "-i" && $0 + 1 < arguments.count && arguments[$0 + 1] == input
            })
        else { return arguments }
        var restricted = arguments
        restricted.insert(contentsOf: CreativeProbe.inputOptions, at: index)
        return restricted
    }

    private func download(_ url: String, to file: URL) async throws {
        guard ServerConfiguration.origin(of: url) != nil else { throw Failure(description: "\(url) is not http(s)") }
        let response = try await fetcher.get(url, deadline: clock.deadline(after: Self.downloadTimeout))
        guard (200..<300).contains(response.status.code) else {
            throw Failure(description: "\(url) answered HTTP \(response.status.code)")
        }
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw Failure(description: "cannot write \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var total = 0
        for try await buffer in response.body {
            total += buffer.readableBytes
            guard total <= Self.maximumDownloadBytes else {
                throw Failure(description: "\(url) is larger than \(Self.maximumDownloadBytes) bytes")
            }
            try handle.write(contentsOf: Data(buffer.readableBytesView))
        }
    }

    /// Removes the least recently used assets while the cache is over its limit: every asset in the
    /// directory, by the last use any server recorded on its master playlist.
    func evict() {
        let found = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let used: [(String, Date)] = found.filter { Self.isKey($0) }.compactMap { key in
            let master = directory.appendingPathComponent(key).appendingPathComponent("master.m3u8").path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: master) else { return nil }
            return (key, attributes[.modificationDate] as? Date ?? .distantPast)
        }
        var sizes: [(String, Int)] = used.sorted { $0.1 < $1.1 }.map {
            ($0.0, Self.size(of: directory.appendingPathComponent($0.0)))
        }
        var total = sizes.reduce(0) { $0 + $1.1 }
        while total > maximumBytes, sizes.count > 1 {
            let (key, size) = sizes.removeFirst()
            state.withLockedValue { _ = $0.ready.removeValue(forKey: key) }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(key))
            total -= size
            logger.info("removed the conditioned creative \(key) (the cache is over \(maximumBytes) bytes)")
        }
    }

    private static func size(of directory: URL) -> Int {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        var total = 0
        while let file = enumerator?.nextObject() as? URL {
            total += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        }
        return total
    }

    /// The shell script that runs a program with a CPU-time limit: `sh -c SCRIPT NAME SECONDS
    /// PROGRAM ARGUMENTS...` sets RLIMIT_CPU (`ulimit -t`; the kernel sends SIGXCPU, then SIGKILL,
    /// past it) and replaces itself with the program, found on PATH.
    static let limitScript = #"ulimit -t "$1" || exit 125; shift; exec "$@""#

    /// The process `run` starts: the shell with ``limitScript``, and its arguments.
    static func command(_ program: String, _ arguments: [String], cpuSeconds: Int) -> (String, [String]) {
        ("/bin/sh", ["-c", limitScript, "hlsi-limit", String(max(1, cpuSeconds)), program] + arguments)
    }

    /// Runs a program found on PATH with at most `cpuSeconds` of CPU time, its output (stdout and
    /// stderr) read whole; killed (SIGKILL) at `timeout`.
    static func run(
        _ program: String, _ arguments: [String], timeout: Duration,
        cpuSeconds: Int = ServerLimits().conditioningCPUSeconds
    ) async throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        let (shell, shellArguments) = command(program, arguments, cpuSeconds: cpuSeconds)
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = shellArguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let collected = NIOLockedValueBox(Data())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            collected.withLockedValue { if $0.count < 1 << 20 { $0.append(data) } }
        }
        return try await withThrowingTaskGroup(of: Int32?.self) { group in
            let finished = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { process in
                finished.continuation.yield(process.terminationStatus)
                finished.continuation.finish()
            }
            try process.run()
            group.addTask {
                for await status in finished.stream { return status }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            // SIGKILL: a program stuck in a demuxer need not heed SIGTERM.
            if first == nil, process.isRunning { kill(process.processIdentifier, SIGKILL) }
            group.cancelAll()
            pipe.fileHandleForReading.readabilityHandler = nil
            // What was written after the last read, now that the program has ended.
            let rest = (try? pipe.fileHandleForReading.readToEnd()) ?? nil
            let output = String(decoding: collected.withLockedValue { $0 } + (rest ?? Data()), as: UTF8.self)
            guard let status = first else { throw Failure(description: "\(program) took longer than \(timeout)") }
            return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
