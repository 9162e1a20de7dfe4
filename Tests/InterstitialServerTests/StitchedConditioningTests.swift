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
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-stitch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let mp4 = work.appendingPathComponent("creative.mp4")
        let made = try await CreativeConditioner.run(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=30", "-f",
                "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6", "-c:v", "libx264", "-c:a", "aac",
                "-shortest", mp4.path,
            ], timeout: .seconds(120))
        try #require(made.status == 0, "ffmpeg: \(made.output)")
        let bytes = try [UInt8](Data(contentsOf: mp4))
        let cache = work.appendingPathComponent("cache")
        try await Self.withAdServer(source, mp4: bytes) { adServer in
            var configuration = try AdServerTests.configuration(adServer.origin)
            configuration.creativeCache = cache.path
            try await Harness.withServer(configuration) { client in
                let first = "?ads=stitched&session=first-viewer"
                let video = try await client.text("/demo/vod/video/main.m3u8" + first)
                _ = try await client.text("/demo/vod/audio-en/main.m3u8" + first)
                // The pre-roll and midroll-2 ask the ad server; b1 fits neither: left out of both.
                #expect(try await Self.adLocations(video, client: client).allSatisfy { !$0.contains(adServer.origin) })
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
                #expect(
                    try await eventually(.seconds(300)) {
                        let names = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
                        return names.contains { name in
                            CreativeConditioner.isKey(name)
                                && FileManager.default.fileExists(
                                    atPath: cache.appendingPathComponent(name).path + "/master.m3u8")
                        }
                    })
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
                let downloaded = adServer.requests("/mezzanine.mp4").count + adServer.requests("/progressive.mp4").count
                #expect(downloaded == 1)
                #expect(adServer.requests(source == .mezzanine ? "/mezzanine.mp4" : "/progressive.mp4").count == 1)
                #expect(adServer.requests("/error-b1").isEmpty)
            }
        }
    }
}
