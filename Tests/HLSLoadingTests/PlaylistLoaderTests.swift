import Foundation
import HLSLoading
import HLSPlaylist
import NIOCore
import NIOHTTP1
import Testing

@Suite("PlaylistLoader over real HTTP and files")
struct PlaylistLoaderTests {
    static let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n".utf8)

    static func routes(_ path: String) -> TestHTTPServer.Response {
        switch path {
        case "/ok.m3u8": return .init(body: playlist)
        case let path where path.hasPrefix("/redirect/"):
            let remaining = Int(path.dropFirst("/redirect/".count)) ?? 0
            let target = remaining == 0 ? "/ok.m3u8" : "/redirect/\(remaining - 1)"
            return .init(status: .found, headers: [("Location", target)])
        case "/loop": return .init(status: .found, headers: [("Location", "/loop")])
        case "/html": return .init(headers: [("Content-Type", "text/html")], body: Array("<html>Not found</html>".utf8))
        case "/latin1.m3u8": return .init(body: Array("#EXTM3U\n#EXTINF:6,caf".utf8) + [0xE9] + Array("\na.ts\n".utf8))
        case "/slow.m3u8": return .init(body: playlist, delay: .seconds(40))
        case "/stall.m3u8": return .init(body: playlist, stallAfter: 10)
        case "/big.m3u8": return .init(body: playlist + Array(repeating: 0x0A, count: 5000))
        default: return .init(status: .notFound, body: Array("nope".utf8))
        }
    }

    /// A timeout no test reaches in real time (an hour), so that a busy machine does not time out a
    /// redirect chain; the tests of the timeout move a ``ManualTimer`` instead.
    func withServer(_ body: (TestHTTPServer, PlaylistLoader) async throws -> Void) async throws {
        try await TestHTTPServer.withServerAndLoader(routes: Self.routes, timeout: .seconds(3600), body)
    }

    /// Loads `path` on a loader whose whole-response deadline (an hour) is on a manual clock, which
    /// moves past it once the server has read the request (and sent what the route sends): the
    /// error of a response that is not complete by its deadline, however slow the machine.
    func timedOut(_ path: String) async throws -> LoadError? {
        let timer = ManualTimer()
        var error: LoadError?
        try await TestHTTPServer.withServerAndLoader(routes: Self.routes, timeout: .seconds(3600), timer: timer) {
            server, loader in
            async let loaded = loadError { _ = try await loader.loadPlaylist(server.url(path)) }
            let waiting = try await eventually { server.answered.contains(path) && timer.sleepers == 1 }
            #expect(waiting, "the loader waits for its deadline, the request read")
            timer.advance(by: .seconds(3600))
            error = await loaded
        }
        return error
    }

    /// The LoadError the operation throws; records an issue if it throws nothing or something else.
    func loadError(_ operation: () async throws -> Void) async -> LoadError? {
        do {
            try await operation()
            Issue.record("expected a LoadError")
        } catch let error as LoadError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
        }
        return nil
    }

    func expectLoadError(_ code: LoadError.Code, _ operation: () async throws -> Void) async {
        let error = await loadError(operation)
        #expect(error?.code == code, "\(String(describing: error))")
    }

    @Test("loads and parses a playlist over HTTP")
    func ok() async throws {
        try await withServer { server, loader in
            let (resource, result) = try await loader.loadPlaylist(server.url("/ok.m3u8"))
            #expect(resource.bytes == Self.playlist)
            #expect(resource.contentType == "application/vnd.apple.mpegurl")
            #expect(result.playlist.media?.segments.count == 1)
            #expect(
                result.diagnostics.first?.location.file == nil
                    || result.diagnostics.allSatisfy { $0.location.file == server.url("/ok.m3u8") })
        }
    }

    @Test("follows up to 5 redirects and reports the final URL (R20)")
    func redirects() async throws {
        try await withServer { server, loader in
            let (resource, _) = try await loader.loadPlaylist(server.url("/redirect/4"))
            #expect(resource.finalLocation.hasSuffix("/ok.m3u8"))
            await expectLoadError(.tooManyRedirects) { _ = try await loader.loadPlaylist(server.url("/redirect/5")) }
            await expectLoadError(.tooManyRedirects) { _ = try await loader.loadPlaylist(server.url("/loop")) }
        }
    }

    @Test("The timeout covers the whole response: a server that sends its head and stalls times out; bodies are capped")
    func wholeResponseTimeout() async throws {
        let stalled = try await timedOut("/stall.m3u8")
        #expect(stalled?.code == .timeout)
        #expect(stalled?.message.contains("no complete response") == true, "\(String(describing: stalled))")
        // The size cap, with a timeout a loaded machine does not reach first.
        try await TestHTTPServer.withServerAndLoader(
            routes: Self.routes, timeout: .seconds(3600), maximumBodySize: 1000, started: { _ in }
        ) { server, loader in
            await expectLoadError(.tooLarge) { _ = try await loader.loadPlaylist(server.url("/big.m3u8")) }
            let loaded = try await loader.loadPlaylist(server.url("/ok.m3u8"))
            #expect(loaded.1.playlist.media != nil)
        }
    }

    /// At once: a refused connection is an answer, reported as a network error, not retried until
    /// the deadline. The deadline here never comes (an hour, and the loader's part of it on a clock
    /// nobody moves), so only the refusal can end the load: a loader that retried would not return,
    /// and the time limit (a hang guard of minutes, for a load that takes a fraction of a second)
    /// would fail the test. No elapsed time is measured.
    @Test("a refused connection is reported at once, as a network error", .timeLimit(.minutes(2)))
    func refusedConnection() async throws {
        let timer = ManualTimer()
        let loader = PlaylistLoader(configuration: .init(timeout: .seconds(3600)), logger: nil, sleep: timer.sleep)
        let refused = await loadError { _ = try await loader.loadPlaylist("http://127.0.0.1:1/x.m3u8") }
        try await loader.shutdown()
        #expect(refused?.code == .network)
        #expect(refused?.description.contains("http://127.0.0.1:1/x.m3u8: error: [load-network]") == true)
    }

    @Test("HTTP errors, non-playlist content, non-UTF-8 bytes and timeouts are clear errors")
    func errors() async throws {
        try await withServer { server, loader in
            let status = await loadError { _ = try await loader.loadPlaylist(server.url("/missing.m3u8")) }
            #expect(status?.code == .httpStatus)
            #expect(status?.httpStatus == 404)
            #expect(status?.description.contains("HTTP 404") == true)
            #expect(status?.isContentError == false)
            let html = await loadError { _ = try await loader.loadPlaylist(server.url("/html")) }
            #expect(html?.code == .notAPlaylist)
            #expect(html?.message.contains("text/html") == true)
            #expect(html?.isContentError == true)
            let latin1 = await loadError { _ = try await loader.loadPlaylist(server.url("/latin1.m3u8")) }
            #expect(latin1?.code == .notUTF8)
            #expect(latin1?.location == server.url("/latin1.m3u8"))
            #expect(latin1?.position?.description.hasSuffix("/latin1.m3u8:2:14") == true)
            #expect(latin1?.description.hasPrefix(server.url("/latin1.m3u8:2:14: error: [load-not-utf8]")) == true)
        }
        // A server that answers after 40 s of its own time: the deadline passes first.
        #expect(try await timedOut("/slow.m3u8")?.code == .timeout)
    }

    @Test("the HTTP client is made at the first HTTP request, and HTTP is refused after shutdown")
    func lazyClient() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-lazy-\(UUID().uuidString).m3u8")
        try Data(Self.playlist).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let loader = PlaylistLoader()
        _ = try await loader.loadPlaylist(file.path)
        #expect(!loader.hasHTTPClient, "reading a file starts no HTTP client")
        let refused = await loadError { _ = try await loader.loadPlaylist("http://127.0.0.1:1/x.m3u8") }
        #expect(refused?.code == .network)
        #expect(loader.hasHTTPClient)
        try await loader.shutdown()
        #expect(!loader.hasHTTPClient)
        let afterShutdown = await loadError { _ = try await loader.loadPlaylist("http://127.0.0.1:1/x.m3u8") }
        #expect(afterShutdown?.message == "the loader was shut down before this request to 127.0.0.1:1")
        _ = try await loader.loadPlaylist(file.path)
        try await loader.shutdown()
        try await PlaylistLoader().shutdown()
    }

    @Test("files: loads paths and file URLs; missing files and directories are clear errors")
    func files() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hlsi-loader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.m3u8")
        try Data(Self.playlist).write(to: file)
        try await PlaylistLoader.withLoader { loader in
            let (_, result) = try await loader.loadPlaylist(file.path)
            #expect(result.document.write() == Self.playlist)
            let (_, viaURL) = try await loader.loadPlaylist(file.absoluteString)
            #expect(viaURL.playlist.media?.segments.count == 1)
            await expectLoadError(.fileUnreadable) {
                _ = try await loader.loadPlaylist(directory.appendingPathComponent("none.m3u8").path)
            }
            await expectLoadError(.fileUnreadable) { _ = try await loader.loadPlaylist(directory.path) }
            await expectLoadError(.invalidLocation) { _ = try await loader.loadPlaylist("ftp://example.com/a.m3u8") }
        }
    }
}
