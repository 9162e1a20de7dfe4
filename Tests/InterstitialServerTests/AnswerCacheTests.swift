import AsyncHTTPClient
import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

@Suite("Answer cache: the fast lane's playlist answers kept while they hold")
struct AnswerCacheTests {
    let epoch = ServerConfiguration.defaultEpoch

    @Test("A live loop's next change: the window is the same until then and moves on then", arguments: [6, 12])
    func nextChange(windowSegments: Int) throws {
        let video = try demoMedia("video/main.m3u8")
        let loop = try #require(
            LiveLoop(
                source: video, loopDuration: MediaTime(seconds: 40), epoch: epoch, windowSegments: windowSegments))
        #expect(loop.nextChange(after: epoch - MediaTime(seconds: 1)) == nil)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let now = epoch + MediaTime(nanoseconds: Int64.random(in: 0...400_000_000_000, using: &generator))
            let change = try #require(loop.nextChange(after: now))
            #expect(change > now)
            let range = loop.range(at: now)
            // Just before the change, the same window; at it, the same or (past the first window) a later one.
            #expect(loop.range(at: change - MediaTime(nanoseconds: 1)) == range)
            let after = loop.range(at: change)
            #expect(after == range || after.upperBound == range.upperBound + 1)
            if now - epoch > MediaTime(seconds: 2 * Double(windowSegments)) { #expect(after != range) }
        }
    }

    @Test("Kept answers hold for their state version and until their time; the cache is bounded")
    func holds() throws {
        let cache = AnswerCache(limit: 2)
        let mounted = ContentLibrary.Mounted(
            content: try ServerConfiguration.demo().vod[0], target: Target(.vod, "demo"), rest: "video/main.m3u8")
        let answer = FastLane.Answer(fields: [:], body: .bytes(.init()))
        let now = epoch
        cache.keep(.init(answer: answer, mounted: mounted, reuse: .init(version: 3, until: nil)), for: "/vod")
        cache.keep(
            .init(answer: answer, mounted: mounted, reuse: .init(version: 3, until: now + MediaTime(seconds: 2))),
            for: "/live")
        #expect(cache.entry("/vod", version: 3, now: now + MediaTime(seconds: 1_000)) != nil)
        #expect(cache.entry("/vod", version: 4, now: now) == nil, "another state")
        #expect(cache.entry("/live", version: 3, now: now + MediaTime(seconds: 1.9)) != nil)
        #expect(cache.entry("/live", version: 3, now: now + MediaTime(seconds: 2)) == nil, "the window moved on")
        #expect(cache.entry("/other", version: 3, now: now) == nil)
        cache.keep(.init(answer: answer, mounted: mounted, reuse: .init(version: 3, until: nil)), for: "/third")
        #expect(cache.count == 1, "full: dropped and kept again")
    }

    @Test(
        "Through the fast lane: a kept playlist is given again byte for byte, and not after an admin break or a new live window"
    )
    func throughFastLane() async throws {
        try await withDemoLibrary { library, _, clock in
            let (lane, routes) = fastLane(library)
            func body(_ target: String) -> [UInt8]? {
                guard let answer = lane.answer(target, RequestViewer()), case .bytes(let buffer) = answer.body else {
                    return nil
                }
                return Array(buffer.readableBytesView)
            }
            let vod = "/demo/vod/video/main.m3u8"
            let live = "/demo/live/video/main.m3u8"
            for path in [vod, live] { _ = try await FastLaneTests.settled(library, path) }
            let vodBytes = try #require(body(vod))
            let liveBytes = try #require(body(live))
            #expect(routes.answers.count == 2, "both kept")
            #expect(body(vod) == vodBytes && body(live) == liveBytes)
            #expect(try FastLaneTests.known(library, vod) == vodBytes, "the kept answer is the library's")

            var request = InsertionRequest(id: "answer-cache-break")
            request.at = MediaTime(seconds: 20)
            request.duration = MediaTime(seconds: 6)
            try await Catalog(library: library).createBreak(
                Break(target: Target(.vod, "demo"), interstitial: request, ad: "ad1"))
            #expect(body(vod) == nil, "an admin break: not given again, left to the full path")
            let after = try await FastLaneTests.settled(library, vod)
            #expect(body(vod) == after && after != vodBytes)

            _ = try await FastLaneTests.settled(library, live)
            let window = try #require(body(live))
            clock.advance(6)
            #expect(body(live) == nil, "a new live window: not given again")
            let next = try await FastLaneTests.settled(library, live)
            #expect(body(live) == next && next != window)
        }
    }

    @Test(
        "A live asset list answered on the fast lane counts its viewer, as the full path does (the twins had drifted)"
    )
    func fastAssetListCountsViewer() async throws {
        try await withDemoLibrary { library, _, clock in
            let (lane, _) = fastLane(library)
            var request = InsertionRequest(id: "fast-viewers")
            request.date = clock.now - MediaTime(seconds: 4)
            request.duration = MediaTime(seconds: 10)
            try await Catalog(library: library).createBreak(
                Break(target: Target(.live, "demo"), interstitial: request))
            let list = "/demo/live/asset-list.json?_HLS_interstitial_id=fast-viewers&_HLS_primary_id="
            // Served in the live window first, as a player finds it.
            let window = try await FastLaneTests.settled(library, "/demo/live/video/main.m3u8")
            #expect(String(decoding: window, as: UTF8.self).contains("fast-viewers"))
            // The first may take the full path (the window's timeline is found then); then the fast lane.
            _ = try await library.get(
                try #require(library.mounted("/demo/live/asset-list.json")),
                query: ["_HLS_interstitial_id": "fast-viewers", "_HLS_primary_id": "full"])
            let before = library.sessions.count(Target(.live, "demo"))
            let answer = try #require(lane.answer(list + "fast-1", RequestViewer()), "answered on the fast lane")
            guard case .bytes(let body) = answer.body else {
                Issue.record("an asset list in memory")
                return
            }
            #expect(String(buffer: body).contains("\"ASSETS\""))
            #expect(library.sessions.count(Target(.live, "demo")) == before + 1)
        }
    }
}
