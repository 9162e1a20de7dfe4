import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import NIOConcurrencyHelpers
import Testing

/// The one presentation loader: presentation → primary media playlist, renditions for snapping,
/// asset lists (issue 15).
@Suite("PresentationLoader over files and HTTP")
struct PresentationLoaderTests {
    static let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",LANGUAGE="en",URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="fr",LANGUAGE="fr",DEFAULT=YES,URI="audio/fr.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="other",NAME="de",LANGUAGE="de",URI="audio/de.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="aud"
        video/v.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="aud"
        video/v2.m3u8

        """

    static let video = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="a",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:02.000Z",X-ASSET-LIST="../lists/a.json"
        #EXT-X-DATERANGE:ID="b",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:06.000Z",X-ASSET-LIST="missing.json"
        #EXTINF:4,
        v0.ts
        #EXTINF:4,
        v1.ts
        #EXTINF:4,
        v2.ts
        #EXT-X-ENDLIST

        """

    static func audio(_ segments: Int, _ duration: Int) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:\(duration)\n"
            + (0..<segments).map { "#EXTINF:\($0 == 0 ? duration : duration),\na\($0).aac\n" }.joined()
            + "#EXT-X-ENDLIST\n"
    }

    static let files: [String: String] = [
        "master.m3u8": master, "video/v.m3u8": video, "audio/en.m3u8": audio(4, 3), "audio/fr.m3u8": audio(2, 6),
        "audio/de.m3u8": audio(1, 12), "lists/a.json": #"{"ASSETS":[{"URI":"ad.m3u8","DURATION":7.5}]}"#,
        "no-variant.m3u8": "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n"
            + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"en\",URI=\"audio/en.m3u8\"\n",
        "nested.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nmaster.m3u8\n",
        "missing-audio.m3u8":
            "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"x\",DEFAULT=YES,URI=\"gone.m3u8\"\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO=\"aud\"\nvideo/v.m3u8\n",
    ]

    /// Runs `body` with the files in a temporary directory.
    static func withFiles(_ body: (String, PlaylistLoader) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in files {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try await PlaylistLoader.withLoader { loader in try await body(directory.path, loader) }
    }

    @Test("A multivariant playlist gives its first variant and the DEFAULT audio rendition of its group")
    func multivariantFiles() async throws {
        try await Self.withFiles { root, loader in
            let presentation = try await PresentationLoader(fetcher: loader).load(root + "/master.m3u8")
            #expect(presentation.multivariant?.location == root + "/master.m3u8")
            #expect(presentation.multivariantPlaylist?.renditions.count == 3)
            #expect(presentation.variant?.uri == "video/v.m3u8")
            #expect(presentation.primaryURL == root + "/video/v.m3u8")
            #expect(presentation.primary.segments.count == 3)
            #expect(presentation.audio?.name == "fr")
            #expect(presentation.renditions.map(\.segments.count) == [2])
            #expect(presentation.renditionFailures.isEmpty)
            #expect(presentation.scheduleInput.otherPlaylists.count == 1)
            #expect(presentation.events.map(\.identifier) == ["a", "b"])
            #expect(presentation.events.allSatisfy { $0.assetList == nil }, "asset lists only when asked")
            #expect(!presentation.hasErrors)
        }
    }

    @Test("The caller chooses the audio rendition, or none")
    func audioChoice() async throws {
        try await Self.withFiles { root, loader in
            let presentations = PresentationLoader(fetcher: loader)
            let english = try await presentations.load(
                root + "/master.m3u8", options: .init(selectAudio: { $0.first { $0.language == "en" } }))
            #expect(english.audio?.name == "en")
            #expect(english.renditions.map(\.segments.count) == [4])
            let none = try await presentations.load(root + "/master.m3u8", options: .init(selectAudio: nil))
            #expect(none.audio == nil && none.renditions.isEmpty)
            #expect(none.primary.segments.count == 3)
        }
    }

    @Test("A media playlist is the primary itself; asset lists load against it when asked, and failures are kept (R7)")
    func mediaAndAssetLists() async throws {
        try await Self.withFiles { root, loader in
            let presentation = try await PresentationLoader(fetcher: loader).load(
                root + "/video/v.m3u8", options: .init(loadsAssetLists: true))
            #expect(presentation.multivariant == nil && presentation.variant == nil)
            #expect(presentation.multivariantPlaylist == nil)
            #expect(presentation.renditions.isEmpty)
            #expect(presentation.events[0].assetList?.totalDuration == MediaTime(seconds: 7.5))
            #expect(presentation.events[1].assetList == nil)
            #expect(presentation.failedEvents == ["b"])
            #expect(presentation.assetListFailures.map(\.url) == [root + "/video/missing.json"])
            #expect(presentation.assetListFailures.map(\.eventID) == ["b"])
            let schedule = InterstitialSchedule.resolve(presentation.scheduleInput)
            #expect(schedule.events.first { $0.id == "a" }?.resumeTime == MediaTime(seconds: 9.5))
        }
    }

    @Test("No variant, a variant that is not a media playlist, and a rendition that fails")
    func failures() async throws {
        try await Self.withFiles { root, loader in
            let presentations = PresentationLoader(fetcher: loader)
            await #expect(throws: PresentationLoader.PresentationError.noVariant(location: root + "/no-variant.m3u8")) {
                try await presentations.load(root + "/no-variant.m3u8")
            }
            await #expect(
                throws: PresentationLoader.PresentationError.notMediaPlaylist(location: root + "/master.m3u8")
            ) {
                try await presentations.load(root + "/nested.m3u8")
            }
            let partial = try await presentations.load(root + "/missing-audio.m3u8")
            #expect(partial.primary.segments.count == 3)
            #expect(partial.renditions.isEmpty)
            #expect(partial.renditionFailures.map(\.url) == [root + "/gone.m3u8"])
            #expect((partial.renditionFailures.first?.error as? LoadError)?.code == .fileUnreadable)
        }
    }

    @Test("Over HTTP every derived URL goes through the caller's transform (_HLS_primary_id, R19)")
    func derivedURLsOverHTTP() async throws {
        let requested = NIOLockedValueBox<[String]>([])
        let routes: TestHTTPServer.Routes = { path in
            requested.withLockedValue { $0.append(path) }
            let name = String(path.dropFirst("/p/".count).prefix { $0 != "?" })
            guard path.hasPrefix("/p/"), let text = Self.files[name] else { return .init(status: .notFound) }
            return .init(
                headers: [("Content-Type", name.hasSuffix(".json") ? "application/json" : "application/x-mpegurl")],
                body: Array(text.utf8))
        }
        try await TestHTTPServer.withServerAndLoader(routes: routes, timeout: .seconds(600)) { server, loader in
            let presentation = try await PresentationLoader(fetcher: loader).load(
                server.url("/p/master.m3u8"),
                options: .init(loadsAssetLists: true, deriveURL: { $0 + "?_HLS_primary_id=p1" }))
            #expect(presentation.primaryURL == server.url("/p/video/v.m3u8?_HLS_primary_id=p1"))
            #expect(presentation.renditions.count == 1)
            #expect(presentation.events[0].assetList?.assets.count == 1)
            #expect(
                requested.withLockedValue { $0 } == [
                    "/p/master.m3u8", "/p/video/v.m3u8?_HLS_primary_id=p1", "/p/audio/fr.m3u8?_HLS_primary_id=p1",
                    "/p/lists/a.json?_HLS_primary_id=p1", "/p/video/missing.json?_HLS_primary_id=p1",
                ])
            let reloaded = try await PresentationLoader(fetcher: loader).loadMedia(presentation.primaryURL)
            #expect(reloaded.playlist.segments.count == 3)
        }
    }
}
