import HLSPlaylist
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

@Suite("Upstream playlists shared by the viewers asking at the same time")
struct UpstreamPlaylistShareTests {
    static let playlist = PlaylistParser.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n")

    @Test("Requests while a fetch is in flight wait for it: one fetch for all of them")
    func inFlight() async throws {
        let share = UpstreamPlaylistShare<ParseResult>(reuse: .zero, clock: ManualServerClock.starting())
        let fetches = NIOLockedValueBox(0)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let (started, didStart) = AsyncStream.makeStream(of: Void.self)
        let fetch: @Sendable () async throws(APIError) -> ParseResult = {
            fetches.withLockedValue { $0 += 1 }
            didStart.yield()
            for await _ in gate { break }
            return Self.playlist
        }
        try await withThrowingTaskGroup(of: ParseResult.self) { group in
            group.addTask { try await share.playlist("http://o/a.m3u8", fetch: fetch) }
            for await _ in started { break }
            // The fetch is in flight: these join it.
            for _ in 0..<5 { group.addTask { try await share.playlist("http://o/a.m3u8", fetch: fetch) } }
            while share.shared < 5 { await Task.yield() }
            open.yield()
            open.finish()
            var answers = 0
            for try await _ in group { answers += 1 }
            #expect(answers == 6)
        }
        #expect(fetches.withLockedValue { $0 } == 1)
    }

    @Test(
        "An answer serves later requests for `reuse` on the server's clock; then, or for another URL, there is a new fetch"
    )
    func reuse() async throws {
        let fetches = NIOLockedValueBox(0)
        let fetch: @Sendable () async throws(APIError) -> ParseResult = {
            fetches.withLockedValue { $0 += 1 }
            return Self.playlist
        }
        let clock = ManualServerClock.starting()
        let kept = UpstreamPlaylistShare<ParseResult>(reuse: MediaTime(seconds: 1), clock: clock)
        for _ in 0..<3 { _ = try await kept.playlist("http://o/a.m3u8", fetch: fetch) }
        #expect(fetches.withLockedValue { $0 } == 1)
        _ = try await kept.playlist("http://o/b.m3u8", fetch: fetch)
        #expect(fetches.withLockedValue { $0 } == 2)
        clock.advance(0.999)
        _ = try await kept.playlist("http://o/a.m3u8", fetch: fetch)
        #expect(fetches.withLockedValue { $0 } == 2, "within `reuse` of the fetch's end: shared")
        clock.advance(0.001)
        _ = try await kept.playlist("http://o/a.m3u8", fetch: fetch)
        #expect(fetches.withLockedValue { $0 } == 3, "`reuse` after the fetch's end: fetched again")
        let fresh = UpstreamPlaylistShare<ParseResult>(reuse: .zero, clock: clock)
        for _ in 0..<3 { _ = try await fresh.playlist("http://o/a.m3u8", fetch: fetch) }
        #expect(fetches.withLockedValue { $0 } == 6)
    }

    @Test("An error is shared as the answer is, and the URLs remembered are bounded")
    func errorsAndBounds() async throws {
        let fetches = NIOLockedValueBox(0)
        let failing: @Sendable () async throws(APIError) -> ParseResult = { () async throws(APIError) -> ParseResult in
            fetches.withLockedValue { $0 += 1 }
            throw APIError(status: 502, code: .upstreamFailed, "down")
        }
        let share = UpstreamPlaylistShare<ParseResult>(
            reuse: MediaTime(seconds: 3600), countLimit: 4, clock: ManualServerClock.starting())
        for _ in 0..<2 {
            await #expect(throws: APIError.self) { try await share.playlist("http://o/a.m3u8", fetch: failing) }
        }
        #expect(fetches.withLockedValue { $0 } == 1)
        for index in 0..<10 {
            _ = try? await share.playlist("http://o/\(index).m3u8", fetch: failing)
            #expect(share.count <= 4)
        }
    }
}
