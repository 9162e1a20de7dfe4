import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

@Suite("The demo page and what it reads: its scripts, timeline.json for live, looped segments moved on")
struct DemoPageTests {
    @Test("Without --hlsjs the page loads nothing from another host; with it, the URL is in its configuration")
    func pageConfiguration() throws {
        let configuration = try Harness.demo()
        let page = DemoPage.html(configuration: configuration, hlsjs: nil)
        #expect(page.contains(#"{"hlsjs":null,"hlsjsSource":null}"#))
        #expect(page.contains(#"<script type="module" src="/page/page.mjs"></script>"#))
        #expect(!page.contains("://"))
        #expect(page.contains(#"<option value="/demo/live/master.m3u8">"#))
        var withHLSJS = configuration
        withHLSJS.hlsjs = "https://example.com/</script><script>alert(1)</script>/hls.mjs"
        let other = DemoPage.html(configuration: withHLSJS, hlsjs: withHLSJS.hlsjs)
        #expect(!other.contains("</script><script>alert"))
        #expect(other.contains(#"<\/script>"#))
    }

    @Test("The page's files are served with their types; nothing else is under /page/")
    func pageFiles() async throws {
        try await Harness.withServer { client in
            for (name, type) in [
                ("page.mjs", "text/javascript"), ("player.mjs", "text/javascript"),
                ("controller.mjs", "text/javascript"), ("tracking.mjs", "text/javascript"), ("page.css", "text/css"),
            ] {
                let response = try await client.get("/page/" + name)
                #expect(response.status == .ok, "\(name)")
                #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(name)")
            }
            #expect(try await client.get("/page/missing.mjs").status == .notFound)
            #expect(try await client.get("/page/..").status == .notFound)
            #expect(try await client.get("/page/.hidden").status == .notFound)
            let page = try await client.text("/")
            #expect(page.contains("built-in") || page.contains("/page/page.mjs"))
        }
    }

    @Test("A live channel's timeline.json is the schedule of its media playlist as served now, dated")
    func liveTimeline() async throws {
        // 100.5 s into a day: the cadence break of minute 1 (at 90 s) is in the window.
        let clock = TestClock(ServerConfiguration.defaultEpoch + MediaTime(seconds: 86_400 + 100.5))
        try await Harness.withServer(clock: clock) { client in
            let playlist = try await client.text("/demo/live/video/main.m3u8")
            let data = try await client.get("/demo/live/timeline.json")
            #expect(data.status == .ok)
            #expect(data.headers[.cacheControl] == "no-store")
            let document = try JSONDecoder().decode(ScheduleDocument.self, from: Data(buffer: data.body))
            #expect(document.live)
            #expect(document.startDate == "2026-01-02T00:01:28.000Z")
            #expect(document.events.count == dateRangeLines(playlist).count)
            let event = try #require(document.events.first)
            #expect(event.date == "2026-01-02T00:01:30.000Z")
            #expect(event.assetList?.hasPrefix("/demo/live/asset-list.json?_HLS_interstitial_id=") == true)
            #expect(event.resumeOffset == nil)
            #expect(event.start == 2)
        }
    }

    @Test("Looped segments ask to be moved by whole loops, and are; a bad shift gets 400")
    func shiftedSegments() async throws {
        let clock = TestClock(ServerConfiguration.defaultEpoch + MediaTime(seconds: 86_400 + 100.5))
        try await Harness.withServer(clock: clock) { client in
            let playlist = try await client.text("/demo/live/video/main.m3u8")
            #expect(!playlist.contains("DISCONTINUITY"))
            // Loop 2162 (86,480 s / 40 s) of 40 s at 12,800 ticks a second.
            #expect(playlist.contains("?shift=\(2162 * 512_000)\n"))
            let plain = try await client.get("/demo/live/video/seg003.m4s")
            let moved = try await client.get("/demo/live/video/seg003.m4s?shift=512000")
            #expect(moved.status == .ok)
            #expect(moved.body.readableBytes == plain.body.readableBytes)
            #expect(moved.body != plain.body)
            let bad = try await client.get("/demo/live/video/seg003.m4s?shift=-1")
            #expect(bad.status == .badRequest)
            #expect(String(buffer: bad.body).contains("bad-shift"))
            let notMP4 = try await client.get("/demo/live/video/init_0.mp4?shift=5")
            #expect(notMP4.status == .badRequest)
        }
    }

    @Test("A shifted segment is read once and kept; one over the kept-file limit is refused without reading it")
    func shiftedSegmentsAreKept() async throws {
        let configuration = try Harness.demo()
        let server = try InterstitialServer(configuration: configuration, logger: Harness.logger)
        let client = server.makeHTTPClient()
        func library(_ bodies: FileBodyCache) -> ContentLibrary {
            ContentLibrary(
                configuration: configuration, state: server.state, inventory: StoredInventory(state: server.state),
                client: client, logger: Harness.logger, now: { DateTime(Date()) }, fileBodies: bodies)
        }
        let kept = FileBodyCache()
        let shared = library(kept)
        let mounted = try #require(shared.mounted("/demo/live/video/seg003.m4s"))
        let first = try await shared.get(mounted, query: ["shift": "512000"])
        let second = try await shared.get(mounted, query: ["shift": "1024000"])
        guard case .bytes(let one) = first.body, case .bytes(let two) = second.body else {
            Issue.record("a shifted segment is not bytes")
            return
        }
        #expect(one.count == two.count && one != two)
        #expect(kept.size.count == 1, "the segment's bytes are kept after the first request")
        let small = library(FileBodyCache(fileLimit: 1000))
        do {
            _ = try await small.get(mounted, query: ["shift": "5"])
            Issue.record("a segment over the limit was shifted")
        } catch {
            #expect(error.code == .badShift)
            #expect(error.message.contains("bytes can be shifted"), "\(error.message)")
        }
        try await client.shutdown()
    }
}
