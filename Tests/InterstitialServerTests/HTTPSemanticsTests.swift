import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import InterstitialServer

/// HEAD on every GET route, caching suited to each response, entity tags and
/// `If-None-Match`, byte ranges for media, and CORS for players on other origins.
@Suite("HTTP: HEAD, caching, entity tags, ranges, CORS")
struct HTTPSemanticsTests {
    /// The demo's first video segment, as the server serves it, and its bytes on disk.
    static func firstSegment() throws -> (path: String, bytes: [UInt8]) {
        let playlist = try demoMedia("video/main.m3u8")
        let uri = playlist.segments[0].uri
        let configuration = try ServerConfiguration.demo()
        guard case .directory(let directory) = configuration.vod[0].origin,
            let data = FileManager.default.contents(atPath: directory + "/video/" + uri)
        else { throw APIError.notFound(uri) }
        return ("/demo/vod/video/" + uri, Array(data))
    }

    @Test(
        "HEAD answers every GET route with the GET's status and fields and no body",
        arguments: [
            "/", "/demo/vod/master.m3u8", "/demo/vod/video/main.m3u8", "/demo/live/video/main.m3u8",
            "/demo/vod/timeline.json", "/ads/ad1/master.m3u8",
            "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2", "/demo/vod/nothing.m3u8",
        ])
    func head(path: String) async throws {
        // A clock that stands still: the live window (and so its length) is the same for GET and HEAD.
        try await Harness.withServer(clock: TestClock(DateTime(Date()))) { client in
            let port = try #require(client.port)
            let get = try await client.get(path)
            let (text, _) = try await RawConnection.open(port: port).exchange(
                "HEAD \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let head = try #require(text.range(of: "\r\n\r\n"), "\(text.prefix(300))")
            #expect(text[head.upperBound...].isEmpty, "HEAD \(path) sent a body")
            #expect(text.hasPrefix("HTTP/1.1 \(get.status.code) "), "\(text.prefix(200))")
            let fields = text[..<head.lowerBound].lowercased()
            if path.contains("asset-list.json") {
                // Decided per viewer: HEAD decides nothing, so it cannot know the length.
                #expect(!fields.contains("\r\ncontent-length:"), "\(fields)")
            } else if let length = get.headers[.contentLength] {
                #expect(fields.contains("content-length: \(length)"), "\(fields)")
            }
            #expect(fields.contains("content-type: \(get.headers[.contentType]?.lowercased() ?? "-")"))
        }
    }

    @Test("Cache-Control suits each response: live playlists short, VOD and media long, asset lists never")
    func cacheControl() async throws {
        let segment = try Self.firstSegment()
        try await Harness.withServer { client in
            func cache(_ path: String) async throws -> String? {
                let response = try await client.get(path)
                #expect(response.status == .ok, "\(path): \(response.text.prefix(200))")
                return response.headers[.cacheControl]
            }
            let live = try await client.text("/demo/live/video/main.m3u8")
            let target = try #require(
                live.split(separator: "\n").first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }
                    .flatMap { UInt64($0.dropFirst("#EXT-X-TARGETDURATION:".count)) })
            #expect(try await cache("/demo/live/video/main.m3u8") == "public, max-age=\(max(1, target / 2))")
            #expect(try await cache("/demo/vod/video/main.m3u8") == CachePolicy.vodPlaylist)
            #expect(try await cache("/demo/vod/master.m3u8") == CachePolicy.vodPlaylist)
            #expect(try await cache(segment.path) == CachePolicy.media)
            #expect(try await cache("/ads/ad1/master.m3u8") == CachePolicy.media)
            #expect(try await cache("/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2") == "no-store")
            #expect(try await cache("/") == "no-cache")
        }
        #expect(CachePolicy.livePlaylist(targetDuration: 6) == "public, max-age=3")
        #expect(CachePolicy.livePlaylist(targetDuration: nil) == "public, max-age=1")
        #expect(CachePolicy.livePlaylist(targetDuration: 1) == "public, max-age=1")
    }

    @Test("A playlist carries an entity tag; If-None-Match with it is 304 without a body, a stale one 200")
    func entityTags() async throws {
        let segment = try Self.firstSegment()
        try await Harness.withServer { client in
            for path in ["/demo/vod/video/main.m3u8", "/demo/vod/master.m3u8", segment.path, "/"] {
                let first = try await client.get(path)
                let tag = try #require(first.headers[.eTag], "\(path) has no ETag")
                #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
                let again = try await client.get(path)
                #expect(again.headers[.eTag] == tag, "\(path): the same bytes, the same tag")
                for value in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                    let cached = try await client.get(path, headers: [.ifNoneMatch: value])
                    #expect(cached.status == .notModified, "\(path) If-None-Match: \(value)")
                    #expect(cached.body.readableBytes == 0)
                    #expect(cached.headers[.eTag] == tag)
                    #expect(cached.headers[.cacheControl] == first.headers[.cacheControl])
                }
                for value in ["\"other\"", "\(tag.dropLast())", "garbage", "W/"] {
                    let fresh = try await client.get(path, headers: [.ifNoneMatch: value])
                    #expect(fresh.status == .ok, "\(path) If-None-Match: \(value)")
                    #expect(fresh.body == first.body)
                }
            }
            let list = try await client.get("/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2")
            #expect(list.headers[.eTag] == nil, "a response that must not be stored has no tag")
        }
    }

    @Test("A live playlist's tag changes with its window")
    func liveEntityTag() async throws {
        let clock = TestClock(DateTime(Date()))
        try await Harness.withServer(clock: clock) { client in
            let first = try await client.get("/demo/live/video/main.m3u8")
            let tag = try #require(first.headers[.eTag])
            #expect(
                try await client.get("/demo/live/video/main.m3u8", headers: [.ifNoneMatch: tag]).status == .notModified)
            clock.advance(12)
            let later = try await client.get("/demo/live/video/main.m3u8", headers: [.ifNoneMatch: tag])
            #expect(later.status == .ok)
            #expect(later.headers[.eTag] != tag)
        }
    }

    @Test("Media answers one byte range with 206; a range past the end is 416; others get the whole file")
    func ranges() async throws {
        let segment = try Self.firstSegment()
        let size = segment.bytes.count
        try await Harness.withServer { client in
            func get(_ range: String, ifRange: String? = nil) async throws -> TestResponse {
                var headers: HTTPFields = [.range: range]
                if let ifRange { headers[.ifRange] = ifRange }
                return try await client.get(segment.path, headers: headers)
            }
            let whole = try await client.get(segment.path)
            #expect(whole.headers[.acceptRanges] == "bytes")
            #expect(Array(buffer: whole.body) == segment.bytes)
            for (range, bytes) in [
                ("bytes=0-99", 0...99), ("bytes=100-", 100...(size - 1)), ("bytes=-50", (size - 50)...(size - 1)),
                ("bytes=10-99999999999999999999999", 10...(size - 1)), ("bytes = 5-5", 5...5),
            ] {
                let response = try await get(range)
                #expect(response.status == .partialContent, "\(range)")
                #expect(response.headers[.contentRange] == "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)")
                #expect(Array(buffer: response.body) == Array(segment.bytes[bytes]), "\(range)")
            }
            for range in ["bytes=\(size)-", "bytes=-0", "bytes=\(size + 10)-\(size + 20)"] {
                let response = try await get(range)
                #expect(response.status == .rangeNotSatisfiable, "\(range)")
                #expect(response.headers[.contentRange] == "bytes */\(size)")
                #expect(response.errorCode == "range-not-satisfiable")
            }
            for range in ["bytes=0-1,5-6", "items=0-5", "bytes=5-1", "bytes=a-b", "bytes=--1"] {
                let response = try await get(range)
                #expect(response.status == .ok, "\(range)")
                #expect(response.body.readableBytes == size)
            }
            let tag = try #require(whole.headers[.eTag])
            #expect(try await get("bytes=0-9", ifRange: tag).status == .partialContent)
            #expect(try await get("bytes=0-9", ifRange: "\"stale\"").status == .ok)
        }
    }

    @Test("Public routes carry CORS, errors included; preflights are answered; the admin API has none")
    func cors() async throws {
        try await Harness.withServer { client in
            let origin: HTTPFields = [.origin: "https://player.example"]
            for path in ["/demo/vod/master.m3u8", "/demo/vod/missing.m3u8", "/demo/vod/timeline.json"] {
                let response = try await client.get(path, headers: origin)
                #expect(response.headers[.accessControlAllowOrigin] == "*", "\(path)")
                #expect(response.headers[.accessControlExposeHeaders]?.contains("Content-Range") == true)
            }
            let preflight = try await client.execute(
                uri: "/demo/vod/video/main.m3u8", method: .options,
                headers: [
                    .origin: "https://player.example", .accessControlRequestMethod: "GET",
                    .accessControlRequestHeaders: "range",
                ])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "*")
            #expect(preflight.headers[.accessControlAllowMethods] == "GET, HEAD, OPTIONS")
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Range") == true)
            // A web player on another origin may name its session on its playlist requests.
            let named = try await client.execute(
                uri: "/demo/live/video/main.m3u8", method: .options,
                headers: [
                    .origin: "https://player.example", .accessControlRequestMethod: "GET",
                    .accessControlRequestHeaders: "x-playback-session-id",
                ])
            let allowed = (named.headers[.accessControlAllowHeaders] ?? "").lowercased()
            #expect(
                allowed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    .contains("x-playback-session-id"))
            let handoff = try await client.execute(
                uri: "/handoff/tv", method: .options,
                headers: [.origin: "https://player.example", .accessControlRequestMethod: "POST"])
            #expect(handoff.headers[.accessControlAllowMethods]?.contains("POST") == true)
            let admin = try await client.admin(.get, "breaks")
            #expect(admin.status == .ok)
            #expect(admin.headers[.accessControlAllowOrigin] == nil)
            let adminError = try await client.admin(.get, "breaks", token: "wrong")
            #expect(adminError.status == .unauthorized)
            #expect(adminError.headers[.accessControlAllowOrigin] == nil)
            let adminPreflight = try await client.execute(
                uri: "/admin/v1/breaks", method: .options,
                headers: [.origin: "https://evil.example", .accessControlRequestMethod: "DELETE"])
            #expect(adminPreflight.headers[.accessControlAllowOrigin] == nil)
        }
    }
}

@Suite("HTTP fields, parsed")
struct HTTPFieldParsingTests {
    @Test(
        "Range values",
        arguments: [
            ("bytes=0-9", 100, RangeRequest.partial(0...9)), ("bytes=90-", 100, .partial(90...99)),
            ("bytes=-10", 100, .partial(90...99)), ("bytes=-1000", 100, .partial(0...99)),
            ("bytes=0-1000", 100, .partial(0...99)), ("BYTES=1-1", 100, .partial(1...1)),
            ("bytes=100-", 100, .unsatisfiable), ("bytes=-0", 100, .unsatisfiable), ("bytes=0-", 0, .unsatisfiable),
            ("bytes=0-1,3-4", 100, .whole), ("bytes=", 100, .whole), ("bytes=2-1", 100, .whole),
            ("lines=0-1", 100, .whole), ("bytes=+1-2", 100, .whole), ("bytes=0x1-2", 100, .whole),
            ("bytes=99999999999999999999-", 100, .unsatisfiable),
        ])
    func range(value: String, size: Int, expected: RangeRequest) {
        #expect(RangeRequest.evaluate(value[...], size: size) == expected)
    }

    @Test("If-None-Match lists: quoted tags with commas inside, weak tags, malformed lists")
    func entityTagLists() {
        let tag = EntityTag(opaque: "a,b")
        #expect(tag.matches(ifNoneMatch: "\"a,b\""))
        #expect(tag.matches(ifNoneMatch: " \"x\" ,W/\"a,b\" "))
        #expect(tag.matches(ifNoneMatch: "*"))
        #expect(!tag.matches(ifNoneMatch: "\"a\", \"b\""))
        #expect(!tag.matches(ifNoneMatch: "\"a,b"))
        #expect(!tag.matches(ifNoneMatch: "\"x\" \"a,b\""))
        #expect(!tag.matches(ifNoneMatch: ""))
        #expect(
            EntityTag.parseList("\"x\", W/\"y\"") == [EntityTag(opaque: "x"), EntityTag(opaque: "y", isWeak: true)])
        #expect(EntityTag.of(Array("abc".utf8)) == EntityTag.of(Array("abc".utf8)))
        #expect(EntityTag.of(Array("abc".utf8)) != EntityTag.of(Array("abd".utf8)))
    }
}
