import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

/// The sample rate of an ad's audio read from its media (issue 45, profile R28): an ad whose audio
/// renditions declare no SAMPLE-RATE but whose init segments are 44.1 kHz is left out of a 48 kHz
/// primary's audio playlists (`media`), once its media has been read (`measuring` until then), and
/// out of its video too (one answer for every rendition of a viewer's break); an ad whose media is
/// 48 kHz is stitched.
@Suite("The stitched form: the sample rate read from ads' init segments")
struct StitchedSampleRateTests {
    typealias T = StitchedFormTests

    /// The demo with its primary's audio renditions declaring SAMPLE-RATE=48000 and ad2's audio
    /// renditions' init segments replaced by a 44.1 kHz AAC one (Tests/Fixtures/audio-init).
    static func configuration() throws -> (ServerConfiguration, directory: URL) {
        var configuration = try Harness.demo()
        guard case .directory(let demo) = configuration.vod[0].origin, let ads = configuration.adDirectory else {
            throw APIError(status: 500, code: .config, "the demo is not a directory")
        }
        let files = FileManager.default
        let directory = files.temporaryDirectory.appendingPathComponent("hlsi-sample-rate-\(UUID().uuidString)")
        let primary = directory.appendingPathComponent("primary")
        let adCopy = directory.appendingPathComponent("ads")
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        try files.copyItem(at: URL(fileURLWithPath: demo), to: primary)
        try files.copyItem(at: URL(fileURLWithPath: ads), to: adCopy)
        let master = primary.appendingPathComponent("master.m3u8")
        let text = try String(contentsOf: master, encoding: .utf8)
            .replacingOccurrences(of: "TYPE=AUDIO,", with: "TYPE=AUDIO,SAMPLE-RATE=48000,")
        try files.removeItem(at: master)
        try Data(text.utf8).write(to: master)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/audio-init/aac-44100-stereo.mp4")
        for rendition in ["audio-en/init_1.mp4", "audio-fr/init_2.mp4"] {
            let target = adCopy.appendingPathComponent("ad2/" + rendition)
            try files.removeItem(at: target)
            try files.copyItem(at: fixture, to: target)
        }
        configuration.vod[0].origin = .directory(primary.path)
        configuration.adDirectory = adCopy.path
        return (configuration, directory)
    }

    /// The ad names (`ad1`, `ad2`, `ad3`) a stitched playlist plays, in order, one per segment.
    static func ads(_ text: String, client: any TestClientProtocol) async throws -> [String] {
        try await StitchedConditioningTests.adLocations(text, client: client).compactMap { location in
            guard let name = location.range(of: "/ads/")?.upperBound else { return nil }
            return String(location[name...].prefix { $0 != "/" })
        }
    }

    /// Waits (bounded, polled) until the ads' audio media has been read: a new viewer's audio
    /// playlist then stitches ad3 (48 kHz). The reading runs in the background; its time decides
    /// nothing. Returns whether it was read.
    static func measured(_ client: any TestClientProtocol) async throws -> Bool {
        let end = ContinuousClock.now + .seconds(120)
        var probe = 0
        while ContinuousClock.now < end {
            probe += 1
            let text = try await client.text("/demo/vod/audio-en/main.m3u8?ads=stitched&session=probe-\(probe)")
            if try await ads(text, client: client).contains("ad3") { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test(
        "an ad without SAMPLE-RATE whose media is 44.1 kHz is refused for a 48 kHz primary: left out of its video and audio alike"
    )
    func refusedForItsMedia() async throws {
        let (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Harness.withServer(configuration) { client in
            let master = try await client.text("/demo/vod/master.m3u8?ads=stitched&session=sample-rate-0")
            #expect(master.contains("SAMPLE-RATE=48000"))
            #expect(try await Self.measured(client), "the ads' audio media is read")
            // Once read: ad3 (48 kHz) is stitched, ad2 (44.1 kHz) is not, in the video (asked first)
            // as in each audio rendition: one answer for the viewer's break.
            let query = "?ads=stitched&session=sample-rate-1"
            let video = try await client.text("/demo/vod/video/main.m3u8" + query)
            #expect(T.problems(video).isEmpty, "\(T.problems(video))")
            let videoAds = try await Self.ads(video, client: client)
            #expect(videoAds.contains("ad3"), "\(videoAds)")
            #expect(!videoAds.contains("ad2"), "ad2's audio fits no primary rendition: its video is left out too")
            for name in ["audio-en", "audio-fr"] {
                let audio = try await client.text("/demo/vod/\(name)/main.m3u8" + query)
                #expect(T.problems(audio).isEmpty, "\(name): \(T.problems(audio))")
                #expect(try await Self.ads(audio, client: client) == videoAds, "\(name) plays the video's ads")
            }
            #expect(try await StitchedConditioningTests.fallbacks(client, "media") >= 1)
        }
    }

    @Test(
        "an ad whose audio is being measured is left out of the viewer's video and audio alike, and stays out of that viewer's VOD once measured; the next viewer gets it"
    )
    func measuringLeavesOutEveryRendition() async throws {
        let (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Harness.withServer(configuration) { client in
            let query = "?ads=stitched&session=measured-first"
            // The viewer's video first: nothing has been read, so every ad's audio is being measured.
            let video = try await client.text("/demo/vod/video/main.m3u8" + query)
            #expect(T.problems(video).isEmpty, "\(T.problems(video))")
            #expect(try await Self.ads(video, client: client).isEmpty, "measuring: the ads' video is left out too")
            #expect(try await StitchedConditioningTests.fallbacks(client, "measuring") >= 1)
            #expect(try await Self.measured(client), "the ads' audio media is read")
            // The same viewer's audio, asked once the media is read: its breaks keep the answer.
            for name in ["audio-en", "audio-fr"] {
                let audio = try await client.text("/demo/vod/\(name)/main.m3u8" + query)
                #expect(T.problems(audio).isEmpty, "\(name): \(T.problems(audio))")
                #expect(try await Self.ads(audio, client: client).isEmpty, "\(name): the viewer's breaks keep it out")
            }
            #expect(try await client.text("/demo/vod/video/main.m3u8" + query) == video, "the VOD does not change")
            // The next viewer: ad3 in the video and the audio.
            let next = "?ads=stitched&session=measured-next"
            let nextVideo = try await Self.ads(
                try await client.text("/demo/vod/video/main.m3u8" + next), client: client)
            let nextAudio = try await Self.ads(
                try await client.text("/demo/vod/audio-en/main.m3u8" + next), client: client)
            #expect(nextVideo.contains("ad3"), "\(nextVideo)")
            #expect(nextVideo == nextAudio)
        }
    }

    @Test(
        "live: through the viewer's first break (its ads' audio measured meanwhile), every reload of the video and the audio validates clean, keeps the reload rules, and plays no ad in either"
    )
    func liveMeasuringBreak() async throws {
        var (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        configuration.live[0].origin = configuration.vod[0].origin
        // The live window moves only when the test advances the wall clock: 2 s a reload.
        let clock = TestClock(DateTime(iso8601: "2026-03-01T12:00:00Z")!)
        try await Harness.withServer(configuration, clock: clock) { client in
            let query = "?ads=stitched&session=live-measuring"
            var videoReloads = T.LiveReloads()
            var audioReloads = T.LiveReloads()
            // The viewer's first break still to play (as the interstitial form lists it): its span,
            // and when it has left the window.
            var firstBreak: (start: DateTime, end: DateTime)?
            var reloadsInBreak = 0
            var waited = false
            for reload in 0..<60 {
                if firstBreak == nil {
                    let plain = PlaylistParser.parse(try await client.text("/demo/live/video/main.m3u8"))
                    for range in plain.playlist.media?.dateRanges ?? []
                    where range.className == "com.apple.hls.interstitial" {
                        guard let start = range.startDate else { continue }
                        let end = start + (range.duration ?? range.plannedDuration ?? MediaTime(seconds: 10))
                        if end > clock.now {
                            firstBreak = (start, end)
                            break
                        }
                    }
                }
                if let span = firstBreak, clock.now >= span.start, clock.now < span.end { reloadsInBreak += 1 }
                let video = try await client.text("/demo/live/video/main.m3u8" + query)
                let audio = try await client.text("/demo/live/audio-en/main.m3u8" + query)
                _ = try videoReloads.check(video, reload: reload)
                _ = try audioReloads.check(audio, reload: reload)
                let inVideo = try await Self.ads(video, client: client)
                let inAudio = try await Self.ads(audio, client: client)
                #expect(
                    inVideo.isEmpty && inAudio.isEmpty,
                    "reload \(reload): the viewer's first break, decided while measuring, plays no ad: \(inVideo) \(inAudio)"
                )
                if reloadsInBreak > 0, !waited {
                    // The reading completes while the viewer is in the break: it stays left out.
                    waited = true
                    #expect(try await Self.measured(client), "the ads' audio media is read")
                }
                clock.advance(2)
                if let span = firstBreak, clock.now > span.end + MediaTime(seconds: 14) { break }
            }
            #expect(reloadsInBreak >= 3, "the reloads go through the first break")
            #expect(try await StitchedConditioningTests.fallbacks(client, "measuring") >= 1)
        }
    }
}
