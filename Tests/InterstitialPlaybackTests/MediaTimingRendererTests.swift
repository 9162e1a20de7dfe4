import Foundation
import HLSPlaylist
import InterstitialPlayback
import MediaTiming
import PlaybackEngine
import Testing

/// `hlsi play --media`'s renderer: real timestamps of the loaded segments, gaps and overlaps per
/// track at every transition between primary and interstitial assets.
@Suite("media timing renderer")
struct MediaTimingRendererTests {
    /// The demo media served by `hlsi serve --demo`.
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/InterstitialServer/Resources/demo").standardized.path

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("media-renderer-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A VOD primary of `segments` (absolute paths, EXTINF 2 s) with an X-ASSET-URI interstitial at
    /// 2 s that resumes where it started.
    static func primaryPlaylist(map: String?, segments: [(uri: String, duration: String)], asset: String) -> String {
        var text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-PLAYLIST-TYPE:VOD

            """
        if let map { text += "#EXT-X-MAP:URI=\"\(map)\"\n" }
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        text += "#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"com.apple.hls.interstitial\","
        text += "START-DATE=\"2026-01-01T00:00:02.000Z\",X-ASSET-URI=\"\(asset)\",X-RESUME-OFFSET=0\n"
        for segment in segments { text += "#EXTINF:\(segment.duration),\n\(segment.uri)\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// Plays `url` to the end on a manual clock with a ``MediaTimingRenderer``; returns its lines and
    /// the player's trace.
    static func play(_ url: String) async -> (media: [MediaTimingEvent], trace: [PlaybackEvent]) {
        let renderer = MediaTimingRenderer()
        let player = Player(
            item: PlayerItem(url: url), configuration: .init(primaryID: "media"), clock: ManualClock(),
            renderer: renderer)
        player.play()
        await player.run(until: nil)
        await player.shutdown()
        return (renderer.finish(), player.trace)
    }

    static func number(_ event: MediaTimingEvent, _ name: String) -> Double? {
        switch event[name] {
        case .number(let value)?: value
        case .integer(let value)?: Double(value)
        default: nil
        }
    }

    static func transitions(_ events: [MediaTimingEvent], track: String) -> [MediaTimingEvent] {
        events.filter { $0.kind == .mediaTransition && $0["track"] == .string(track) }
    }

    @Test(
        "the demo's fMP4 primary and ad play through the player: init segments loaded, video aligned at both transitions"
    )
    func demoThroughPlayer() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rendition = Self.demo + "/primary/video"
        let playlist = Self.primaryPlaylist(
            map: rendition + "/init_0.mp4",
            segments: (0..<3).map { (rendition + String(format: "/seg%03d.m4s", $0), "2.000000") },
            asset: Self.demo + "/ads/ad1/video/main.m3u8")
        let path = directory.appendingPathComponent("primary.m3u8").path
        try playlist.write(toFile: path, atomically: true, encoding: .utf8)

        let (media, trace) = await Self.play(path)
        #expect(trace.contains { $0.kind == .interstitialStarted })
        #expect(!media.contains { $0.kind == .mediaError }, "\(media.map(\.description))")
        let video = Self.transitions(media, track: "video")
        #expect(video.map { $0["transition"] } == [.string("primary→interstitial"), .string("interstitial→primary")])
        #expect(video.first?["from"] == .string("primary"))
        #expect(video.first?["to"] == .string("ad#0"))
        // The demo's video is 25 fps, 50 frames per 2 s segment, each starting at its segment's time.
        for line in video {
            #expect(Self.number(line, "gapMs") == 0)
            #expect(line["result"] == .string("aligned"))
        }
        let summary = try #require(media.last)
        #expect(summary.kind == .mediaSummary)
        // Primary's segment before the ad, the ad's three, and primary's two after it.
        #expect(Self.number(summary, "segments") == 6)
        #expect(Self.number(summary, "errors") == 0)
        #expect(Self.number(summary, "transitions") == 2)
    }

    /// A chunk of a demo rendition's segment, as the player passes it.
    static func chunk(_ rendition: String, _ index: Int, source: MediaChunk.Source) throws -> MediaChunk {
        let directory = URL(fileURLWithPath: Self.demo + "/" + rendition)
        let playlist = try String(contentsOf: directory.appendingPathComponent("main.m3u8"), encoding: .utf8)
        let media = try #require(PlaylistParser.parse(Array(playlist.utf8)).playlist.media)
        let segment = media.segments[index]
        let map = try #require(segment.map?.uri)
        return MediaChunk(
            url: directory.appendingPathComponent(segment.uri).path,
            bytes: try [UInt8](Data(contentsOf: directory.appendingPathComponent(segment.uri))),
            source: source, rendition: directory.path, index: index, playlistDuration: segment.duration,
            initializationSection: try [UInt8](Data(contentsOf: directory.appendingPathComponent(map))))
    }

    static func timing(_ chunk: MediaChunk) throws -> SegmentTiming {
        try MediaTimingParser.parse(
            chunk.bytes, initSegment: try MediaTimingParser.parseInitSegment(chunk.initializationSection ?? []))
    }

    @Test("the demo ad with its audio rendition: each track's start offset at the ad and its end against EXTINF")
    func demoAudioAndVideo() throws {
        let renderer = MediaTimingRenderer()
        let ad = MediaChunk.Source.interstitial(eventID: "ad", assetIndex: 0)
        var chunks: [MediaChunk] = []
        for index in 0..<2 {
            chunks += [try Self.chunk("primary/video", index, source: .primary)]
            chunks += [try Self.chunk("primary/audio-en", index, source: .primary)]
        }
        for index in 0..<3 {
            chunks += [try Self.chunk("ads/ad1/video", index, source: ad)]
            chunks += [try Self.chunk("ads/ad1/audio-en", index, source: ad)]
        }
        chunks += [try Self.chunk("primary/video", 2, source: .primary)]
        chunks += [try Self.chunk("primary/audio-en", 2, source: .primary)]
        for chunk in chunks { renderer.enqueue(chunk) }
        let media = renderer.finish()
        #expect(!media.contains { $0.kind == .mediaError })

        // What the parser measures segment by segment, put together here.
        let primaryTimings = try chunks.prefix(4).map(Self.timing)
        let adTimings = try chunks.dropFirst(4).prefix(6).map(Self.timing)
        let primaryStart = primaryTimings.flatMap(\.tracks).map(\.editedPresentationStart.seconds).min() ?? 0
        let primaryBoundary = primaryStart + 4  // two video segments of EXTINF 2 s
        let adStart = adTimings.flatMap(\.tracks).map(\.editedPresentationStart.seconds).min() ?? 0
        for kind in [TrackKind.audio, .video] {
            let line = try #require(
                Self.transitions(media, track: kind.rawValue).first {
                    $0["transition"] == .string("primary→interstitial")
                })
            let end =
                primaryTimings.compactMap {
                    $0.track(kind).map { $0.editedPresentationStart.seconds + $0.duration.seconds }
                }
                .max() ?? 0
            let start = adTimings.compactMap { $0.track(kind)?.editedPresentationStart.seconds }.min() ?? 0
            let endMs = try #require(Self.number(line, "endMs"))
            let startMs = try #require(Self.number(line, "startMs"))
            #expect(abs(endMs - (end - primaryBoundary) * 1000) <= 0.05)
            #expect(abs(startMs - (start - adStart) * 1000) <= 0.05)
            #expect(abs((Self.number(line, "gapMs") ?? .nan) - (startMs - endMs)) <= 0.1)
        }
        #expect(Self.transitions(media, track: "audio").count == 2)
        #expect(Self.number(try #require(media.last), "transitions") == 2)
    }

    @Test("a seek within a source starts a new run without a transition")
    func seekIsNotATransition() throws {
        let renderer = MediaTimingRenderer()
        renderer.enqueue(try Self.chunk("primary/video", 0, source: .primary))
        renderer.enqueue(try Self.chunk("primary/video", 5, source: .primary))
        renderer.enqueue(try Self.chunk("primary/video", 6, source: .primary))
        let media = renderer.finish()
        #expect(media.filter { $0.kind == .mediaTransition }.isEmpty)
        #expect(Self.number(try #require(media.last), "segments") == 3)
    }

    @Test("a segment that is not media is reported with its location, and playback measurement goes on")
    func unreadableSegment() throws {
        let renderer = MediaTimingRenderer()
        renderer.enqueue(MediaChunk(url: "junk.ts", bytes: Array("not media".utf8), source: .primary))
        let media = renderer.finish()
        let error = try #require(media.first)
        #expect(error.kind == .mediaError)
        #expect(error["segment"] == .string("junk.ts"))
        #expect(Self.number(try #require(media.last), "errors") == 1)
    }

    // MARK: Media made by ffmpeg, checked against ffprobe

    static func tool(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs a tool to its end on a thread of its own: a blocking wait on the concurrency pool (two
    /// threads on a 2-core machine) would stall every other test running at once.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        let data = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            Thread {
                let data = handle.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }.start()
        }
        #expect(process.terminationStatus == 0, "\(executable) \(arguments.joined(separator: " "))")
        return String(decoding: data, as: UTF8.self)
    }

    /// Each stream's first presentation time and last presentation end, in seconds, per ffprobe.
    static func probe(_ ffprobe: String, _ path: String) async throws -> [String: (start: Double, end: Double)] {
        let text = try await run(
            ffprobe,
            ["-v", "error", "-show_entries", "packet=codec_type,pts_time,duration_time", "-of", "csv=p=0", path])
        var spans: [String: (start: Double, end: Double)] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3, let pts = Double(fields[1]) else { continue }
            let end = pts + (Double(fields[2]) ?? 0)
            let span = spans[fields[0]] ?? (pts, end)
            spans[fields[0]] = (min(span.start, pts), max(span.end, end))
        }
        return spans
    }

    @Test("MPEG-TS with a deliberate 80 ms audio delay in the ad: the renderer's offsets are ffprobe's")
    func ffmpegOffset() async throws {
        guard let ffmpeg = Self.tool("ffmpeg"), let ffprobe = Self.tool("ffprobe") else {
            print("skipped: ffmpeg and ffprobe are needed to make and check the media (apt-get install ffmpeg)")
            return
        }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func make(_ name: String, audioDelay: Double) async throws {
            try await Self.run(
                ffmpeg,
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25",
                    "-itsoffset", String(audioDelay), "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-t", "4", "-c:v", "libx264", "-g", "50", "-bf", "0", "-c:a", "aac", "-f", "hls",
                    "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_filename",
                    directory.appendingPathComponent("\(name)%d.ts").path,
                    directory.appendingPathComponent("\(name).m3u8").path,
                ])
        }
        try await make("main", audioDelay: 0)
        try await make("ad", audioDelay: 0.08)
        let segment = { (name: String) in directory.appendingPathComponent(name).path }
        let playlist = Self.primaryPlaylist(
            map: nil, segments: [(segment("main0.ts"), "2.000000"), (segment("main1.ts"), "2.000000")],
            asset: segment("ad.m3u8"))
        let path = segment("primary.m3u8")
        try playlist.write(toFile: path, atomically: true, encoding: .utf8)

        let (media, _) = await Self.play(path)
        #expect(!media.contains { $0.kind == .mediaError }, "\(media.map(\.description))")
        let before = try await Self.probe(ffprobe, segment("main0.ts"))
        let adFirst = try await Self.probe(ffprobe, segment("ad0.ts"))
        let boundary = (before.values.map(\.start).min() ?? 0) + 2
        let adStart = adFirst.values.map(\.start).min() ?? 0
        for (kind, stream) in [("video", "video"), ("audio", "audio")] {
            let line = try #require(
                Self.transitions(media, track: kind).first { $0["transition"] == .string("primary→interstitial") })
            let expectedEnd = try #require(before[stream]).end - boundary
            let expectedStart = try #require(adFirst[stream]).start - adStart
            #expect(abs((Self.number(line, "endMs") ?? .nan) - expectedEnd * 1000) <= 0.1, "\(line)")
            #expect(abs((Self.number(line, "startMs") ?? .nan) - expectedStart * 1000) <= 0.1, "\(line)")
        }
        // The delay made: the ad's audio starts 80 ms after its video less the AAC encoder's priming
        // that ffmpeg starts the audio with (1024 samples at 48 kHz, 21.3 ms): a gap in the audio.
        let audio = try #require(
            Self.transitions(media, track: "audio").first { $0["transition"] == .string("primary→interstitial") })
        let start = try #require(Self.number(audio, "startMs"))
        #expect(abs(start - (80 - 1024.0 / 48)) < 5, "\(audio)")
        #expect(audio["result"] == .string("gap"))
        #expect(Self.number(try #require(media.last), "gaps").map { $0 >= 1 } == true)
    }
}
