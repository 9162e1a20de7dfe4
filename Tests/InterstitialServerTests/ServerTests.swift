import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

@Suite("InterstitialServer over HTTP")
struct ServerTests {
    @Test("Every media playlist of the VOD demo gets the identical interstitials; the multivariant passes through")
    func vodPlaylists() async throws {
        try await Harness.withServer { client in
            let master = try await client.text("/demo/vod/master.m3u8")
            let configuration = try ServerConfiguration.demo()
            guard case .directory(let directory) = configuration.vod[0].origin else { return }
            #expect(master == (try String(contentsOfFile: directory + "/master.m3u8", encoding: .utf8)))
            var sets: [[String]] = []
            for name in ["video", "audio-en", "audio-fr"] {
                let text = try await client.text("/demo/vod/\(name)/main.m3u8")
                sets.append(dateRangeLines(text))
                let result = PlaylistParser.parse(text)
                let diagnostics = result.diagnostics + InterstitialValidator.validate(result)
                #expect(!diagnostics.contains { $0.severity == .error }, "\(diagnostics)")
                #expect(text.contains("#EXT-X-PROGRAM-DATE-TIME:2000-01-01T00:00:00.000Z\n"))
            }
            #expect(sets[0].count == 4)
            #expect(sets.allSatisfy { $0 == sets[0] })
            let segment = try await client.get("/demo/vod/video/seg003.m4s")
            #expect(segment.status == .ok)
            #expect(segment.headers[.contentType] == "video/iso.segment")
            #expect(
                segment.body.readableBytes
                    == (try Data(contentsOf: URL(fileURLWithPath: directory + "/video/seg003.m4s")).count))
            #expect(try await client.get("/demo/vod/video/seg999.m4s").status == .notFound)
            let timeline = try await client.get("/demo/vod/timeline.json")
            #expect(timeline.text.contains("\"id\" : \"midroll-2\""))
        }
    }

    @Test("Asset lists are decided per request: rebinding on repeat, ONCE not refilled, R11 start offset, clear errors")
    func assetLists() async throws {
        try await Harness.withServer { client in
            let list = "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2"
            let first = try AssetList.decode(Array(try await client.text(list + "&_HLS_primary_id=viewer-1").utf8))
            #expect(!first.assets.isEmpty)
            #expect(first.totalDuration <= MediaTime(seconds: 10.5))
            #expect(first.skipControl?.offset == MediaTime(seconds: 2))
            #expect(
                first.assets.allSatisfy {
                    $0.uri.hasPrefix("http://") && $0.uri.hasSuffix("_HLS_interstitial_id=midroll-2")
                })
            let again = try AssetList.decode(Array(try await client.text(list + "&_HLS_primary_id=viewer-1").utf8))
            #expect(again.assets.map(\.uri) != first.assets.map(\.uri), "a viewer who rewatches gets other ads")
            let pre = "/demo/vod/asset-list.json?_HLS_interstitial_id=preroll&_HLS_primary_id=viewer-1"
            #expect(!(try AssetList.decode(Array(try await client.text(pre).utf8))).assets.isEmpty)
            #expect(try await client.text(pre) == "{\"ASSETS\":[]}", "a ONCE break is not refilled")
            let late = try AssetList.decode(Array(try await client.text(list + "&_HLS_start_offset=3.5").utf8))
            #expect(late.assets.first?.duration == MediaTime(seconds: 3.5))
            let missing = try await client.get("/demo/vod/asset-list.json")
            #expect(missing.status == .badRequest)
            #expect(missing.errorPath == "_HLS_interstitial_id")
            let bad = try await client.get(list + "&_HLS_start_offset=soon")
            #expect(bad.status == .badRequest)
            #expect(bad.errorPath == "_HLS_start_offset")
            #expect(try await client.get("/demo/vod/asset-list.json?_HLS_interstitial_id=nope").status == .notFound)
            // midroll-1 has a fixed X-ASSET-URI: the server has no asset list for it.
            #expect(
                try await client.get("/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-1").status == .notFound)
        }
    }

    struct SlowInventory: AdInventory {
        func candidates(for target: Target, breakID: String) async throws -> [Ad] {
            try await Task.sleep(nanoseconds: 600_000_000_000)
            return [Ad(id: "late", uri: "/late.m3u8", duration: MediaTime(seconds: 5))]
        }
    }

    struct FailingInventory: AdInventory {
        struct Down: Error {}
        func candidates(for target: Target, breakID: String) async throws -> [Ad] { throw Down() }
    }

    @Test("A slow or failing inventory gives an empty break in time, and never a failed playlist")
    func inventoryFailures() async throws {
        var configuration = try Harness.demo()
        configuration.assetListDeadline = MediaTime(seconds: 0.2)
        for inventory in [SlowInventory() as any AdInventory, FailingInventory()] {
            // The deadline is on the server's clock, which the test moves: the slow inventory never
            // answers (10 minutes of real time), so an answer at all means the deadline cut it.
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration.ticked, inventory: inventory, serverClock: clock) { client in
                let text = try await ticking(clock) {
                    try await client.text("/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2")
                }
                #expect(text == "{\"ASSETS\":[],\"SKIP-CONTROL\":{\"DURATION\":6,\"OFFSET\":2}}")
                #expect(dateRangeLines(try await client.text("/demo/vod/video/main.m3u8")).count == 4)
            }
        }
    }

    @Test("Malformed and traversing paths are refused with 400; unknown paths are 404")
    func badPaths() async throws {
        try await Harness.withServer { client in
            for path in [
                "/demo/vod/%2e%2e/%2e%2e/etc/passwd", "/demo/vod/video/..%2F..%2Fmaster.m3u8", "/ads/%2e%2e/x",
                "/demo/vod/video/%00.m3u8",
            ] {
                let response = try await client.get(path)
                #expect(response.status == .badRequest, "\(path): \(response.status)")
                #expect(response.errorCode == "bad-path")
            }
            #expect(try await client.get("/nothing/here.m3u8").status == .notFound)
            #expect(try await client.get("/ads/ad1/missing.m3u8").status == .notFound)
            let page = try await client.text("/")
            #expect(page.contains("/demo/vod/master.m3u8") && page.contains("/demo/live/master.m3u8"))
        }
    }
}
