import AsyncHTTPClient
import Foundation
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Loads playlists (and other small resources such as asset lists) from files and http(s) URLs.
///
/// HTTP requests follow at most ``Configuration/maximumRedirects`` redirects (5 by default) and
/// allow ``Configuration/timeout`` for the whole response, body included (60 s by default, behavior
/// profile R20); bodies larger than ``Configuration/maximumBodySize`` (64 MiB) are refused. Failures
/// are thrown as ``LoadError`` with a stable code: HTTP statuses, timeouts, content that is not a
/// playlist, bytes that are not UTF-8. The loader owns an HTTP client, made at its first HTTP
/// request (a loader that reads only files starts no network threads): call ``shutdown()`` when
/// done, or use ``withLoader(configuration:logger:_:)``.
public final class PlaylistLoader: Sendable {
    /// Loader settings.
    public struct Configuration: Sendable {
        /// The time allowed for a whole response: connecting, redirects, the head and the body.
        public var timeout: Duration
        /// The most redirects followed.
        public var maximumRedirects: Int
        /// The largest body accepted, in bytes.
        public var maximumBodySize: Int
        /// Extra headers sent with every request (e.g. `X-PLAYBACK-SESSION-ID`).
        public var headers: [(name: String, value: String)]

        /// Creates a configuration.
        public init(
            timeout: Duration = .seconds(60), maximumRedirects: Int = 5, maximumBodySize: Int = 64 << 20,
            headers: [(name: String, value: String)] = []
        ) {
            self.timeout = timeout
            self.maximumRedirects = maximumRedirects
            self.maximumBodySize = maximumBodySize
            self.headers = headers
        }
    }

    /// The settings.
    public let configuration: Configuration
    private let client = NIOLockedValueBox(ClientState.none)
    private let logger: Logger?
    /// How the whole-response deadline (``Configuration/timeout``) waits: the continuous clock, or
    /// a test's manual clock.
    private let sleep: TimeLimitSleep

    /// The HTTP client: none until the first HTTP request, none again after ``shutdown()``.
    private enum ClientState {
        case none
        case running(HTTPClient)
        case shutDown
    }

    /// Creates a loader; its HTTP client is made at the first HTTP request.
    public convenience init(configuration: Configuration = Configuration(), logger: Logger? = nil) {
        self.init(configuration: configuration, logger: logger, sleep: { try await Task.sleep(for: $0) })
    }

    /// Creates a loader whose whole-response deadline waits with `sleep` (a test's manual clock:
    /// the deadline passes when the test moves it). The HTTP client's own timeout for the response
    /// head stays on real time: give a long ``Configuration/timeout`` when the clock is a test's.
    package init(configuration: Configuration, logger: Logger?, sleep: @escaping TimeLimitSleep) {
        self.configuration = configuration
        self.logger = logger
        self.sleep = sleep
    }

    /// Whether the loader has an HTTP client now (made by an HTTP request, gone after shutdown).
    package var hasHTTPClient: Bool {
        client.withLockedValue { state in
            if case .running = state { return true }
            return false
        }
    }

    /// The HTTP client, made now if this is the first HTTP request.
    private func httpClient() throws -> HTTPClient {
        try client.withLockedValue { state in
            switch state {
            case .running(let client): return client
            case .shutDown: throw HTTPClientError.alreadyShutdown
            case .none:
                var clientConfiguration = HTTPClient.Configuration()
                clientConfiguration.redirectConfiguration = .follow(
                    max: configuration.maximumRedirects, allowCycles: false)
                clientConfiguration.decompression = .enabled(limit: .ratio(50))
                // Connecting is part of the response's time (``Configuration/timeout``), which the
                // error of a connection that does not come names; not the client's own 10 s.
                clientConfiguration.timeout.connect = .nanoseconds(configuration.timeout.wholeNanoseconds)
                // A refused connection is an answer: report it at once instead of retrying until the timeout.
                clientConfiguration.connectionPool.retryConnectionEstablishment = false
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
                state = .running(client)
                return client
            }
        }
    }

    /// Runs `body` with a loader and shuts it down afterwards.
    public static func withLoader<Result: Sendable>(
        configuration: Configuration = Configuration(), logger: Logger? = nil,
        _ body: (PlaylistLoader) async throws -> Result
    ) async throws -> Result {
        let loader = PlaylistLoader(configuration: configuration, logger: logger)
        do {
            let result = try await body(loader)
            try await loader.shutdown()
            return result
        } catch {
            try? await loader.shutdown()
            throw error
        }
    }

    /// Shuts the HTTP client down, if one was made; later HTTP requests fail.
    public func shutdown() async throws {
        let running = client.withLockedValue { state -> HTTPClient? in
            defer { state = .shutDown }
            if case .running(let client) = state { return client }
            return nil
        }
        try await running?.shutdown()
    }

    /// A loaded resource: its bytes and the URL it finally came from (after redirects).
    public struct Resource: Sendable {
        /// The location asked for.
        public var location: String
        /// The final URL after redirects (the path for files).
        public var finalLocation: String
        /// The bytes.
        public var bytes: [UInt8]
        /// The Content-Type header, for HTTP.
        public var contentType: String?
    }

    /// Loads the bytes of a file path, `file:` URL or http(s) URL.
    public func loadResource(_ location: String) async throws -> Resource {
        if let url = URL(string: location), let scheme = url.scheme?.lowercased(), scheme.count > 1 {
            switch scheme {
            case "http", "https": return try await loadHTTP(location)
            case "file": return try loadFile(url.path, location: location)
            default:
                throw LoadError(
                    .invalidLocation, location: location,
                    "unsupported URL scheme '\(scheme)'; use a file path or an http(s) URL")
            }
        }
        return try loadFile(location, location: location)
    }

    /// Loads and parses a playlist. Content that is not a playlist or not UTF-8 throws; every
    /// other problem is a diagnostic in the result.
    public func loadPlaylist(_ location: String, options: ParseOptions? = nil) async throws -> (Resource, ParseResult) {
        let resource = try await loadResource(location)
        try Self.checkPlaylistContent(resource)
        var parseOptions = options ?? ParseOptions()
        parseOptions.file = location
        if parseOptions.playlistURL == nil { parseOptions.playlistURL = resource.finalLocation }
        return (resource, PlaylistParser.parse(resource.bytes, options: parseOptions))
    }

    /// Throws unless the bytes look like a playlist in UTF-8.
    public static func checkPlaylistContent(_ resource: Resource) throws {
        try checkPlaylistContent(resource.bytes, location: resource.location, contentType: resource.contentType)
    }

    /// Throws unless `bytes` look like a playlist in UTF-8: `#EXTM3U` first (after a byte order
    /// mark), and valid UTF-8.
    ///
    /// - Parameters:
    ///   - bytes: The content.
    ///   - location: Where it came from, for the error.
    ///   - contentType: The Content-Type it came with, for the error.
    public static func checkPlaylistContent(
        _ bytes: [UInt8], location: String, contentType: String?
    ) throws(LoadError) {
        var content = bytes[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        if !content.starts(with: Array("#EXTM3U".utf8)) {
            let preview = Diagnostic.clipped(String(decoding: content.prefix(40), as: UTF8.self))
            let type = contentType.map { " (Content-Type: \($0))" } ?? ""
            throw LoadError(
                .notAPlaylist, location: location,
                "not a playlist\(type): it must start with #EXTM3U, but starts with \"\(preview)\"",
                position: SourceLocation(file: location, line: 1, column: 1))
        }
        if !Self.isASCII(bytes), String(validating: bytes, as: UTF8.self) == nil {
            // The parser locates the first bad byte.
            let diagnostics = PlaylistParser.parse(bytes, options: ParseOptions(file: location)).diagnostics
            let located = diagnostics.first { $0.rule == Rule.playlistEncoding.id && $0.message.contains("UTF-8") }?
                .location
            throw LoadError(
                .notUTF8, location: location,
                "the content is not valid UTF-8; §4.1: \"Playlist files MUST be encoded in UTF-8\"", position: located)
        }
    }

    /// Whether every byte is ASCII (so the bytes are valid UTF-8), eight bytes at a time: most
    /// playlists are, and then no string need be made to validate them.
    private static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var index = 0
            var high: UInt64 = 0
            while index + 8 <= raw.count {
                high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < raw.count {
                high |= UInt64(raw[index])
                index += 1
            }
            return high & 0x8080_8080_8080_8080 == 0
        }
    }

    private func loadFile(_ path: String, location: String) throws -> Resource {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFileReader.read(path, limit: configuration.maximumBodySize)
        } catch {
            switch error {
            case .missing: throw LoadError(.fileUnreadable, location: location, "no such file")
            case .directory: throw LoadError(.fileUnreadable, location: location, "is a directory")
            case .unreadable(let code):
                throw LoadError(
                    .fileUnreadable, location: location, "the file cannot be read (\(String(cString: strerror(code))))")
            case .tooLarge:
                throw LoadError(
                    .tooLarge, location: location, "the file is larger than \(configuration.maximumBodySize) bytes")
            }
        }
        return Resource(location: location, finalLocation: path, bytes: bytes, contentType: nil)
    }

    private func loadHTTP(_ location: String) async throws -> Resource {
        var request = HTTPClientRequest(url: location)
        request.headers.add(
            name: "Accept", value: "application/vnd.apple.mpegurl, application/x-mpegurl, application/json, */*")
        request.headers.add(name: "User-Agent", value: "hlsi/1.0 (HLS Interstitials toolkit)")
        for header in configuration.headers { request.headers.add(name: header.name, value: header.value) }
        logger?.debug("GET \(location)")
        let timeout = TimeAmount.nanoseconds(configuration.timeout.wholeNanoseconds)
        let logger = logger
        let maximumBodySize = configuration.maximumBodySize
        let sleep = sleep
        do {
            let client = try httpClient()
            // The client's timeout covers the response head; the time limit covers the body too.
            return try await withTimeLimit(configuration.timeout, sleep: sleep) { [request] in
                let response = try await client.execute(request, timeout: timeout, logger: logger)
                let finalLocation = response.url?.absoluteString ?? location
                guard (200..<300).contains(response.status.code) else {
                    throw LoadError(
                        .httpStatus, location: location,
                        "the server answered HTTP \(response.status.code) \(response.status.reasonPhrase)\(finalLocation != location ? " from \(finalLocation)" : "")",
                        httpStatus: Int(response.status.code))
                }
                if let length = response.headers.first(name: "content-length").flatMap({ Int($0) }),
                    length > maximumBodySize
                {
                    throw LoadError(
                        .tooLarge, location: location,
                        "the response is \(length) bytes, larger than \(maximumBodySize) bytes")
                }
                let body = try await response.body.collect(upTo: maximumBodySize)
                return Resource(
                    location: location, finalLocation: finalLocation, bytes: Array(buffer: body),
                    contentType: response.headers.first(name: "content-type"))
            }
        } catch let error as LoadError {
            throw error
        } catch is NIOTooManyBytesError {
            throw LoadError(
                .tooLarge, location: location, "the response is larger than \(configuration.maximumBodySize) bytes")
        } catch {
            throw NetworkFailure(
                location: location, timeout: configuration.timeout, maximumRedirects: configuration.maximumRedirects
            ).loadError(for: error)
        }
    }
}
