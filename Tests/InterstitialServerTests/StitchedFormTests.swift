import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// The stitched form on the server (issue 45): the same ads as the interstitial form for a session,
/// beacons fired as ad segments are fetched, live sequence numbers that hold from reload to reload,
/// and playlists the validator finds clean.
@Suite("The stitched form")
struct StitchedFormTests {
    /// The path and query of an absolute URL (what the test client asks).
    static func path(of url: String) -> String {
        guard let scheme = url.range(of: "://"), let slash = url[scheme.upperBound...].firstIndex(of: "/") else {
            return url
        }
        return String(url[slash...])
    }

    /// The errors and warnings the project's validator finds in a playlist.
    static func problems(_ text: String) -> [Diagnostic] {
        let result = PlaylistParser.parse(text, options: ParseOptions(file: "stitched.m3u8"))
        return (result.diagnostics + InterstitialValidator.validate(result)).filter { $0.severity != .note }
    }

    /// The ad presentations (`/ads/<name>/`) a stitched playlist plays, in order: the first segment
    /// of each ad, followed to where the server sends it.
    static func stitchedAds(_ text: String, client: any TestClientProtocol) async throws -> [String] {
        let media = try #require(PlaylistParser.parse(text).playlist.media)
        var ads: [String] = []
        var previous: String?
        for segment in media.segments where segment.uri.contains(StitchedBeacons.prefix) {
            let parts = Self.path(of: segment.uri).split(separator: "/")
            // A new ad: a new entry, or a discontinuity before its first segment.
            let entry = String(parts[1])
            guard entry != previous || segment.discontinuity else { continue }
            previous = entry
            guard parts.last?.hasPrefix("0") == true else { continue }
            let response = try await client.get(Self.path(of: segment.uri))
            #expect(response.status == .found)
            let location = try #require(response.headers[.location])
            let name = try #require(location.range(of: "/ads/")).upperBound
            ads.append(String(location[name...].prefix { $0 != "/" }))
        }
        return ads
    }

    @Test("a session's stitched VOD plays the ads its asset-list requests give, and validates clean")
    func sameAdsVOD() async throws {
        let session = "viewer-7"
        // The stitched form first, on one server.
        let stitched = NIOLockedValueBox<[String]>([])
        try await Harness.withServer { client in
            let master = try await client.text("/demo/vod/master.m3u8?ads=stitched&session=\(session)")
            #expect(master.contains("video/main.m3u8?ads=stitched&session=\(session)"))
            #expect(master.contains("URI=\"audio-en/main.m3u8?ads=stitched&session=\(session)\""))
            for name in ["video", "audio-en", "audio-fr"] {
                let text = try await client.text("/demo/vod/\(name)/main.m3u8?ads=stitched&session=\(session)")
                #expect(Self.problems(text).isEmpty, "\(name): \(Self.problems(text))")
                #expect(!text.contains("#EXT-X-DATERANGE"), "the interstitials are left out")
                #expect(text.contains("#EXT-X-DISCONTINUITY"))
                let ads = try await Self.stitchedAds(text, client: client)
                if name == "video" {
                    stitched.withLockedValue { $0 = ads }
                } else {
                    #expect(ads == stitched.withLockedValue { $0 }, "every rendition plays the same ads")
                }
            }
            // A new viewer gets a session of its own, written into every URL.
            let fresh = try await client.text("/demo/vod/master.m3u8?ads=stitched")
            #expect(fresh.contains("?ads=stitched&session="))
            #expect(try await client.get("/demo/vod/video/main.m3u8?ads=stitched&session=a%20b").status == .badRequest)
        }
        // The interstitial form for the same session, on a server in the same state.
        try await Harness.withServer { client in
            var ads: [String] = []
            for id in ["preroll", "midroll-1", "midroll-2", "postroll"] {
                let assets: [String]
                let answer = try await client.get(
                    "/demo/vod/asset-list.json?_HLS_interstitial_id=\(id)&_HLS_primary_id=\(session)")
                if answer.status == .ok {
                    assets = try AssetList.decode(Array(answer.text.utf8)).assets.map(\.uri)
                } else {
                    // A break with a fixed X-ASSET-URI: its ad is in the playlist.
                    let text = try await client.text("/demo/vod/video/main.m3u8")
                    let line = try #require(dateRangeLines(text).first { $0.contains("ID=\"\(id)\"") })
                    let uri = try #require(line.range(of: "X-ASSET-URI=\""))
                    assets = [String(line[uri.upperBound...].prefix { $0 != "\"" })]
                }
                ads += assets.map { uri in
                    let name = uri.range(of: "/ads/")!.upperBound
                    return String(uri[name...].prefix { $0 != "/" })
                }
            }
            #expect(ads == stitched.withLockedValue { $0 }, "the same ads in either form")
            #expect(!ads.isEmpty)
        }
    }

    /// An ad server whose one ad (`b1`, 6 s) is the demo's `ad1` presentation, served from its files,
    /// with a beacon for every event the stitched form fires.
    /// `adMaster` rewrites the ad's multivariant playlist.
    static func withAdServer(
        adMaster: @escaping @Sendable (String) -> String = { $0 }, _ body: (TestOrigin) async throws -> Void
    ) async throws {
        let origin = NIOLockedValueBoxString()
        let configuration = try ServerConfiguration.demo()
        let ads = try #require(configuration.adDirectory)
        try await TestOrigin.withOrigin(routes: { path in
            let base = origin.value
            if path.hasPrefix("/ads/"), let data = FileManager.default.contents(atPath: ads + path.dropFirst(4)) {
                if path == "/ads/ad1/master.m3u8" {
                    return .init(body: Array(adMaster(String(decoding: data, as: UTF8.self)).utf8))
                }
                return .init(body: Array(data))
            }
            if path == "/vmap" {
                // One pre-roll break from the VAST below, with the pod's own tracking.
                let vmap = """
                    <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
                      <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre">
                        <vmap:AdSource id="pre-source"><vmap:AdTagURI templateType="vast4">\(base)/vast</vmap:AdTagURI></vmap:AdSource>
                        <vmap:TrackingEvents>
                          <vmap:Tracking event="breakStart">\(base)/break-start</vmap:Tracking>
                          <vmap:Tracking event="breakEnd">\(base)/break-end</vmap:Tracking>
                        </vmap:TrackingEvents>
                      </vmap:AdBreak>
                    </vmap:VMAP>
                    """
                return .init(contentType: "application/xml", body: Array(vmap.utf8))
            }
            guard path == "/vast" else { return .init(contentType: "text/plain", body: []) }
            let events = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"].map {
                "<Tracking event=\"\($0)\">\(base)/\($0)-b1</Tracking>"
            }
            let vast = """
                <VAST version="4.2"><Ad id="b1"><InLine><AdSystem>test</AdSystem><AdTitle>b1</AdTitle>
                <Impression>\(base)/imp-b1</Impression>
                <Creatives><Creative id="c-b1"><UniversalAdId idRegistry="test-registry">ua-b1</UniversalAdId><Linear>
                <Duration>00:00:06</Duration><TrackingEvents>\(events.joined())</TrackingEvents>
                <MediaFiles><MediaFile delivery="streaming" type="application/x-mpegURL" width="320" height="180">\(base)/ads/ad1/master.m3u8</MediaFile></MediaFiles>
                </Linear></Creative></Creatives></InLine></Ad></VAST>
                """
            return .init(contentType: "application/xml", body: Array(vast.utf8))
        }) { server in
            origin.value = server.origin
            try await body(server)
        }
    }

    @Test(
        "beacons fire once per viewer and ad as its segments are fetched, whatever the tracking setting",
        arguments: ["client", "relay", "server"])
    func beacons(tracking: String) async throws {
        try await Self.withAdServer { adServer in
            var configuration = try AdServerTests.configuration(adServer.origin, tracking: tracking)
            configuration.vod[0].adServer = try AdServerSettings.decode(
                .object(["vast": .string(adServer.origin + "/vast?sid=[SESSIONID]"), "tracking": .string(tracking)]))
            try await Harness.withServer(configuration) { client in
                let query = "?ads=stitched&session=beacon-viewer"
                let video = try await client.text("/demo/vod/video/main.m3u8" + query)
                let audio = try await client.text("/demo/vod/audio-en/main.m3u8" + query)
                #expect(Self.problems(video).isEmpty, "\(Self.problems(video))")
                // Nothing fires when the ads are decided: the viewer has not played them.
                #expect(adServer.requests("/imp-b1").isEmpty)
                let segments = { (text: String) in
                    (PlaylistParser.parse(text).playlist.media?.segments.map(\.uri) ?? []).filter {
                        $0.contains(StitchedBeacons.prefix)
                    }
                }
                let routed = segments(video)
                // The pre-roll's first segment: its impression and start, and nothing else yet (none
                // was fired when the ads were decided, for either break).
                #expect(try await client.get(Self.path(of: try #require(routed.first))).status == .found)
                // Both are sent at once; they may arrive in either order on a loaded machine.
                #expect(try await eventually { adServer.requests("/start-b1").count >= 1 })
                #expect(try await eventually { adServer.requests("/imp-b1").count >= 1 })
                #expect(adServer.requests("/imp-b1").count == 1, "\(adServer.requests("/imp-b1"))")
                #expect(adServer.requests("/complete-b1").isEmpty)
                // The video twice (a seek back), then the audio: each event once per break.
                var fromAdServer = 0
                for uri in routed + routed + segments(audio) {
                    let response = try await client.get(Self.path(of: uri))
                    #expect(response.status == .found)
                    let location = try #require(response.headers[.location])
                    if location.hasPrefix(adServer.origin + "/ads/ad1/video/") { fromAdServer += 1 }
                }
                // The pre-roll and midroll-2 ask the ad server: b1 in each, three 2 s segments, fetched
                // twice; the other two breaks have the demo's own ads.
                #expect(fromAdServer == 12, "\(routed)")
                let expected = [
                    "/imp-b1", "/start-b1", "/firstQuartile-b1", "/midpoint-b1", "/thirdQuartile-b1", "/complete-b1",
                ]
                #expect(try await eventually { expected.allSatisfy { adServer.requests($0).count >= 2 } })
                for path in expected {
                    #expect(adServer.requests(path).count == 2, "\(path): \(adServer.requests(path))")
                }
                #expect(try await client.get("/stitched/0123456789abcdef0123456789abcdef/0/0.m4s").status == .notFound)
            }
        }
    }

    @Test("a VMAP break's own tracking fires once per viewer: breakStart at its first ad segment, breakEnd at its last")
    func podTracking() async throws {
        try await Self.withAdServer { adServer in
            var configuration = try Harness.demo()
            configuration.vod[0].adServer = AdServerSettings(
                vast: nil, vmap: adServer.origin + "/vmap", vmapBreakDuration: MediaTime(seconds: 6))
            configuration.assetListDeadline = MediaTime(seconds: 30)
            try await Harness.withServer(configuration) { client in
                let query = "?ads=stitched&session=pod-viewer"
                let video = try await client.text("/demo/vod/video/main.m3u8" + query)
                let audio = try await client.text("/demo/vod/audio-en/main.m3u8" + query)
                #expect(Self.problems(video).isEmpty, "\(Self.problems(video))")
                let routed = { (text: String) in
                    (PlaylistParser.parse(text).playlist.media?.segments.map(\.uri) ?? []).filter {
                        $0.contains(StitchedBeacons.prefix)
                    }
                }
                // The pre-roll (CUE=PRE: first) is b1, three segments of the VMAP break's pod.
                let pre = Array(routed(video).prefix(3))
                #expect(pre.count == 3)
                #expect(Set(pre.map { Self.path(of: $0).split(separator: "/")[1] }).count == 1, "\(pre)")
                #expect(adServer.requests("/break-start").isEmpty, "nothing fires when the ads are decided")
                #expect(try await client.get(Self.path(of: pre[0])).status == .found)
                #expect(try await eventually { adServer.requests("/imp-b1").count == 1 })
                #expect(try await eventually { adServer.requests("/break-start").count == 1 })
                #expect(adServer.requests("/break-end").isEmpty, "the break has not ended")
                #expect(try await client.get(Self.path(of: pre[1])).status == .found)
                #expect(try await client.get(Self.path(of: pre[2])).status == .found)
                #expect(try await eventually { adServer.requests("/complete-b1").count == 1 })
                #expect(try await eventually { adServer.requests("/break-end").count == 1 })
                // Again, and the audio rendition: once per viewer.
                for uri in pre + routed(audio).prefix(3) {
                    #expect(try await client.get(Self.path(of: uri)).status == .found)
                }
                // Another viewer fires its own.
                let other = try await client.text("/demo/vod/video/main.m3u8?ads=stitched&session=pod-viewer-2")
                for uri in routed(other).prefix(3) {
                    #expect(try await client.get(Self.path(of: uri)).status == .found)
                }
                #expect(try await eventually { adServer.requests("/break-end").count == 2 })
                #expect(adServer.requests("/break-start").count == 2, "\(adServer.requests("/break-start"))")
                #expect(adServer.requests("/break-end").count == 2, "\(adServer.requests("/break-end"))")
            }
        }
    }

    @Test(
        "an ad whose one variant has another FRAME-RATE than the primary's is left out, counted as a media fallback",
        arguments: [("30", true), ("30.000", true), ("29.970", false), ("25", false)])
    func frameRateFallback(adRate: String, stitched: Bool) async throws {
        // The demo primary, its variant declaring 30 frames per second.
        guard case .directory(let source)? = try ServerConfiguration.demo().vod.first?.origin else {
            Issue.record("the demo VOD is not a directory")
            return
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-rate-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: source, toPath: copy.path)
        defer { try? FileManager.default.removeItem(at: copy) }
        let master = copy.appendingPathComponent("master.m3u8")
        let text = try String(contentsOf: master, encoding: .utf8)
        try text.replacingOccurrences(of: "RESOLUTION=320x180,", with: "RESOLUTION=320x180,FRAME-RATE=30,")
            .write(to: master, atomically: true, encoding: .utf8)
        try await Self.withAdServer(adMaster: {
            $0.replacingOccurrences(of: "RESOLUTION=320x180,", with: "RESOLUTION=320x180,FRAME-RATE=\(adRate),")
        }) { adServer in
            var configuration = try AdServerTests.configuration(adServer.origin)
            configuration.vod[0].origin = .directory(copy.path)
            try await Harness.withServer(configuration) { client in
                let video = try await client.text("/demo/vod/video/main.m3u8?ads=stitched&session=rate-viewer")
                var fromAdServer = 0
                for uri in PlaylistParser.parse(video).playlist.media?.segments.map(\.uri) ?? []
                where uri.contains(StitchedBeacons.prefix) {
                    let location = try await client.get(Self.path(of: uri)).headers[.location] ?? ""
                    if location.hasPrefix(adServer.origin + "/ads/ad1/") { fromAdServer += 1 }
                }
                let fallbacks = try await AdServerProtectionTests.metric(
                    client, "hlsi_stitch_fallbacks_total{reason=\"media\"}")
                if stitched {
                    // The pre-roll and midroll-2 ask the ad server: b1, three segments each.
                    #expect(fromAdServer == 6, "\(video)")
                    #expect((fallbacks.flatMap(Double.init) ?? 0) == 0, "\(fallbacks ?? "none")")
                } else {
                    #expect(fromAdServer == 0, "\(video)")
                    #expect((fallbacks.flatMap(Double.init) ?? 0) >= 2, "\(fallbacks ?? "none")")
                }
            }
        }
    }

    /// A live viewer's reloads as a player sees them: each playlist clean for the validator, the
    /// reload rules `hlsi validate --watch` checks against the viewer's previous window, a window that
    /// never moves back, and each Media Sequence Number naming the same segment with the same
    /// discontinuity sequence number in every reload.
    struct LiveReloads {
        /// What each Media Sequence Number named, and its discontinuity sequence number.
        private var seen: [UInt64: (uri: String, discontinuity: UInt64)] = [:]
        private var previous: MediaPlaylist?

        /// Checks `text`, the viewer's reload `reload`, against the reloads before it; returns its
        /// media playlist.
        mutating func check(_ text: String, reload: Int) throws -> MediaPlaylist {
            #expect(problems(text).isEmpty, "reload \(reload): \(problems(text))\n\(text)")
            let parsed = PlaylistParser.parse(text, options: ParseOptions(file: "stitched.m3u8"))
            let media = try #require(parsed.playlist.media)
            if let previous {
                let reloadProblems = ReloadValidator.validate(
                    previous: previous, current: media, document: parsed.document)
                #expect(reloadProblems.isEmpty, "reload \(reload): \(reloadProblems)")
                #expect(
                    media.mediaSequence >= previous.mediaSequence, "reload \(reload): the window never moves back")
            }
            previous = media
            #expect(!media.hasEndList)
            for segment in media.segments {
                if let before = seen[segment.mediaSequence] {
                    #expect(before.uri == segment.uri, "reload \(reload): MSN \(segment.mediaSequence) changed")
                    #expect(
                        before.discontinuity == segment.discontinuitySequence,
                        "reload \(reload): the discontinuity sequence of MSN \(segment.mediaSequence) changed")
                }
                seen[segment.mediaSequence] = (segment.uri, segment.discontinuitySequence)
            }
            return media
        }
    }

    @Test("a live viewer's media sequence and discontinuity sequence hold across reloads through a break")
    func liveSequences() async throws {
        let clock = TestClock(DateTime(iso8601: "2026-03-01T12:00:00Z")!)
        try await Harness.withServer(clock: clock) { client in
            var reloads = LiveReloads()
            var reloadsInBreak = 0
            for reload in 0..<45 {
                let text = try await client.text("/demo/live/video/main.m3u8?ads=stitched&session=live-viewer")
                // Asked again before the window moves: the same bytes (the viewer's kept rendering).
                #expect(
                    try await client.text("/demo/live/video/main.m3u8?ads=stitched&session=live-viewer") == text,
                    "reload \(reload)")
                let media = try reloads.check(text, reload: reload)
                if media.segments.contains(where: { $0.uri.contains(StitchedBeacons.prefix) }) { reloadsInBreak += 1 }
                clock.advance(2)
            }
            #expect(reloadsInBreak >= 10, "the reloads go through a break")
        }
    }

    @Test(
        "a listed User-Agent gets the stitched form at the plain URL, with Vary: User-Agent; ads=interstitials overrides"
    )
    func userAgentSetting() async throws {
        var configuration = try Harness.demo()
        configuration.stitchedUserAgents = try StitchedUserAgents(["Tizen", "Web0S"])
        try await Harness.withServer(configuration) { client in
            let tv: HTTPFields = [.userAgent: "Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36"]
            let master = try await client.get("/demo/vod/master.m3u8", headers: tv)
            #expect(master.status == .ok)
            #expect(master.text.contains("video/main.m3u8?ads=stitched&session="))
            #expect(master.headers[.vary] == "User-Agent")
            let desktop = try await client.get("/demo/vod/master.m3u8", headers: [.userAgent: "Mozilla/5.0 Chrome/120"])
            #expect(!desktop.text.contains("ads=stitched"))
            #expect(desktop.headers[.vary] == "User-Agent")
            let forced = try await client.get("/demo/vod/video/main.m3u8?ads=interstitials", headers: tv)
            #expect(forced.text.contains("#EXT-X-DATERANGE"))
        }
    }

    @Test(
        "stitchedUserAgents: a bad pattern is refused with where and why",
        arguments: [
            ("[\"\"]", "stitchedUserAgents[0]"), ("[\"Tizen\", 3]", "stitchedUserAgents[1]"),
            ("\"Tizen\"", "stitchedUserAgents"),
            ("[\"\(String(repeating: "x", count: 129))\"]", "stitchedUserAgents[0]"),
            ("[\"caf\u{e9}\"]", "stitchedUserAgents[0]"),
        ])
    func badUserAgentPatterns(json: String, path: String) throws {
        let text = "{\"stitchedUserAgents\": \(json)}"
        #expect {
            _ = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
        } throws: { error in
            (error as? APIError)?.path == path
        }
        let many = "{\"stitchedUserAgents\": [\(Array(repeating: "\"a\"", count: 65).joined(separator: ","))]}"
        #expect(throws: APIError.self) { _ = try ServerConfiguration.decode(Array(many.utf8), base: "/tmp") }
    }

    @Test(
        "a cut pod's breakEnd fires at the first primary segment after it, once per viewer and break, whichever of it and the last ad segment comes first",
        arguments: [false, true])
    func cutPodBreakEnd(lastAdSegmentFirst: Bool) throws {
        let beacons = StitchedBeacons(
            limits: .init(count: 64, bytes: 1 << 20, idle: MediaTime(seconds: 3600)),
            now: { DateTime(iso8601: "2026-03-01T12:00:00Z")! })
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\na0.ts\n#EXTINF:2.0,\na1.ts\n#EXT-X-ENDLIST\n"
        let ad = try #require(PlaylistParser.parse(text).playlist.media)
        let base = "https://origin.example.com"
        let key = "live/demo|viewer|b|0"
        // Nothing to route before the pod's last ad is listed (its entry holds breakEnd).
        #expect(beacons.resumption(key: key, url: base + "/demo/live/video/seg9.ts", publicBase: base) == nil)
        let routed = beacons.routed(
            ad, url: "https://ads.example.com/a/main.m3u8", key: key,
            tracking: ["breakEnd": ["https://ads.example.com/break-end"], "complete": ["https://ads.example.com/c"]],
            publicBase: base)
        let primary = base + "/demo/live/video/seg9.ts"
        let resumption = try #require(beacons.resumption(key: key, url: primary, publicBase: base))
        #expect(resumption.hasSuffix(".ts"))
        // The same segment in every reload: the same URL.
        #expect(beacons.resumption(key: key, url: primary, publicBase: base) == resumption)
        let path = { (url: String) in Substring(Self.path(of: url).dropFirst(StitchedBeacons.prefix.count)) }
        let lastAd = try #require(routed.segments.last?.uri)
        var fired: [String] = []
        for url in lastAdSegmentFirst ? [lastAd, resumption, resumption] : [resumption, lastAd, resumption] {
            let found = try #require(beacons.request(path(url)))
            fired += found.fire.map(\.type)
            if url == resumption { #expect(found.location == primary, "the viewer is sent to the primary segment") }
        }
        #expect(fired.filter { $0 == "breakEnd" }.count == 1, "\(fired)")
    }

    @Test("the beacon plan: impression and start first, quartiles where they fall, complete last")
    func beaconPlan() {
        let two = MediaTime(seconds: 2)
        #expect(
            StitchBeaconPlan.events(durations: [two, two, two])
                == [["impression", "start", "firstQuartile"], ["midpoint"], ["thirdQuartile", "complete"]])
        #expect(
            StitchBeaconPlan.events(durations: [two, two, two, two])
                == [["impression", "start"], ["firstQuartile"], ["midpoint"], ["thirdQuartile", "complete"]])
        #expect(
            StitchBeaconPlan.events(durations: [MediaTime(seconds: 6)])
                == [["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]])
        #expect(StitchBeaconPlan.events(durations: []).isEmpty)
        // The pod's own events, with its first ad's first segment and its last ad's last.
        #expect(
            StitchBeaconPlan.events(durations: [two, two], opensPod: true, closesPod: true)
                == [
                    ["breakStart", "impression", "start", "firstQuartile"],
                    ["midpoint", "thirdQuartile", "complete", "breakEnd"],
                ])
    }
}

extension Playlist {
    var media: MediaPlaylist? {
        if case .media(let media) = self { return media }
        return nil
    }
}
