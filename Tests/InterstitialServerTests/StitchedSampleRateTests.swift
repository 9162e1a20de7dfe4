import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

/// The sample rate of an ad's audio read from its media (issue 45, profile R28): an ad whose audio
/// renditions declare no SAMPLE-RATE but whose init segments are 44.1 kHz is left out of a 48 kHz
/// primary's audio playlists (`media`), once its media has been read (`measuring` until then),
/// while its video is stitched; an ad whose media is 48 kHz is stitched.
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

    @Test("an ad without SAMPLE-RATE whose media is 44.1 kHz is refused for a 48 kHz primary; its video is stitched")
    func refusedForItsMedia() async throws {
        let (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Harness.withServer(configuration) { client in
            let first = "?ads=stitched&session=sample-rate-0"
            let master = try await client.text("/demo/vod/master.m3u8" + first)
            #expect(master.contains("SAMPLE-RATE=48000"))
            // The first viewer: the ads' audio media is being read, so their audio is left out.
            let audio = try await client.text("/demo/vod/audio-en/main.m3u8" + first)
            #expect(T.problems(audio).isEmpty, "\(T.problems(audio))")
            #expect(try await StitchedConditioningTests.fallbacks(client, "measuring") >= 1)
            // Once read: ad3 (48 kHz) is stitched into the audio, ad2 (44.1 kHz) is not.
            // (Polled, bounded: the reading runs in the background; its time decides nothing.)
            var session = 0
            var locations: [String] = []
            var read = false
            let end = ContinuousClock.now + .seconds(120)
            while !read && ContinuousClock.now < end {
                session += 1
                let text = try await client.text(
                    "/demo/vod/audio-en/main.m3u8?ads=stitched&session=sample-rate-\(session)")
                locations = try await StitchedConditioningTests.adLocations(text, client: client)
                read = locations.contains { $0.contains("/ads/ad3/") }
                if !read { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(read, "ad3's audio is stitched once its media has been read: \(locations)")
            #expect(!locations.contains { $0.contains("/ads/ad2/") }, "\(locations)")
            #expect(try await StitchedConditioningTests.fallbacks(client, "media") >= 1)
            // Its video fits: ad2 plays in the video playlist of the same viewer.
            let video = try await client.text("/demo/vod/video/main.m3u8?ads=stitched&session=sample-rate-\(session)")
            let videoLocations = try await StitchedConditioningTests.adLocations(video, client: client)
            #expect(videoLocations.contains { $0.contains("/ads/ad2/") }, "\(videoLocations)")
        }
    }
}
