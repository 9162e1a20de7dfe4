import Foundation
import HLSPlaylist
import Hummingbird
import InterstitialPlayback
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// A real HTTP origin on 127.0.0.1 serving generated playlists, asset lists and segments, and
/// recording every request (path with query, and the X-PLAYBACK-SESSION-ID header).
final class TestOrigin: Sendable {
    struct Reply: Sendable {
        var status: HTTPResponse.Status = .ok
        var contentType = "application/vnd.apple.mpegurl"
        var body: String
        var location: String? = nil
        /// Whether the answer waits until the test calls ``TestOrigin/release()`` (or the origin
        /// stops): a response slower than any deadline the test moves a clock past, however slow
        /// the machine.
        var held = false
    }

    struct Request: Sendable, Hashable {
        var path: String
        var query: [String: String]
        var sessionHeader: String?
        var uri: String
    }

    typealias Routes = @Sendable (_ path: String, _ query: [String: String]) -> Reply?

    private let routes: NIOLockedValueBox<Routes>
    private let log = NIOLockedValueBox<[Request]>([])
    /// The held answers waiting (``Reply/held``), or nil once released.
    private let held = NIOLockedValueBox<[CheckedContinuation<Void, Never>]?>([])
    let port: Int

    private init(routes: @escaping Routes, port: Int) {
        self.routes = NIOLockedValueBox(routes)
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    var requests: [Request] { log.withLockedValue { $0 } }

    func setRoutes(_ routes: @escaping Routes) { self.routes.withLockedValue { $0 = routes } }

    /// Lets the held answers go, and those held later at once.
    func release() {
        let waiting = held.withLockedValue { held in
            defer { held = nil }
            return held ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits until ``release()``.
    private func hold() async {
        await withCheckedContinuation { continuation in
            let released = held.withLockedValue { held in
                held?.append(continuation)
                return held == nil
            }
            if released { continuation.resume() }
        }
    }

    /// Runs `body` with an origin serving `routes`, and stops it afterwards.
    static func with<Result: Sendable>(
        _ routes: @escaping Routes, _ body: @Sendable (TestOrigin) async throws -> Result
    ) async throws -> Result {
        let box = NIOLockedValueBox<TestOrigin?>(nil)
        let holder = NIOLockedValueBox<Routes>(routes)
        let router = Router()
        let port = NIOLockedValueBox(0)
        router.get("**") { request, _ -> Response in
            guard let origin = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            var query: [String: String] = [:]
            for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
            let path = request.uri.path
            origin.log.withLockedValue {
                $0.append(
                    Request(
                        path: path, query: query, sessionHeader: request.headers[.init("X-PLAYBACK-SESSION-ID")!],
                        uri: request.uri.description))
            }
            guard let reply = origin.routes.withLockedValue({ $0 })(path, query) else {
                return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "not found")))
            }
            if reply.held { await origin.hold() }
            var headers: HTTPFields = [.contentType: reply.contentType]
            if let location = reply.location { headers[.location] = location }
            let body = reply.body.replacingOccurrences(of: "{ORIGIN}", with: "http://127.0.0.1:\(origin.port)")
            return Response(status: reply.status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        _ = holder
        let (started, startedContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "test-origin")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                startedContinuation.yield(channel.localAddress?.port ?? 0)
                startedContinuation.finish()
            }, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = started.makeAsyncIterator()
            let bound = await iterator.next() ?? 0
            port.withLockedValue { $0 = bound }
            let origin = TestOrigin(routes: routes, port: bound)
            box.withLockedValue { $0 = origin }
            do {
                let result = try await body(origin)
                origin.release()
                group.cancelAll()
                return result
            } catch {
                origin.release()
                group.cancelAll()
                throw error
            }
        }
    }
}

extension TestOrigin {
    /// Runs `body` with an origin serving `files` (path → body; `.json` as JSON; `{ORIGIN}` in a body
    /// becomes the origin's base URL).
    static func with<Result: Sendable>(
        files: [String: String], _ body: @Sendable (TestOrigin) async throws -> Result
    ) async throws -> Result {
        try await with({ path, _ in Self.reply(files, path) }, body)
    }

    static func reply(_ files: [String: String], _ path: String) -> Reply? {
        files[path].map {
            Reply(contentType: path.hasSuffix(".json") ? "application/json" : "application/vnd.apple.mpegurl", body: $0)
        }
    }
}

/// Generated content: VOD primaries with interstitial date ranges, ads and asset lists.
enum Content {
    static let epoch = "2026-01-01T00:00:00.000Z"

    /// A media playlist of `count` segments of `length` seconds, with PDT from `epoch` and the
    /// given date-range lines.
    static func vod(
        segments count: Int, length: Double = 6, dateRanges: [String] = [], prefix: String = "seg", endList: Bool = true
    ) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:\(Int(length.rounded(.up)))\n"
        text += "#EXT-X-MEDIA-SEQUENCE:0\n"
        if endList { text += "#EXT-X-PLAYLIST-TYPE:VOD\n" }
        text += "#EXT-X-PROGRAM-DATE-TIME:\(epoch)\n"
        for line in dateRanges { text += line + "\n" }
        for index in 0..<count { text += "#EXTINF:\(length),\n\(prefix)\(index).ts\n" }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// The date `seconds` after the epoch, as written in START-DATE.
    static func date(_ seconds: Double) -> String {
        let base = DateTime(iso8601: epoch)!
        return (base + MediaTime(seconds: seconds)).iso8601
    }

    /// An interstitial date range at `seconds` with extra attributes.
    static func interstitial(_ id: String, at seconds: Double, _ attributes: String) -> String {
        "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date(seconds))\",\(attributes)"
    }

    /// An ad: a VOD media playlist of `seconds` in 1-second-or-less segments.
    static func ad(_ seconds: Double) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        var left = seconds
        var index = 0
        while left > 0.0005 {
            let length = min(2, left)
            text += "#EXTINF:\(length),\nad\(index).ts\n"
            left -= length
            index += 1
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// An asset list of absolute URIs with durations.
    static func assetList(_ assets: [(String, Double)], skipControl: String? = nil) -> String {
        let items = assets.map { "{\"URI\":\"\($0.0)\",\"DURATION\":\($0.1)}" }.joined(separator: ",")
        return "{\"ASSETS\":[\(items)]\(skipControl.map { ",\"SKIP-CONTROL\":\($0)" } ?? "")}"
    }
}
