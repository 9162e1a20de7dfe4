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

    /// A generous timeout (20 s; the slow route takes 40 s), so that a busy machine (tests run in parallel) does not time out a redirect
    /// chain; the timeout test waits out the slow route against it.
    func withServer(_ body: (TestHTTPServer, PlaylistLoader) async throws -> Void) async throws {
        try await TestHTTPServer.withServerAndLoader(routes: Self.routes, timeout: .seconds(20), body)
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
        try await TestHTTPServer.withServerAndLoader(
            routes: Self.routes, timeout: .milliseconds(500), maximumBodySize: 1000, started: { _ in }
        ) { server, loader in
            let stalled = await loadError { _ = try await loader.loadPlaylist(server.url("/stall.m3u8")) }
            #expect(stalled?.code == .timeout)
            #expect(stalled?.message.contains("no complete response") == true)
        }
        // The size cap, with a timeout a loaded machine does not reach first.
        try await TestHTTPServer.withServerAndLoader(
            routes: Self.routes, timeout: .seconds(60), maximumBodySize: 1000, started: { _ in }
        ) { server, loader in
            await expectLoadError(.tooLarge) { _ = try await loader.loadPlaylist(server.url("/big.m3u8")) }
            let loaded = try await loader.loadPlaylist(server.url("/ok.m3u8"))
            #expect(loaded.1.playlist.media != nil)
        }
        let started = ContinuousClock.now
        let refused = try await PlaylistLoader.withLoader { loader in
            await loadError { _ = try await loader.loadPlaylist("http://127.0.0.1:1/x.m3u8") }
        }
        #expect(refused?.code == .network)
        #expect(refused?.description.contains("http://127.0.0.1:1/x.m3u8: error: [load-network]") == true)
        // At once: a network error, not a timeout, and not after retrying for a connect timeout (10 s)
        // several times over; the bound is wide, as a loaded machine took 7.9 s for what takes 0.1.
        #expect(ContinuousClock.now - started < .seconds(60), "a refused connection is reported at once")
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
            await expectLoadError(.timeout) { _ = try await loader.loadPlaylist(server.url("/slow.m3u8")) }
        }
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
