import AdDecisioning
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import Testing

@testable import InterstitialServer

/// The conditioned-creative cache on a directory that replicas share: what one server made is ready
/// on the others, what one evicted is not, and eviction goes by the last use any server recorded.
@Suite("Conditioned creatives shared by replicas")
struct CreativeCacheTests {
    static func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    static func conditioner(_ directory: URL, maximumBytes: Int = 1 << 30) -> CreativeConditioner {
        CreativeConditioner(
            directory: directory.path, maximumBytes: maximumBytes,
            fetcher: AdServerFetcher(client: HTTPClient.shared, policy: .allowingLoopback, clock: SystemServerClock()),
            logger: Logger(label: "hlsi.test.creatives"))
    }

    /// Writes an asset as a server would: `KEY/master.m3u8` and a segment of `bytes`.
    static func asset(_ key: String, in directory: URL, bytes: Int = 1000, used: Date = Date()) throws {
        let folder = directory.appendingPathComponent(key)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let master = folder.appendingPathComponent("master.m3u8")
        try Data("#EXTM3U\n".utf8).write(to: master)
        try Data(count: bytes).write(to: folder.appendingPathComponent("seg0.m4s"))
        try FileManager.default.setAttributes([.modificationDate: used], ofItemAtPath: master.path)
    }

    static let keys = (0..<3).map { String(repeating: "\($0)", count: 32) }

    @Test("an asset another server made is ready here; one another server removed is not")
    func sharedReadiness() throws {
        try Self.withDirectory { directory in
            let a = Self.conditioner(directory)
            let b = Self.conditioner(directory)
            #expect(!a.isReady(Self.keys[0]) && !b.isReady(Self.keys[0]))
            try Self.asset(Self.keys[0], in: directory)
            #expect(b.isReady(Self.keys[0]), "made after b started, by another server")
            try FileManager.default.removeItem(at: directory.appendingPathComponent(Self.keys[0]))
            #expect(!b.isReady(Self.keys[0]), "evicted by another server")
        }
    }

    @Test("eviction removes what no server used for longest, by the master playlist's time; a use records it")
    func sharedEviction() throws {
        try Self.withDirectory { directory in
            let now = Date()
            try Self.asset(Self.keys[0], in: directory, used: now.addingTimeInterval(-3000))
            try Self.asset(Self.keys[1], in: directory, used: now.addingTimeInterval(-2000))
            try Self.asset(Self.keys[2], in: directory, used: now.addingTimeInterval(-1000))
            // Another server used the oldest one just now: its playlist's time moves.
            let other = Self.conditioner(directory)
            #expect(other.isReady(Self.keys[0]))
            // Room for two assets: the one no server used for longest goes.
            let here = Self.conditioner(directory, maximumBytes: 2 * 1008 + 100)
            here.evict()
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
            #expect(left == [Self.keys[0], Self.keys[2]], "\(left)")
            #expect(!here.isReady(Self.keys[1]))
        }
    }

    // MARK: Issue 37, item 6: what ffmpeg and ffprobe may read, and for how long

    /// The path of `name` on PATH, if it is there.
    static func tool(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs `body` with the URL of a real MP4 creative (``makeVideo(_:format:)``) served over HTTP,
    /// and a creative cache directory, both in a temporary directory removed afterwards.
    static func withServedCreative(_ body: (_ url: String, _ cache: URL) async throws -> Void) async throws {
        try await withAsyncDirectory { directory in
            let video = directory.appendingPathComponent("creative.mp4").path
            try await makeVideo(video, format: "mp4")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: video)))
            try await TestOrigin.withOrigin(routes: { _ in .init(contentType: "video/mp4", body: bytes) }) { origin in
                try await body(origin.origin + "/creative.mp4", directory.appendingPathComponent("cache"))
            }
        }
    }

    static func withAsyncDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    /// Makes a one-second 64×48 video at `path` with ffmpeg (`format` as ffmpeg names it).
    static func makeVideo(_ path: String, format: String) async throws {
        let made = try await CreativeConditioner.run(
            "ffmpeg",
            [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=size=64x48:rate=10", "-t", "1", "-c:v", "libx264", "-f", format, path,
            ], timeout: .seconds(120), cpuSeconds: 60)
        try #require(made.status == 0, "\(made.output)")
    }

    static let profile = ConditioningProfile(
        rungs: [.init(width: 64, height: 48, bitRate: 100_000, frameRate: 10)], segmentSeconds: 2)

    @Test("a creative.mp4 that is really an HLS playlist of a local video is refused, and nothing is published")
    func playlistPosingAsMP4() async throws {
        guard Self.tool("ffmpeg") != nil, Self.tool("ffprobe") != nil else {
            print("skipped: ffmpeg and ffprobe are needed (apt-get install ffmpeg)")
            return
        }
        try await Self.withAsyncDirectory { directory in
            let secret = directory.appendingPathComponent("private-video.ts").path
            try await Self.makeVideo(secret, format: "mpegts")
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n\(secret)\n#EXT-X-ENDLIST\n"
            try await TestOrigin.withOrigin(routes: { _ in
                .init(contentType: "video/mp4", body: Array(playlist.utf8))
            }) { origin in
                let cache = directory.appendingPathComponent("cache")
                let conditioner = Self.conditioner(cache)
                let job = CreativeConditioner.Job(
                    key: Self.keys[0], url: origin.origin + "/creative.mp4", profile: Self.profile)
                #expect(await conditioner.condition(job) == false)
                let left = try FileManager.default.contentsOfDirectory(atPath: cache.path)
                #expect(left.isEmpty, "nothing published or left behind: \(left)")
                #expect(!conditioner.isReady(Self.keys[0]))
            }
        }
    }

    @Test("a real MP4 is still conditioned with the restricted input")
    func realMP4() async throws {
        guard Self.tool("ffmpeg") != nil, Self.tool("ffprobe") != nil else {
            print("skipped: ffmpeg and ffprobe are needed (apt-get install ffmpeg)")
            return
        }
        try await Self.withServedCreative { url, cache in
            let conditioner = Self.conditioner(cache)
            #expect(await conditioner.condition(.init(key: Self.keys[1], url: url, profile: Self.profile)))
            #expect(conditioner.isReady(Self.keys[1]))
        }
    }

    @Test(
        "for a stitched MPEG-TS primary, ffmpeg makes TS renditions that the stitcher's chooser takes for it (muxed or demuxed audio)",
        arguments: [true, false])
    func mpegTSForStitching(muxed: Bool) async throws {
        guard Self.tool("ffmpeg") != nil, Self.tool("ffprobe") != nil else {
            try Test.cancel("ffmpeg and ffprobe are needed (apt-get install ffmpeg)")
        }
        let group = muxed ? "" : ",AUDIO=\"a\""
        let media = muxed ? "" : "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",DEFAULT=YES,URI=\"en.m3u8\"\n"
        let text =
            "#EXTM3U\n\(media)#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=64x48,FRAME-RATE=10.000,CODECS=\"avc1.42c01e,mp4a.40.2\"\(group)\nv.m3u8\n"
        guard case .multivariant(let primary) = PlaylistParser.parse(text).playlist else {
            Issue.record("the primary does not parse")
            return
        }
        let profile = try ConditioningProfile(primary: primary, targetDuration: 2).stitching(into: primary, fMP4: false)
        #expect(profile.muxedAudio == muxed && profile.segmentFormat == .mpegts)
        try await Self.withServedCreative { url, cache in
            let conditioner = Self.conditioner(cache)
            #expect(await conditioner.condition(.init(key: Self.keys[2], url: url, profile: profile)))
            let asset = cache.appendingPathComponent(Self.keys[2])
            let master = try String(contentsOf: asset.appendingPathComponent("master.m3u8"), encoding: .utf8)
            guard case .multivariant(let made) = PlaylistParser.parse(master).playlist else {
                Issue.record("not a multivariant playlist: \(master)")
                return
            }
            // One rule: the conditioned asset passes the chooser like any ad.
            let chosen = try StitchVariantChooser.choose(for: primary.variants[0], in: made, at: "test")
            #expect(chosen.codecFamilies == ["avc1", "mp4a"], "\(master)")
            #expect(made.renditions.contains { $0.type == "AUDIO" } == !muxed, "\(master)")
            let playlist = try String(
                contentsOf: asset.appendingPathComponent(chosen.uri), encoding: .utf8)
            #expect(!playlist.contains("#EXT-X-MAP") && playlist.contains(".ts"), "\(playlist)")
        }
    }

    @Test("ffmpeg's input is read as MP4 from the local file only, before the -i of the download alone")
    func restrictedArguments() throws {
        let arguments = CreativeConditioner.restrictingInput(
            Self.profile.ffmpegArguments(input: "/w/input.mp4", output: "/w/asset", hasAudio: false),
            input: "/w/input.mp4")
        let index = try #require(arguments.firstIndex(of: "/w/input.mp4"))
        #expect(Array(arguments[max(0, index - 7)..<index]) == CreativeProbe.inputOptions + ["-i"])
        #expect(CreativeProbe.inputOptions == ["-f", "mp4", "-protocol_whitelist", "file", "-enable_drefs", "0"])
        #expect(arguments.filter { $0 == "-protocol_whitelist" }.count == 1, "the lavfi silence is not restricted")
        let probe = CreativeProbe.arguments(input: "/w/input.mp4")
        #expect(probe.starts(with: ["-v", "error"] + CreativeProbe.inputOptions))
        #expect(probe.suffix(2) == ["-i", "/w/input.mp4"])
    }

    @Test("each run has a CPU-time limit (RLIMIT_CPU) that the kernel enforces")
    func cpuLimit() async throws {
        let (shell, arguments) = CreativeConditioner.command("ffmpeg", ["-i", "x"], cpuSeconds: 7)
        #expect(shell == "/bin/sh" && arguments.suffix(4) == ["7", "ffmpeg", "-i", "x"])
        let limit = try await CreativeConditioner.run("sh", ["-c", "ulimit -t"], timeout: .seconds(60), cpuSeconds: 7)
        #expect(limit.status == 0 && limit.output == "7", "\(limit)")
        // A program that never ends by itself is stopped by its CPU limit (SIGXCPU), not by the wall clock.
        let spin = try await CreativeConditioner.run(
            "sh", ["-c", "while :; do :; done"], timeout: .seconds(120), cpuSeconds: 1)
        #expect(spin.status != 0)
    }

    @Test("a run past its wall-clock limit is killed, even when it ignores SIGTERM")
    func wallClockKill() async throws {
        await #expect(throws: (any Error).self) {
            _ = try await CreativeConditioner.run(
                "sh", ["-c", "trap '' TERM; while :; do sleep 1; done"], timeout: .milliseconds(300), cpuSeconds: 60)
        }
    }

    @Test(
        "ffprobe's description is checked: an MP4 with video, within duration, size and stream bounds",
        arguments: [
            (
                #"{"streams":[{"codec_type":"video","width":640,"height":360},{"codec_type":"audio"}],"format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"15.0"}}"#,
                nil
            ),
            (
                #"{"streams":[{"codec_type":"video","width":64,"height":48}],"format":{"format_name":"hls","duration":"1.0"}}"#,
                "not an MP4"
            ),
            (
                #"{"streams":[{"codec_type":"video","width":640,"height":360}],"format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"9000.0"}}"#,
                "lasts"
            ),
            (
                #"{"streams":[{"codec_type":"video","width":640,"height":360}],"format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"N/A"}}"#,
                "no duration"
            ),
            (
                #"{"streams":[{"codec_type":"video","width":16384,"height":16384}],"format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"5"}}"#,
                "pixels"
            ),
            (
                #"{"streams":[{"codec_type":"audio"}],"format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"5"}}"#,
                "no video"
            ),
            (#"{}"#, "did not describe"),
        ] as [(String, String?)])
    func probe(_ json: String, refusal: String?) {
        do {
            let probe = try CreativeProbe(json: json)
            #expect(refusal == nil, "accepted: \(probe)")
            #expect(probe.hasAudio && probe.duration == 15)
        } catch {
            #expect(refusal.map { error.description.contains($0) } == true, "\(error)")
        }
    }
}
