import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOHTTP1
import Testing

@testable import InterstitialServer

/// Breaks filled by a VAST ad decision server: the request with its macros, a wrapper, a pod of
/// InLine ads turned into HLS assets with their tracking as SVTA Ad Creative Signaling, errors
/// reported with their codes, and the deadline.
@Suite("VAST ad decision servers")
struct AdServerTests {
    static func inline(_ origin: String) -> String {
        func ad(_ id: String, sequence: Int, seconds: Int, file: String, type: String) -> String {
            """
            <Ad id="\(id)" sequence="\(sequence)"><InLine>
              <AdSystem>test</AdSystem><AdTitle>\(id)</AdTitle>
              <Impression>\(origin)/imp-\(id)</Impression>
              <Error>\(origin)/err-\(id)?code=[ERRORCODE]</Error>
              <Creatives><Creative id="c-\(id)">
                <UniversalAdId idRegistry="test-registry">ua-\(id)</UniversalAdId>
                <Linear>
                  <Duration>00:00:0\(seconds)</Duration>
                  <TrackingEvents>
                    <Tracking event="start">\(origin)/start-\(id)</Tracking>
                    <Tracking event="complete">\(origin)/complete-\(id)</Tracking>
                  </TrackingEvents>
                  <MediaFiles><MediaFile delivery="progressive" type="\(type)" width="1280" height="720">\(origin)\(file)</MediaFile></MediaFiles>
                </Linear>
              </Creative></Creatives>
            </InLine></Ad>
            """
        }
        return """
            <VAST version="4.2">
            \(ad("a1", sequence: 1, seconds: 4, file: "/ads/a1/master.m3u8", type: "application/x-mpegURL"))
            \(ad("a2", sequence: 2, seconds: 6, file: "/ads/a2/master.m3u8", type: "application/vnd.apple.mpegurl"))
            \(ad("a3", sequence: 3, seconds: 5, file: "/ads/a3.webm", type: "video/webm"))
            </VAST>
            """
    }

    static func wrapper(_ origin: String) -> String {
        """
        <VAST version="4.2"><Ad id="w"><Wrapper allowMultipleAds="true">
          <AdSystem>test</AdSystem>
          <VASTAdTagURI>\(origin)/inline</VASTAdTagURI>
          <Impression>\(origin)/imp-wrapper?cb=[CACHEBUSTING]</Impression>
          <Error>\(origin)/err-wrapper?code=[ERRORCODE]</Error>
        </Wrapper></Ad></VAST>
        """
    }

    static func vmap(_ origin: String) -> String {
        """
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
          <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre">
            <vmap:AdSource id="pre-source"><vmap:AdTagURI templateType="vast4">\(origin)/inline?brk=[BREAKID]</vmap:AdTagURI></vmap:AdSource>
            <vmap:TrackingEvents>
              <vmap:Tracking event="breakStart">\(origin)/break-start</vmap:Tracking>
              <vmap:Tracking event="breakEnd">\(origin)/break-end</vmap:Tracking>
            </vmap:TrackingEvents>
          </vmap:AdBreak>
          <vmap:AdBreak timeOffset="50%" breakType="linear" breakId="mid one">
            <vmap:AdSource id="mid-source"><vmap:VASTAdData><VAST version="4.2"><Ad id="m1"><InLine>
              <AdSystem>test</AdSystem><AdTitle>m1</AdTitle><Impression>\(origin)/imp-m1</Impression>
              <Creatives><Creative><UniversalAdId idRegistry="test-registry">ua-m1</UniversalAdId><Linear>
                <Duration>00:00:05</Duration>
                <MediaFiles><MediaFile delivery="streaming" type="application/x-mpegURL">\(origin)/ads/m1/master.m3u8</MediaFile></MediaFiles>
              </Linear></Creative></Creatives>
            </InLine></Ad></VAST></vmap:VASTAdData></vmap:AdSource>
          </vmap:AdBreak>
          <vmap:AdBreak timeOffset="end" breakType="linear" breakId="post">
            <vmap:AdSource><vmap:AdTagURI templateType="vast4">\(origin)/vast</vmap:AdTagURI></vmap:AdSource>
          </vmap:AdBreak>
        </vmap:VMAP>
        """
    }

    /// An ad server: `/vmap` (a pre-roll, a mid-roll at 50 % with its VAST inline, a post-roll),
    /// `/vast` (a wrapper that allows the pod it leads to), `/inline` (a pod of three), `/slow` (never answers),
    /// `/broken` (not XML), `/empty` (no ads); everything else is an empty 200 (beacons).
    static func withAdServer(_ body: (TestOrigin) async throws -> Void) async throws {
        let origin = NIOLockedValueBoxString()
        try await TestOrigin.withOrigin(routes: { path in
            let base = origin.value
            switch path {
            case "/vast": return .init(contentType: "application/xml", body: Array(wrapper(base).utf8))
            case "/inline": return .init(contentType: "application/xml", body: Array(inline(base).utf8))
            case "/vmap": return .init(contentType: "application/xml", body: Array(vmap(base).utf8))
            case "/slow": return .init(contentType: "application/xml", body: Array("<VAST>".utf8), stallAfter: 0)
            case "/broken": return .init(contentType: "application/xml", body: Array("<VAST version=\"4.2\"><Ad>".utf8))
            case "/empty":
                return .init(
                    contentType: "application/xml",
                    body: Array("<VAST version=\"4.2\"><Error>\(base)/err-empty?code=[ERRORCODE]</Error></VAST>".utf8))
            default: return .init(contentType: "text/plain", body: [])
            }
        }) { server in
            origin.value = server.origin
            try await body(server)
        }
    }

    static func configuration(
        _ origin: String, path: String = "/vast", tracking: String = "client"
    ) throws
        -> ServerConfiguration
    {
        var configuration = try Harness.demo()
        configuration.vod[0].adServer = try AdServerSettings.decode(
            .object([
                "vast": .string(
                    origin + path + "?sid=[SESSIONID]&brk=[BREAKID]&dur=[BREAKDURATION]&cb=[CACHEBUSTING]&ip=[DEVICEIP]"
                ),
                "tracking": .string(tracking),
            ]))
        // What is tested here is the fill, not the deadline (`failures` sets its own): the tests run
        // on a server clock that stands still (``frozen``), so the deadline cannot pass; it only
        // sets the ad server's HTTP deadline, 30 s of real time, long enough for a loaded machine.
        configuration.assetListDeadline = MediaTime(seconds: 30)
        return configuration
    }

    static let list = "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2&_HLS_primary_id=viewer-1"

    /// A server clock that stands still: no decision's deadline passes, however slow the machine.
    static var frozen: ManualServerClock { ManualServerClock.starting() }

    @Test(
        "a wrapper and a pod of InLine ads become HLS assets in sequence, with their tracking as Ad Creative Signaling")
    func pod() async throws {
        try await Self.withAdServer { adServer in
            try await Harness.withServer(try Self.configuration(adServer.origin), serverClock: Self.frozen) { client in
                // From loopback (a trusted proxy), X-Forwarded-For names the viewer: the address the
                // viewer wrote itself (left of it) is not believed.
                let response = try await client.get(
                    Self.list,
                    headers: [
                        .userAgent: "TestPlayer/1.0", .init("X-Forwarded-For")!: "192.0.2.1, 203.0.113.7",
                    ])
                #expect(response.status == .ok)
                let list = try AssetList.decode(Array(response.text.utf8))
                #expect(
                    list.assets.map(\.uri) == [
                        adServer.origin + "/ads/a1/master.m3u8", adServer.origin + "/ads/a2/master.m3u8",
                    ])
                #expect(list.assets.map(\.duration) == [MediaTime(seconds: 4), MediaTime(seconds: 6)])
                // The request carried the macros and the viewer's user agent.
                let request = try #require(adServer.requests("/vast").first)
                #expect(request.contains("sid=viewer-1"))
                #expect(request.contains("brk=midroll-2"))
                #expect(request.contains("ip=203.0.113.7"))
                #expect(!request.contains("[CACHEBUSTING]"))
                let heard = try #require(adServer.headers("/vast").first)
                #expect(heard["X-Device-User-Agent"] == ["TestPlayer/1.0"])
                #expect(heard["X-Device-IP"] == ["203.0.113.7"])
                // Slot-level signaling on each asset, with the wrapper's impression merged in.
                let slot = try AdCreativeSignaling(
                    json: try #require(list.assets.first?.otherKeys[AdCreativeSignaling.key]))
                let impressions = slot.slots.first?.tracking.first { $0.type == "impression" }?.urls ?? []
                #expect(
                    Set(impressions) == [
                        adServer.origin + "/imp-a1", adServer.origin + "/imp-wrapper?cb=[CACHEBUSTING]",
                    ])
                #expect(slot.slots.first?.tracking.contains { $0.type == "complete" } == true)
                let pod = try AdCreativeSignaling(json: try #require(list.otherKeys[AdCreativeSignaling.key]))
                #expect(pod.kind == .pod)
                #expect(pod.slots.map(\.start) == [.zero, MediaTime(seconds: 4)])
                // The WebM-only ad cannot play as an interstitial: its error URL hears 403.
                #expect(try await eventually { !adServer.requests("/err-a3").isEmpty })
                #expect(adServer.requests("/err-a3") == ["/err-a3?code=403"])
                // The client fires impressions: the server does not.
                #expect(adServer.requests("/imp-a1").isEmpty)
                // A viewer who joins 3 s in (R11): a first entry for the part gone, then what fits.
                let late = try AssetList.decode(
                    Array(
                        try await client.text(
                            Self.list.replacingOccurrences(of: "viewer-1", with: "viewer-3") + "&_HLS_start_offset=3"
                        ).utf8))
                #expect(late.assets.map(\.duration) == [MediaTime(seconds: 3), MediaTime(seconds: 4)])
                #expect(late.assets.first?.otherKeys.isEmpty == true)
                // Counted on /metrics: two VAST answers, both filled, and the 403 of the MP4 ad.
                let metrics = try await client.get("/metrics", headers: [.authorization: "Bearer \(Harness.token)"])
                let lines = metrics.text.split(separator: "\n")
                func value(_ name: String, _ labels: String...) -> String? {
                    lines.first { line in line.hasPrefix(name + "{") && labels.allSatisfy { line.contains($0) } }?
                        .split(separator: " ").last.map(String.init)
                }
                #expect(value("hlsi_asset_list_requests_total", #"source="vast""#) == "2")
                #expect(value("hlsi_asset_list_filled_total", #"source="vast""#) == "2")
                #expect(value("hlsi_vast_errors_total", #"code="403""#) == "2")
            }
        }
    }

    @Test("tracking: server fires the impressions once per answer and leaves them out of the signaling")
    func serverTracking() async throws {
        try await Self.withAdServer { adServer in
            try await Harness.withServer(
                try Self.configuration(adServer.origin, tracking: "server"), serverClock: Self.frozen
            ) { client in
                let list = try AssetList.decode(Array(try await client.text(Self.list).utf8))
                #expect(list.assets.count == 2)
                let slot = try AdCreativeSignaling(
                    json: try #require(list.assets.first?.otherKeys[AdCreativeSignaling.key]))
                #expect(slot.slots.first?.tracking.contains { $0.type == "impression" } == false)
                // Sent in the background: each once (the wrapper's impression once per ad it wraps).
                let expected = ["/imp-a1": 1, "/imp-a2": 1, "/imp-wrapper": 2]
                #expect(
                    try await eventually {
                        expected.allSatisfy { adServer.requests($0.key).count >= $0.value }
                    })
                #expect(expected.allSatisfy { adServer.requests($0.key).count == $0.value })
                #expect(
                    Self.cacheBustersFilled(adServer.requests("/imp-wrapper")), "\(adServer.requests("/imp-wrapper"))")
            }
        }
    }

    @Test("tracking: relay points the signaling at the server, which counts each beacon and passes it on once")
    func relayTracking() async throws {
        try await Self.withAdServer { adServer in
            try await Harness.withServer(
                try Self.configuration(adServer.origin, tracking: "relay"), serverClock: Self.frozen
            ) { client in
                let list = try AssetList.decode(Array(try await client.text(Self.list).utf8))
                let slot = try AdCreativeSignaling(
                    json: try #require(list.assets.first?.otherKeys[AdCreativeSignaling.key]))
                let tracking = try #require(slot.slots.first?.tracking)
                let urls = tracking.flatMap(\.urls)
                #expect(!urls.isEmpty && urls.allSatisfy { $0.contains("/beacon/") }, "\(urls)")
                #expect(!urls.contains { $0.contains(adServer.origin) }, "no ad server URL reaches the player")
                let impressions = try #require(tracking.first { $0.type == "impression" }?.urls)
                #expect(impressions.count == 2, "the inline ad's and the wrapper's")
                func path(_ url: String) -> String {
                    url.range(of: "/beacon/").map { String(url[$0.lowerBound...]) } ?? url
                }
                for url in impressions { #expect(try await client.get(path(url)).status == .noContent) }
                // Fired again (a retry): answered, not passed on again.
                #expect(try await client.get(path(impressions[0])).status == .noContent)
                #expect(
                    try await eventually {
                        adServer.requests("/imp-a1").count == 1 && adServer.requests("/imp-wrapper").count == 1
                    })
                // A URL the server did not write: its MAC does not match.
                let genuine = path(impressions[0])
                let first = genuine[genuine.index(genuine.startIndex, offsetBy: 8)]
                let forged = "/beacon/" + (first == "0" ? "1" : "0") + genuine.dropFirst(9)
                #expect(try await client.get(forged).status == .notFound)
                #expect(try await client.get("/beacon/x/impression/aGk").status == .notFound)
                let metrics = try await client.get("/metrics", headers: [.authorization: "Bearer \(Harness.token)"])
                    .text
                #expect(metrics.contains(#"hlsi_beacons_seen_total{type="impression"} 2"#), "\(metrics)")
                #expect(adServer.requests("/imp-a1").count == 1)
                #expect(
                    Self.cacheBustersFilled(adServer.requests("/imp-wrapper")), "\(adServer.requests("/imp-wrapper"))")
            }
        }
    }

    @Test("HEAD changes nothing: an asset list asks no ad server and counts no viewer, a beacon is not passed on")
    func headHasNoSideEffects() async throws {
        try await Self.withAdServer { adServer in
            try await Harness.withServer(
                try Self.configuration(adServer.origin, tracking: "relay"), serverClock: Self.frozen
            ) { client in
                let head = try await client.execute(uri: Self.list, method: .head)
                #expect(head.status == .ok)
                #expect(head.headers[.contentType] == "application/json")
                #expect(head.headers[.cacheControl] == CachePolicy.noStore)
                #expect(head.body.readableBytes == 0)
                let missing = try await client.execute(
                    uri: "/demo/vod/asset-list.json?_HLS_interstitial_id=none", method: .head)
                #expect(missing.status == .notFound)
                #expect(adServer.requests("/vast").isEmpty, "HEAD asked the ad server")
                let list = try AssetList.decode(Array(try await client.text(Self.list).utf8))
                #expect(adServer.requests("/vast").count == 1)
                let slot = try AdCreativeSignaling(
                    json: try #require(list.assets.first?.otherKeys[AdCreativeSignaling.key]))
                let url = try #require(slot.slots.first?.tracking.first { $0.type == "impression" }?.urls.first)
                let beacon = String(url[try #require(url.range(of: "/beacon/")).lowerBound...])
                #expect(try await client.execute(uri: beacon, method: .head).status == .noContent)
                #expect(try await client.get(beacon).status == .noContent)
                #expect(
                    try await eventually {
                        adServer.requests("/imp-a1").count + adServer.requests("/imp-wrapper").count == 1
                    }, "the GET after HEAD relays")
            }
        }
    }

    /// Whether every request of `uris` carries an 8-digit cache buster where the template had
    /// `[CACHEBUSTING]` (`cb=`).
    static func cacheBustersFilled(_ uris: [String]) -> Bool {
        !uris.isEmpty
            && uris.allSatisfy { uri in
                guard let value = URLComponents(string: uri)?.queryItems?.first(where: { $0.name == "cb" })?.value
                else { return false }
                return value.count == 8 && value.allSatisfy(\.isNumber)
            }
    }

    @Test(
        "a slow ad server gives the fallback, a broken or empty one an empty asset list, within the deadline; each hears the error code",
        arguments: [("/slow", 301), ("/broken", 100), ("/empty", 303)])
    func failures(path: String, code: Int) async throws {
        try await Self.withAdServer { adServer in
            var configuration = try Self.configuration(adServer.origin, path: path)
            // The deadline is on the server's clock, which the test moves. `/slow` never answers: the
            // clock ticks on until the deadline cuts it (an answer at all means it did). The others
            // answer at once, on a clock that stands still: their deadline cannot pass first.
            configuration.assetListDeadline = MediaTime(seconds: path == "/slow" ? 0.5 : 10)
            let clock = ManualServerClock.starting()
            try await Harness.withServer(configuration.ticked, serverClock: clock) { client in
                let response =
                    path == "/slow"
                    ? try await ticking(clock) { try await client.get(Self.list) } : try await client.get(Self.list)
                #expect(response.status == .ok)
                // An ad server that did not answer in time leaves the break to the fallback fill (the
                // inventory); one that answered without usable ads leaves it empty.
                let assets = try AssetList.decode(Array(response.text.utf8)).assets
                #expect(path == "/slow" ? !assets.isEmpty : assets.isEmpty, "\(response.text)")
                if path == "/empty" {
                    #expect(try await eventually { !adServer.requests("/err-empty").isEmpty })
                    #expect(adServer.requests("/err-empty") == ["/err-empty?code=\(code)"])
                }
            }
        }
    }

    @Test("a VMAP places a VOD asset's breaks, fetched once; each break's asset list asks its own ad source late")
    func vmapBreaks() async throws {
        try await Self.withAdServer { adServer in
            var configuration = try Harness.demo()
            configuration.vod[0].adServer = AdServerSettings(
                vast: nil, vmap: adServer.origin + "/vmap?cid=[CONTENTID]", vmapBreakDuration: MediaTime(seconds: 10))
            // The VMAP's and the ads' deadlines on a clock that stands still: a loaded machine cannot
            // leave a break to the fallback (30 s: the ad server's HTTP deadline in real time).
            configuration.assetListDeadline = MediaTime(seconds: 30)
            try await Harness.withServer(configuration, serverClock: Self.frozen) { client in
                let media = try await client.text("/demo/vod/video/main.m3u8")
                let ids = dateRangeLines(media).compactMap { line in
                    line.range(of: #"ID="[^"]*""#, options: .regularExpression).map {
                        String(line[$0].dropFirst(4).dropLast())
                    }
                }
                #expect(Set(ids).isSuperset(of: ["vmap-pre", "vmap-mid-one", "vmap-post"]), "\(ids)")
                let pre = dateRangeLines(media).first { $0.contains("ID=\"vmap-pre\"") } ?? ""
                #expect(pre.contains("CUE=\"PRE\"") && pre.contains("X-ASSET-LIST") && pre.contains("DURATION=10"))
                let post = dateRangeLines(media).first { $0.contains("ID=\"vmap-post\"") } ?? ""
                #expect(post.contains("CUE=\"POST\""))
                func list(_ id: String) async throws -> AssetList {
                    try AssetList.decode(
                        Array(
                            try await client.text(
                                "/demo/vod/asset-list.json?_HLS_interstitial_id=\(id)&_HLS_primary_id=v"
                            ).utf8))
                }
                // The pre-roll's AdTagURI, with its macros filled, and the VMAP break's own tracking on the pod.
                let preList = try await list("vmap-pre")
                #expect(preList.assets.map(\.duration) == [MediaTime(seconds: 4), MediaTime(seconds: 6)])
                let pod = try AdCreativeSignaling(json: try #require(preList.otherKeys[AdCreativeSignaling.key]))
                #expect(
                    pod.podTracking == [
                        .init(type: "breakStart", urls: [adServer.origin + "/break-start"]),
                        .init(type: "breakEnd", urls: [adServer.origin + "/break-end"]),
                    ])
                #expect(adServer.requests("/inline").first?.contains("brk=vmap-pre") == true)
                // The mid-roll's VAST is in the VMAP: nothing is fetched for it.
                let before = adServer.uris.withLockedValue { $0.count }
                #expect(try await list("vmap-mid-one").assets.map(\.uri) == [adServer.origin + "/ads/m1/master.m3u8"])
                #expect(adServer.uris.withLockedValue { $0.count } == before, "\(adServer.uris.withLockedValue { $0 })")
                // The post-roll's source is a wrapper.
                #expect(try await list("vmap-post").assets.count == 2)
                // The VMAP was asked for once, with the content ID; the playlist is the same again.
                #expect(adServer.requests("/vmap") == ["/vmap?cid=demo"])
                #expect(try await client.text("/demo/vod/video/main.m3u8") == media)
            }
        }
    }

    @Test("ad server settings are checked, with the JSON path of what is wrong")
    func settings() throws {
        let good = try AdServerSettings.decode(
            .object(["vast": .string("https://ads.example/vast?cb=[CACHEBUSTING]"), "maxWrapperDepth": .integer(3)]))
        #expect(good.maximumWrapperDepth == 3)
        #expect(good.tracking == .client)
        let cases: [(JSONValue, String)] = [
            (.object(["vast": .string("ftp://ads.example/vast")]), "adServer.vast"),
            (.object(["vast": .string("https://ads.example/v?a=\"b\"")]), "adServer.vast"),
            (.object(["vast": .string("https://" + String(repeating: "a", count: 5000))]), "adServer.vast"),
            (.object(["vast": .string("https://ads.example/v"), "tracking": .string("both")]), "adServer.tracking"),
            (
                .object(["vast": .string("https://ads.example/v"), "maxWrapperDepth": .integer(11)]),
                "adServer.maxWrapperDepth"
            ),
            (.object(["vast": .string("https://ads.example/v"), "other": .integer(1)]), "adServer.other"),
            (.object([:]), "adServer.vast"),
            (
                .object(["vmap": .string("https://ads.example/vmap"), "vmapBreakDuration": .integer(0)]),
                "adServer.vmapBreakDuration"
            ),
            (
                .object(["vast": .string("https://ads.example/v"), "maxFillSegments": .integer(0)]),
                "adServer.maxFillSegments"
            ),
            (
                .object(["vast": .string("https://ads.example/v"), "maxFillSegments": .integer(10_001)]),
                "adServer.maxFillSegments"
            ),
            (
                .object(["vast": .string("https://ads.example/v"), "maxFillSegments": .string("1000")]),
                "adServer.maxFillSegments"
            ),
        ]
        for (value, path) in cases {
            #expect(throws: APIError.self) { try AdServerSettings.decode(value, path: "adServer") }
            do {
                _ = try AdServerSettings.decode(value, path: "adServer")
            } catch {
                #expect(error.path == path, "\(value)")
            }
        }
    }

    @Test(
        "maxFillSegments: 1 to 10,000 (default 1,000), refused outside with the rule, round-tripping in the settings JSON"
    )
    func fillSegmentsSetting() throws {
        let vast: JSONValue = .string("https://ads.example/vast")
        let plain = try AdServerSettings.decode(.object(["vast": vast]))
        #expect(plain.maximumFillSegments == LiveStitcher.defaultMaximumFillSegments)
        let written = { (settings: AdServerSettings) -> JSONValue? in
            guard case .object(let fields) = settings.jsonValue else { return nil }
            return fields["maxFillSegments"]
        }
        #expect(written(plain) == nil, "the default is not written")
        for count in [1, 250, 10_000] {
            let settings = try AdServerSettings.decode(
                .object(["vast": vast, "maxFillSegments": .integer(Int64(count))]))
            #expect(settings.maximumFillSegments == count)
            #expect(try AdServerSettings.decode(settings.jsonValue) == settings)
            #expect(written(settings) == .integer(Int64(count)))
        }
        #expect {
            _ = try AdServerSettings.decode(
                .object(["vast": vast, "maxFillSegments": .integer(20_000)]), path: "adServer")
        } throws: { error in
            let error = error as? APIError
            return error?.path == "adServer.maxFillSegments" && error?.message.contains("1 to 10000") == true
                && error?.message.contains("found 20000") == true
        }
        // In a configuration file, under a target's adServer.
        let file = """
            {"live": [{"id": "c", "path": "/c", "loop": "/tmp", "adServer": {"vast": "https://ads.example/v", "maxFillSegments": 40}}]}
            """
        let configuration = try ServerConfiguration.decode(Array(file.utf8), base: "/tmp")
        #expect(configuration.live.first?.adServer?.maximumFillSegments == 40)
    }

    @Test(
        "a progressive MP4 creative is conditioned into HLS that matches the primary, left out until ready, kept across restarts"
    )
    func conditioning() async throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        guard
            ["ffmpeg", "ffprobe"].allSatisfy({ tool in
                path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
            })
        else {
            try Test.cancel("ffmpeg and ffprobe are needed to condition creatives (apt-get install ffmpeg)")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-cond-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let mp4 = work.appendingPathComponent("creative.mp4")
        let made = try await CreativeConditioner.run(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-f",
                "lavfi",
                "-i", "sine=frequency=440:sample_rate=44100", "-t", "4", "-c:v", "libx264", "-c:a", "aac", "-shortest",
                mp4.path,
            ], timeout: .seconds(120))
        try #require(made.status == 0, "ffmpeg: \(made.output)")
        let bytes = try [UInt8](Data(contentsOf: mp4))
        let box = NIOLockedValueBoxString()
        try await TestOrigin.withOrigin(routes: { path in
            switch path {
            case "/mp4":
                return .init(
                    contentType: "application/xml",
                    body: Array(
                        """
                        <VAST version="4.2"><Ad id="p1"><InLine><AdSystem>t</AdSystem><AdTitle>p1</AdTitle>
                        <Impression>\(box.value)/imp</Impression><Creatives><Creative>
                        <UniversalAdId idRegistry="test-registry">ua-p1</UniversalAdId><Linear><Duration>00:00:04</Duration>
                        <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">\(box.value)/creative.mp4</MediaFile></MediaFiles>
                        </Linear></Creative></Creatives></InLine></Ad></VAST>
                        """.utf8))
            case "/creative.mp4": return .init(contentType: "video/mp4", body: bytes)
            default: return .init(contentType: "text/plain", body: [])
            }
        }) { adServer in
            box.value = adServer.origin
            var configuration = try Self.configuration(adServer.origin, path: "/mp4")
            configuration.creativeCache = work.appendingPathComponent("cache").path
            try await Harness.withServer(configuration) { client in
                // Not ready: left out, and no error for it.
                #expect(try AssetList.decode(Array(try await client.text(Self.list).utf8)).assets.isEmpty)
                let found = NIOLockedValueBox<AssetList?>(nil)
                #expect(
                    try await eventually(.seconds(300)) {
                        let list = try AssetList.decode(Array(try await client.text(Self.list).utf8))
                        found.withLockedValue { $0 = list }
                        return !list.assets.isEmpty
                    })
                let list = try #require(found.withLockedValue { $0 })
                let uri = try #require(list.assets.first?.uri)
                #expect(uri.contains("/creatives/") && uri.hasSuffix("/master.m3u8"))
                #expect(list.assets.first?.duration == MediaTime(seconds: 4))
                // The demo primary's ladder: one 320x180 variant, with an audio rendition group.
                let path = String(uri[uri.range(of: "/creatives/")!.lowerBound...])
                let master = try await client.text(path)
                #expect(master.contains("RESOLUTION=320x180"), "\(master)")
                #expect(master.contains("TYPE=AUDIO"))
                let video = try await client.text(
                    path.replacingOccurrences(of: "master.m3u8", with: "video_0/main.m3u8"))
                #expect(video.contains("#EXT-X-ENDLIST") && video.contains("#EXT-X-MAP"))
                #expect(try await client.get(path.replacingOccurrences(of: "master.m3u8", with: "../x")).status != .ok)
                #expect(adServer.requests("/creative.mp4").count == 1)
            }
            // A new server on the same cache answers with the asset at once.
            try await Harness.withServer(configuration) { client in
                let list = try AssetList.decode(Array(try await client.text(Self.list).utf8))
                #expect(list.assets.count == 1)
                #expect(adServer.requests("/creative.mp4").count == 1)
            }
        }
    }

    @Test("VMAP is for VOD assets: a live channel's settings with vmap are refused")
    func vmapLive() throws {
        let value = JSONValue.object(["vmap": .string("https://ads.example/vmap")])
        #expect(throws: APIError.self) {
            try AdServerSettings.decode(value, path: "live[0].adServer", allowsVMAP: false)
        }
        #expect(try AdServerSettings.decode(value).vmap?.template == "https://ads.example/vmap")
        do {
            _ = try AdServerSettings.decode(value, path: "live[0].adServer", allowsVMAP: false)
        } catch {
            #expect(error.path == "live[0].adServer.vmap")
        }
    }

    @Test("a standing schedule's ad server, set through the admin API, fills the target's breaks and is kept")
    func adminSettings() async throws {
        var configuration = try Harness.demo()
        configuration.assetListDeadline = MediaTime(seconds: 30)
        try await Self.withAdServer { adServer in
            try await Harness.withServer(configuration) { client in
                let before = try AssetList.decode(Array(try await client.text(Self.list).utf8))
                #expect(!before.assets.contains { $0.uri.hasPrefix(adServer.origin) })
                let schedule = """
                    {"target":"vod/demo","adServer":{"vast":"\(adServer.origin)/vast?sid=[SESSIONID]","tracking":"client"}}
                    """
                let created = try await client.admin(.post, "schedules", schedule)
                #expect(created.status == .created, "\(created.text)")
                let read = try await client.admin(.get, "schedules/vod/demo")
                #expect(read.text.contains("adServer"))
                let after = try AssetList.decode(
                    Array(try await client.text(Self.list.replacingOccurrences(of: "viewer-1", with: "viewer-2")).utf8))
                #expect(after.assets.map(\.uri).allSatisfy { $0.hasPrefix(adServer.origin + "/ads/") })
                #expect(after.assets.count == 2)
            }
        }
    }
}

/// A string shared with a route closure that is set once the origin's port is known.
final class NIOLockedValueBoxString: Sendable {
    private let box = NIOLockedValueBox("")
    var value: String {
        get { box.withLockedValue { $0 } }
        set { box.withLockedValue { $0 = newValue } }
    }
}
