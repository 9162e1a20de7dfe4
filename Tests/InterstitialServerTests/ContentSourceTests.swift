import AsyncHTTPClient
import Foundation
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// A content directory as the server's fetcher for the one presentation loader (issue 15).
@Suite("ContentSource")
struct ContentSourceTests {
    static func withSource(_ body: (ContentSource) async throws -> Void) async throws {
        let configuration = try Harness.demo()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let source = ContentSource(
            content: configuration.vod[0], files: PlaylistFileCache(),
            upstream: UpstreamClient(
                configuration: configuration, client: client, logger: Harness.logger, clock: SystemServerClock()))
        do {
            try await body(source)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test(
        "The primary of a directory's multivariant entry is its first variant, loaded through the presentation loader")
    func primaryOfDirectory() async throws {
        try await Self.withSource { source in
            #expect(source.entryLocation == "master.m3u8")
            let primary = try await source.primary()
            #expect(primary.location == "video/main.m3u8")
            #expect(primary.playlist.segments.map(\.uri) == (try demoMedia("video/main.m3u8")).segments.map(\.uri))
        }
    }

    @Test("Only files under the directory are read: other paths are 404")
    func staysInDirectory() async throws {
        try await Self.withSource { source in
            for location in ["../ads/ad1/main.m3u8", "/etc/passwd", "missing.m3u8"] {
                await expectRefusal(404, "not-found") { try await source.playlist(location) }
                await expectRefusal(404, "not-found") { try await source.fetchBytes(location) }
            }
            guard case .directory(let directory) = source.content.origin else { return }
            let bytes = try await source.fetchBytes("master.m3u8")
            #expect(bytes == Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/master.m3u8"))))
        }
    }
}
