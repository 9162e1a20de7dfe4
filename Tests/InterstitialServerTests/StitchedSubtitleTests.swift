import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

/// Subtitle renditions of the stitched form (issue 45, profile R28), on the demo's primary with an
/// English WebVTT rendition (Tests/Fixtures/subtitles): the stitched multivariant playlist's
/// subtitle URI carries the form, and the subtitle playlist has the video's segments, durations and
/// discontinuities (VOD and live, reload after reload), with the server's empty WebVTT document
/// while the ads play.
@Suite("The stitched form's subtitles")
struct StitchedSubtitleTests {
    typealias T = StitchedFormTests

    /// The demo configuration with its primary (VOD and live) replaced by a copy with subtitles.
    static func configuration() throws -> (ServerConfiguration, directory: URL) {
        var configuration = try Harness.demo()
        guard case .directory(let demo) = configuration.vod[0].origin else {
            throw APIError(status: 500, code: .config, "the demo is not a directory")
        }
        let files = FileManager.default
        let directory = files.temporaryDirectory.appendingPathComponent("hlsi-subtitles-\(UUID().uuidString)")
        try files.copyItem(at: URL(fileURLWithPath: demo), to: directory)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/subtitles")
        try files.removeItem(at: directory.appendingPathComponent("master.m3u8"))
        try files.copyItem(
            at: fixture.appendingPathComponent("master.m3u8"), to: directory.appendingPathComponent("master.m3u8"))
        try files.copyItem(
            at: fixture.appendingPathComponent("subs-en"), to: directory.appendingPathComponent("subs-en"))
        configuration.vod[0].origin = .directory(directory.path)
        configuration.live[0].origin = .directory(directory.path)
        return (configuration, directory)
    }

    /// What a player matches across renditions: each segment's duration and discontinuity sequence
    /// number, its discontinuity, and whether an ad plays in it.
    static func shape(_ playlist: MediaPlaylist) -> [String] {
        playlist.segments.map { segment in
            let ad = segment.uri.contains(StitchedBeacons.prefix)
            return "\(segment.mediaSequence):\(segment.duration)/\(segment.discontinuitySequence)"
                + (segment.discontinuity ? "|" : "") + (ad ? "ad" : "")
        }
    }

    /// Each segment's Media Sequence Number, duration, and whether an ad plays in it.
    static func timing(_ playlist: MediaPlaylist) -> [String] {
        playlist.segments.map { segment in
            "\(segment.mediaSequence):\(segment.duration)" + (segment.uri.contains(StitchedBeacons.prefix) ? "ad" : "")
        }
    }

    /// The discontinuities `playlist` has that `video` (a window of the same segments) has not, when
    /// it has every one of the video's and its discontinuity sequence numbers differ from the
    /// video's only by those; nil otherwise.
    static func ownDiscontinuities(_ playlist: MediaPlaylist, against video: MediaPlaylist) -> Int? {
        guard playlist.segments.count == video.segments.count else { return nil }
        var own = 0
        var offset: Int64?
        for (segment, other) in zip(playlist.segments, video.segments) {
            guard !other.discontinuity || segment.discontinuity else { return nil }
            let difference = Int64(segment.discontinuitySequence) - Int64(other.discontinuitySequence)
            let extra = segment.discontinuity && !other.discontinuity
            if extra { own += 1 }
            if let offset, difference != offset + (extra ? 1 : 0) { return nil }
            offset = difference
        }
        return own
    }

    static func media(_ text: String) throws -> MediaPlaylist {
        try #require(PlaylistParser.parse(text).playlist.media)
    }

    @Test("VOD: the subtitle URI carries the form; its playlist has the video's segments, empty WebVTT during ads")
    func vod() async throws {
        let (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Harness.withServer(configuration) { client in
            let query = "?ads=stitched&session=subtitle-viewer"
            let master = try await client.text("/demo/vod/master.m3u8" + query)
            #expect(master.contains("URI=\"subs-en/main.m3u8?ads=stitched&session=subtitle-viewer\""), "\(master)")
            let video = try await client.text("/demo/vod/video/main.m3u8" + query)
            let subtitles = try await client.text("/demo/vod/subs-en/main.m3u8" + query)
            #expect(T.problems(subtitles).isEmpty, "\(T.problems(subtitles))\n\(subtitles)")
            #expect(!subtitles.contains("#EXT-X-DATERANGE"))
            let videoPlaylist = try Self.media(video)
            let subtitlePlaylist = try Self.media(subtitles)
            #expect(Self.shape(subtitlePlaylist) == Self.shape(videoPlaylist), "\(subtitles)")
            #expect(subtitlePlaylist.duration == videoPlaylist.duration)
            let ads = subtitlePlaylist.segments.filter { $0.uri.contains(StitchedBeacons.prefix) }
            #expect(ads.count >= 4, "every break's ads: \(subtitles)")
            #expect(ads.allSatisfy { T.path(of: $0.uri) == StitchedService.emptySubtitlesPath })
            // The primary's own cues after the ads.
            #expect(subtitlePlaylist.segments.contains { $0.uri.hasSuffix("seg019.vtt") })
            // The document they list.
            let document = try await client.get(StitchedService.emptySubtitlesPath)
            #expect(document.status == .ok)
            #expect(document.headers[.contentType] == "text/vtt")
            #expect(Array(document.body.readableBytesView) == StitchSubtitles.emptyDocument)
            // The interstitial form of the same playlist is not stitched.
            #expect(try await client.text("/demo/vod/subs-en/main.m3u8").contains("#EXT-X-DATERANGE"))
        }
    }

    @Test("live: through a break, the subtitle window has the video's sequence numbers, durations and discontinuities")
    func live() async throws {
        let (configuration, directory) = try Self.configuration()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock(DateTime(iso8601: "2026-03-01T12:00:00Z")!)
        try await Harness.withServer(configuration, clock: clock) { client in
            let query = "?ads=stitched&session=live-subtitles"
            var seen: [UInt64: String] = [:]
            var reloadsInBreak = 0
            for reload in 0..<45 {
                let video = try Self.media(try await client.text("/demo/live/video/main.m3u8" + query))
                let text = try await client.text("/demo/live/subs-en/main.m3u8" + query)
                #expect(T.problems(text).isEmpty, "reload \(reload): \(T.problems(text))\n\(text)")
                let subtitles = try Self.media(text)
                #expect(subtitles.mediaSequence == video.mediaSequence, "reload \(reload)")
                #expect(Self.timing(subtitles) == Self.timing(video), "reload \(reload)\n\(text)")
                // The stitch's discontinuities are the video's. The demo's loop adds one of its own to
                // WebVTT at each loop (its fMP4 video runs on, `LiveLoop`): the only difference.
                #expect(
                    Self.ownDiscontinuities(subtitles, against: video) != nil,
                    "reload \(reload): the discontinuities differ from the video's by more than the loop's\n\(text)")
                if subtitles.segments.contains(where: { $0.uri.contains(StitchedBeacons.prefix) }) {
                    reloadsInBreak += 1
                }
                for segment in subtitles.segments {
                    let entry = "\(segment.uri)/\(segment.discontinuitySequence)"
                    if let before = seen[segment.mediaSequence] {
                        #expect(before == entry, "reload \(reload): MSN \(segment.mediaSequence) changed")
                    }
                    seen[segment.mediaSequence] = entry
                }
                clock.advance(2)
            }
            #expect(reloadsInBreak >= 5, "the reloads go through a break")
        }
    }
}
