import Foundation
import Testing

@testable import HLSLoading

/// Issue 16: failures below HTTP are worded for people, with the host and port, never a library's
/// nested descriptions ("connection reset (error set): Connection refused) (errno: 111)").
@Suite("Network failures worded for people")
struct NetworkFailureTests {
    static let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n".utf8)

    static func routes(_ path: String) -> TestHTTPServer.Response {
        switch path {
        case "/ok.m3u8": return .init(body: playlist)
        case "/error.m3u8": return .init(status: .internalServerError, body: Array("boom".utf8))
        case "/closed.m3u8": return .init(body: playlist, closeAfter: 10)
        case "/stall.m3u8": return .init(body: playlist, stallAfter: 10)
        default: return .init(status: .notFound, body: Array("nope".utf8))
        }
    }

    /// The LoadError `location` fails with.
    func failure(_ loader: PlaylistLoader, _ location: String) async -> LoadError? {
        do {
            _ = try await loader.loadPlaylist(location)
            Issue.record("\(location) loaded")
        } catch let error as LoadError {
            return error
        } catch {
            Issue.record("not a LoadError: \(error)")
        }
        return nil
    }

    @Test("a refused connection names the host and port")
    func refused() async throws {
        let error = try await PlaylistLoader.withLoader { await failure($0, "http://127.0.0.1:1/x") }
        #expect(error?.code == .network)
        #expect(error?.message == "connection refused by 127.0.0.1:1: nothing listens there")
        #expect(
            error?.description
                == "http://127.0.0.1:1/x: error: [load-network] connection refused by 127.0.0.1:1: nothing listens there"
        )
    }

    @Test("HTTP statuses, a dropped connection, TLS to a plain server and a stalled body are each said plainly")
    func overHTTP() async throws {
        // What is refused or dropped fails as soon as it is; only the stalled body waits for the
        // timeout, on a manual clock moved past it once the server has sent the head. A loaded
        // machine may be slow to answer the others: their loader's timeout is long, so that what
        // is said is theirs, not a timeout's.
        let timer = ManualTimer()
        var stalled: LoadError?
        try await TestHTTPServer.withServerAndLoader(routes: Self.routes, timeout: .seconds(3600), timer: timer) {
            server, loader in
            async let failed = failure(loader, server.url("/stall.m3u8"))
            let waiting = try await eventually { server.answered.contains("/stall.m3u8") && timer.sleepers == 1 }
            #expect(waiting, "the loader waits for its deadline, the head sent")
            timer.advance(by: .seconds(3600))
            stalled = await failed
            #expect(stalled?.code == .timeout)
            #expect(stalled?.message == "no complete response from 127.0.0.1:\(server.port) within 3600 s")
        }
        try await TestHTTPServer.withServerAndLoader(routes: Self.routes, timeout: .seconds(600)) { server, loader in
            let endpoint = "127.0.0.1:\(server.port)"
            let missing = await failure(loader, server.url("/missing.m3u8"))
            #expect(missing?.code == .httpStatus)
            #expect(missing?.message == "the server answered HTTP 404 Not Found")
            let broken = await failure(loader, server.url("/error.m3u8"))
            #expect(broken?.httpStatus == 500)
            #expect(broken?.message == "the server answered HTTP 500 Internal Server Error")
            let closed = await failure(loader, server.url("/closed.m3u8"))
            #expect(closed?.code == .network)
            #expect(closed?.message == "\(endpoint) closed the connection before the response was complete")
            let tls = await failure(loader, "https://\(endpoint)/ok.m3u8")
            #expect(tls?.code == .network)
            #expect(tls?.message.hasPrefix("TLS with \(endpoint) failed") == true, "\(String(describing: tls))")
            for error in [missing, broken, closed, tls, stalled] {
                let text = error?.description ?? ""
                #expect(!text.contains("errno") && !text.contains("Error(") && !text.contains("NIO"), "\(text)")
            }
        }
    }

    @Test("a host name that does not resolve is said to not resolve")
    func unresolvable() async throws {
        let error = try await PlaylistLoader.withLoader(configuration: .init(timeout: .seconds(600))) {
            await failure($0, "http://no-such-host.invalid/x.m3u8")
        }
        #expect(error?.code == .network)
        #expect(
            error?.message.hasPrefix("cannot resolve the host name \"no-such-host.invalid\"") == true,
            "\(String(describing: error))")
    }

    @Test("the reason of a TLS library's error text in words")
    func tlsReasons() {
        #expect(
            NetworkFailure.tlsReason(
                "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435703 error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER]))"
            ) == ": the server does not speak TLS there (plain http?)")
        #expect(
            NetworkFailure.tlsReason("error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED")
                == ": its certificate is not trusted")
        #expect(
            NetworkFailure.tlsReason("SSL routines:OPENSSL_internal:TLSV1_ALERT_PROTOCOL_VERSION")
                == ": tlsv1 alert protocol version")
        #expect(NetworkFailure.tlsReason("unexpected EOF") == "")
    }

    @Test("endpoints: the scheme's default port, IPv6 in brackets")
    func endpoints() {
        func endpoint(_ location: String) -> String {
            NetworkFailure(location: location, timeout: .seconds(1), maximumRedirects: 5).endpoint
        }
        #expect(endpoint("http://example.com/a") == "example.com:80")
        #expect(endpoint("https://example.com/a") == "example.com:443")
        #expect(endpoint("http://[::1]:8080/a") == "[::1]:8080")
        #expect(NetworkFailure.seconds(.milliseconds(1500)) == "1.5 s")
    }
}
