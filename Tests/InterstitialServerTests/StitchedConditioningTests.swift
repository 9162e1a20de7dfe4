import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// Issue 45, item 5: an ad whose HLS does not fit the primary is left out of the stitched form
/// while the conditioner makes renditions that do from its VAST source, then stitched; an ad that
/// stays out is reported to its `<Error>` URLs once per viewer and ad.
@Suite("The stitched form: ads conditioned for the primary")
struct StitchedConditioningTests {
    /// What the ad's VAST offers besides its HLS, which does not fit the demo primary.
    enum Source: String, CaseIterable, Sendable {
        /// Nothing: the ad stays out (`media`) and is reported.
        case none
        /// A `<Mezzanine>` and a progressive MP4: the mezzanine is conditioned.
        case mezzanine
        /// A progressive MP4 only: it is conditioned.
        case progressive
    }

    static func hasTools() -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return ["ffmpeg", "ffprobe"].allSatisfy { tool in
            path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        }
    }

    /// The ad server: `b1` (6 s), the demo's `ad1` presentation whose one variant says
    /// RESOLUTION=640x360 (the primary's is 320x180: `media`), with `source`, an `<Error>` URL
    /// and an impression.
    static func withAdServer(
        _ source: Source, mp4: [UInt8], _ body: (TestOrigin) async throws -> Void
    ) async throws {
        let origin = NIOLockedValueBoxString()
        let ads = try #require(try ServerConfiguration.demo().adDirectory)
        try await TestOrigin.withOrigin(routes: { path in
            let base = origin.value
            if path.hasPrefix("/ads/"), let data = FileManager.default.contents(atPath: ads + path.dropFirst(4)) {
                if path == "/ads/ad1/master.m3u8" {
                    let text = String(decoding: data, as: UTF8.self)
                    return .init(body: Array(text.replacingOccurrences(of: "320x180", with: "640x360").utf8))
                }
                return .init(body: Array(data))
            }
            if path == "/mezzanine.mp4" || path == "/progressive.mp4" {
                return .init(contentType: "video/mp4", body: mp4)
            }
            guard path.hasPrefix("/vast") else { return .init(contentType: "text/plain", body: []) }
            var files =
                "<MediaFile delivery=\"streaming\" type=\"application/x-mpegURL\" width=\"640\" height=\"360\">\(base)/ads/ad1/master.m3u8</MediaFile>"
            if source != .none {
                files +=
                    "<MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"320\" height=\"180\">\(base)/progressive.mp4</MediaFile>"
            }
            if source == .mezzanine {
                files +=
                    "<Mezzanine delivery=\"progressive\" type=\"video/mp4\" width=\"320\" height=\"180\">\(base)/mezzanine.mp4</Mezzanine>"
            }
            let vast = """
                <VAST version="4.2"><Ad id="b1"><InLine><AdSystem>test</AdSystem><AdTitle>b1</AdTitle>
                <Error>\(base)/error-b1?code=[ERRORCODE]</Error><Impression>\(base)/imp-b1</Impression>
                <Creatives><Creative id="c-b1"><UniversalAdId idRegistry="test-registry">ua-b1-\(source.rawValue)</UniversalAdId><Linear>
                <Duration>00:00:06</Duration><MediaFiles>\(files)</MediaFiles>
                </Linear></Creative></Creatives></InLine></Ad></VAST>
                """
            return .init(contentType: "application/xml", body: Array(vast.utf8))
        }) { server in
            origin.value = server.origin
            try await body(server)
        }
    }

    /// The ad segments a stitched playlist lists, followed to where the server sends them.
    static func adLocations(_ text: String, client: any TestClientProtocol) async throws -> [String] {
        var locations: [String] = []
        for uri in PlaylistParser.parse(text).playlist.media?.segments.map(\.uri) ?? []
        where uri.contains(StitchedBeacons.prefix) {
            let response = try await client.get(StitchedFormTests.path(of: uri))
            #expect(response.status == .found)
            locations.append(response.headers[.location] ?? "")
        }
        return locations
    }

    /// Runs `body` with the ad's source (``creative(in:)``) and a creative cache directory, both in
    /// a temporary directory removed afterwards.
    static func withCreative(_ body: (_ bytes: [UInt8], _ cache: URL) async throws -> Void) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-stitch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await body(try await creative(in: work), work.appendingPathComponent("cache"))
    }

    /// A 6 s progressive MP4 (160x90, H.264 and AAC) made with ffmpeg in `work`: the ad's source.
    static func creative(in work: URL) async throws -> [UInt8] {
        let mp4 = work.appendingPathComponent("creative.mp4")
        let made = try await CreativeConditioner.run(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=30", "-f",
                "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6", "-c:v", "libx264", "-c:a", "aac",
                "-shortest", mp4.path,
            ], timeout: .seconds(120))
        try #require(made.status == 0, "ffmpeg: \(made.output)")
        return try [UInt8](Data(contentsOf: mp4))
    }

    /// The conditioner's state: whether an asset of it is on disk in `cache` (what `isReady` reads).
    static func hasConditioned(_ cache: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        return names.contains { name in
            CreativeConditioner.isKey(name)
                && FileManager.default.fileExists(atPath: cache.appendingPathComponent(name).path + "/master.m3u8")
        }
    }

    static func fallbacks(_ client: any TestClientProtocol, _ reason: String) async throws -> Double {
        try await AdServerProtectionTests.metric(client, "hlsi_stitch_fallbacks_total{reason=\"\(reason)\"}")
            .flatMap(Double.init) ?? 0
    }

    @Test(
        "an ad whose HLS does not fit is left out (conditioning), then stitched from its conditioned source; one with no source is reported (403) once per viewer and ad",
        arguments: Source.allCases)
    func conditionedForStitching(source: Source) async throws {
        guard Self.hasTools() else {
            try Test.cancel("ffmpeg and ffprobe are needed to condition creatives (apt-get install ffmpeg)")
        }
        try await Self.withCreative { bytes, cache in
            try await Self.withAdServer(source, mp4: bytes) { adServer in
                var configuration = try AdServerTests.configuration(adServer.origin)
                configuration.creativeCache = cache.path
                try await Harness.withServer(configuration) { client in
                    let first = "?ads=stitched&session=first-viewer"
                    let video = try await client.text("/demo/vod/video/main.m3u8" + first)
                    _ = try await client.text("/demo/vod/audio-en/main.m3u8" + first)
                    // The pre-roll and midroll-2 ask the ad server; b1 fits neither: left out of both.
                    #expect(
                        try await Self.adLocations(video, client: client).allSatisfy { !$0.contains(adServer.origin) })
                    if source == .none {
                        #expect(try await Self.fallbacks(client, "media") >= 2)
                        #expect(try await Self.fallbacks(client, "conditioning") == 0)
                        // Reported once per ad (two breaks), whatever the renditions and reloads asked.
                        _ = try await client.text("/demo/vod/video/main.m3u8" + first)
                        _ = try await client.text("/demo/vod/audio-fr/main.m3u8" + first)
                        #expect(try await eventually { adServer.requests("/error-b1").count >= 2 })
                        // Another viewer: its own reports.
                        _ = try await client.text("/demo/vod/video/main.m3u8?ads=stitched&session=second-viewer")
                        #expect(try await eventually { adServer.requests("/error-b1").count >= 4 })
                        let reports = adServer.requests("/error-b1")
                        #expect(reports.count == 4, "\(reports)")
                        #expect(reports.allSatisfy { $0.hasSuffix("?code=403") }, "\(reports)")
                        let left = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
                        #expect(left.isEmpty, "nothing is conditioned without a source: \(left)")
                        return
                    }
                    #expect(try await Self.fallbacks(client, "conditioning") >= 2)
                    #expect(try await Self.fallbacks(client, "media") == 0)
                    // The conditioner's state: its asset is on disk once made (what `isReady` reads).
                    #expect(try await eventually(.seconds(300)) { Self.hasConditioned(cache) })
                    // The first viewer's breaks keep the fallback, in a rendition it had not asked yet too.
                    let french = try await client.text("/demo/vod/audio-fr/main.m3u8" + first)
                    #expect(
                        try await Self.adLocations(french, client: client).allSatisfy { !$0.contains("/creatives/") },
                        "\(french)")
                    let conditioning = try await Self.fallbacks(client, "conditioning")
                    // The next viewer gets the conditioned renditions, in the video and the audio.
                    let next = "?ads=stitched&session=next-viewer"
                    let stitched = try await client.text("/demo/vod/video/main.m3u8" + next)
                    #expect(StitchedFormTests.problems(stitched).isEmpty, "\(StitchedFormTests.problems(stitched))")
                    let locations = try await Self.adLocations(stitched, client: client)
                    let conditioned = locations.filter { $0.contains("/creatives/") && $0.contains("/video_0/") }
                    #expect(!conditioned.isEmpty && conditioned.allSatisfy { $0.hasSuffix(".m4s") }, "\(locations)")
                    let audio = try await client.text("/demo/vod/audio-en/main.m3u8" + next)
                    #expect(try await Self.adLocations(audio, client: client).contains { $0.contains("/audio/") })
                    #expect(try await Self.fallbacks(client, "conditioning") == conditioning, "nothing left out now")
                    // Conditioned once, from the mezzanine when there is one; no error reported.
                    let downloaded =
                        adServer.requests("/mezzanine.mp4").count + adServer.requests("/progressive.mp4").count
                    #expect(downloaded == 1)
                    #expect(adServer.requests(source == .mezzanine ? "/mezzanine.mp4" : "/progressive.mp4").count == 1)
                    #expect(adServer.requests("/error-b1").isEmpty)
                }
            }
        }
    }

    @Test(
        "live: an ad whose HLS does not fit is left out of the viewer's whole break (the slate plays) while it is conditioned, the numbers holding from reload to reload; the next break and a new viewer get the conditioned renditions"
    )
    func conditionedLive() async throws {
        guard Self.hasTools() else {
            try Test.cancel("ffmpeg and ffprobe are needed to condition creatives (apt-get install ffmpeg)")
        }
        try await Self.withCreative { bytes, cache in
            try await Self.withAdServer(.mezzanine, mp4: bytes) { adServer in
                var configuration = try Harness.demo()
                configuration.live[0].adServer = try AdServerSettings.decode(
                    .object([
                        "vast": .string(adServer.origin + "/vast?sid=[SESSIONID]&brk=[BREAKID]&cb=[CACHEBUSTING]"),
                        "slate": .string("ad2"),
                    ]))
                configuration.assetListDeadline = MediaTime(seconds: 30)
                configuration.creativeCache = cache.path
                // The live window moves only when the test advances the wall clock: 2 s a reload.
                let clock = TestClock(DateTime(iso8601: "2026-03-01T12:00:00Z")!)
                try await Harness.withServer(configuration, clock: clock) { client in
                    let live = "/demo/live/video/main.m3u8?ads=stitched&session="
                    var reloads = StitchedFormTests.LiveReloads()
                    var breaks = 0
                    var inBreak = false
                    var conditioningBeforeNext: Double?
                    // The fill segments of each break, by Media Sequence Number: what they last.
                    var filled: [[UInt64: MediaTime]] = []
                    var nextViewer: [String] = []
                    var conditionedInNext = false
                    var waited = false
                    for reload in 0..<120 {
                        let text = try await client.text(live + "first-viewer")
                        let media = try reloads.check(text, reload: reload)
                        let fill = media.segments.filter { $0.uri.contains(StitchedBeacons.prefix) }
                        guard !fill.isEmpty else {
                            if inBreak {
                                inBreak = false
                                if breaks == 2 { break }
                            }
                            clock.advance(2)
                            continue
                        }
                        if !inBreak {
                            inBreak = true
                            breaks += 1
                            filled.append([:])
                            // The next break was decided before its first ad segment: nothing left out
                            // from here on.
                            if breaks == 2 { conditioningBeforeNext = try await Self.fallbacks(client, "conditioning") }
                        }
                        for segment in fill { filled[breaks - 1][segment.mediaSequence] = segment.duration }
                        let locations = try await Self.adLocations(text, client: client)
                        if breaks == 1 {
                            // b1 is left out on every reload of this viewer's break: the slate plays.
                            #expect(
                                locations.allSatisfy { $0.contains("/ads/ad2/") },
                                "reload \(reload): the slate in place of b1: \(locations)")
                            // The conditioner runs while the viewer is in the break: its renditions
                            // are ready before the break's next reload, which still leaves b1 out.
                            if !waited {
                                waited = true
                                #expect(try await eventually(.seconds(300)) { Self.hasConditioned(cache) })
                            }
                        } else {
                            let conditioned = locations.filter {
                                $0.contains("/creatives/") && $0.contains("/video_0/")
                            }
                            #expect(conditioned.allSatisfy { $0.hasSuffix(".m4s") }, "\(locations)")
                            conditionedInNext = conditionedInNext || !conditioned.isEmpty
                            if nextViewer.isEmpty {
                                // A new viewer in this break: the conditioned renditions too.
                                let other = try await client.text(live + "next-viewer")
                                #expect(
                                    StitchedFormTests.problems(other).isEmpty, "\(StitchedFormTests.problems(other))")
                                nextViewer = try await Self.adLocations(other, client: client)
                            }
                        }
                        clock.advance(2)
                    }
                    #expect(breaks == 2, "the reloads go through two breaks")
                    #expect(try await Self.fallbacks(client, "media") == 0)
                    let conditioning = try await Self.fallbacks(client, "conditioning")
                    #expect(conditioning >= 1)
                    #expect(conditioning == conditioningBeforeNext, "nothing left out in the next break")
                    // Each 10 s break is filled: the slate in place of b1 (4 s), then b1 conditioned (6 s),
                    // each padded with the slate, which the viewer's stitcher has from its first reload.
                    #expect(
                        filled.map { $0.values.reduce(MediaTime.zero, +) } == [
                            MediaTime(seconds: 10), MediaTime(seconds: 10),
                        ])
                    #expect(conditionedInNext, "the next break plays the conditioned renditions")
                    #expect(
                        nextViewer.contains { $0.contains("/creatives/") && $0.contains("/video_0/") }, "\(nextViewer)")
                    #expect(adServer.requests("/mezzanine.mp4").count == 1)
                    #expect(adServer.requests("/progressive.mp4").isEmpty)
                    #expect(adServer.requests("/error-b1").isEmpty)
                }
            }
        }
    }

    @Test(
        "live: a viewer whose first reload comes before any break has its breaks padded with the slate (b1 left out for its media, no source)"
    )
    func liveSlateFromFirstReload() async throws {
        try await Self.withAdServer(.none, mp4: []) { adServer in
            var configuration = try Harness.demo()
            configuration.live[0].adServer = try AdServerSettings.decode(
                .object([
                    "vast": .string(adServer.origin + "/vast?sid=[SESSIONID]&brk=[BREAKID]&cb=[CACHEBUSTING]"),
                    "slate": .string("ad2"),
                ]))
            configuration.assetListDeadline = MediaTime(seconds: 30)
            let clock = TestClock(DateTime(iso8601: "2026-03-01T12:00:00Z")!)
            try await Harness.withServer(configuration, clock: clock) { client in
                var reloads = StitchedFormTests.LiveReloads()
                var filled: [UInt64: MediaTime] = [:]
                var first = true
                for reload in 0..<60 {
                    let text = try await client.text("/demo/live/video/main.m3u8?ads=stitched&session=early-viewer")
                    let media = try reloads.check(text, reload: reload)
                    let fill = media.segments.filter { $0.uri.contains(StitchedBeacons.prefix) }
                    if first { #expect(fill.isEmpty, "the first reload comes before the break") }
                    first = false
                    if fill.isEmpty && !filled.isEmpty { break }
                    for segment in fill { filled[segment.mediaSequence] = segment.duration }
                    clock.advance(2)
                }
                // The 10 s break: the slate in place of b1 (4 s), then the slate again (6 s).
                #expect(filled.values.reduce(MediaTime.zero, +) == MediaTime(seconds: 10))
                #expect(try await Self.fallbacks(client, "media") >= 1)
            }
        }
    }
}
