import AsyncHTTPClient
import Foundation
import HLSLoading
import HLSPlaylist
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Fetches resources from the allowed upstream origins within the server's limits: request slots
/// per origin, timeouts, and size caps for playlists (read whole and checked) and other files
/// (streamed).
final class UpstreamClient: Sendable {
    let configuration: ServerConfiguration
    let client: HTTPClient
    let logger: Logger
    /// The server's clock: the timeouts of a request and of a streamed body are on it.
    let clock: any ServerClock
    /// Requests in progress per upstream origin.
    private let upstreamRequests = NIOLockedValueBox<[String: Int]>([:])

    /// A client for the origins `configuration` allows, through `client`, on `clock`.
    init(configuration: ServerConfiguration, client: HTTPClient, logger: Logger, clock: any ServerClock) {
        self.configuration = configuration
        self.client = client
        self.logger = logger
        self.clock = clock
    }

    /// The URL of `path` next to an upstream entry URL, with the parameters of the viewer's `query`
    /// that ``UpstreamQuery/forwarded(_:path:)`` keeps, sorted: one URL for every spelling of a request.
    static func upstreamURL(entry: String, path: SafePath, query: [String: String]) -> String {
        var base = entry
        if let queryStart = base.firstIndex(of: "?") { base = String(base[..<queryStart]) }
        if let slash = base.lastIndex(of: "/") { base = String(base[...slash]) }
        var url = base + path.text
        let pairs = UpstreamQuery.forwarded(query, path: path).sorted { $0.key < $1.key }.map { key, value in
            "\(Self.escape(key))=\(Self.escape(value))"
        }
        if !pairs.isEmpty { url += "?" + pairs.joined(separator: "&") }
        return url
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+")))
            ?? text
    }

    /// What an upstream origin answered.
    enum Upstream: Sendable {
        /// A playlist, read whole and checked.
        case playlist(ParseResult)
        /// Another file, streamed, with its Content-Type.
        case file(ResponseBody, String)
    }

    /// Fetches an upstream resource from an allowed origin, within the limits: one of the origin's
    /// request slots (503 when none is free), the whole-response timeout and size cap of a playlist
    /// (`playlist`, or a response whose type says it is one), or the head and chunk timeouts, the
    /// transfer timeout and the size cap of a streamed file. Failures are 502, 503 or 504 with the reason.
    /// A request whose URL carries a viewer's query (`viewerQuery`) may not take the origin's last
    /// ``ServerLimits/upstreamReserve`` slots, kept for the channel's own URLs.
    func fetch(_ url: String, playlist: Bool, viewerQuery: Bool = false) async throws(APIError) -> Upstream {
        switch try await request(url, whole: playlist, viewerQuery: viewerQuery) {
        case .whole(let bytes, let type): return .playlist(try Self.checkedPlaylist(bytes, url: url, contentType: type))
        case .streamed(let body, let type): return .file(body, type)
        }
    }

    /// Fetches a small upstream resource whole (an asset list), within the limits of a playlist.
    func fetchBytes(_ url: String) async throws(APIError) -> [UInt8] {
        switch try await request(url, whole: true) {
        case .whole(let bytes, _): return bytes
        case .streamed: throw APIError(status: 502, code: .upstreamFailed, "\(url) was not read whole")
        }
    }

    private enum Answer {
        case whole([UInt8], String)
        case streamed(ResponseBody, String)
    }

    /// One upstream request: read whole when `whole` or when the response is a playlist, else streamed.
    private func request(_ url: String, whole: Bool, viewerQuery: Bool = false) async throws(APIError) -> Answer {
        guard let origin = ServerConfiguration.origin(of: url), configuration.allowedOrigins.contains(origin) else {
            throw APIError(status: 502, code: .upstreamOrigin, "\(url) is not on an allowed origin")
        }
        let limits = configuration.limits
        let slot = try takeSlot(origin, viewerQuery: viewerQuery)
        let clock = clock
        let started = clock.now
        let client = client
        do {
            let response = try await client.execute(
                HTTPClientRequest(url: url), deadline: clock.deadline(at: started + limits.upstreamTimeout))
            guard response.status == .ok else {
                throw APIError(status: 502, code: .upstreamStatus, "\(url) answered \(response.status.code)")
            }
            let type = response.headers.first(name: "content-type") ?? ""
            let length = response.headers.first(name: "content-length").flatMap { Int($0) }
            guard whole || type.lowercased().contains("mpegurl") else {
                if let length, length > limits.upstreamFileBytes {
                    throw APIError(
                        status: 502, code: .upstreamTooLarge,
                        "\(url) is \(length) bytes, more than the \(limits.upstreamFileBytes) allowed")
                }
                return .streamed(stream(response.body, length: length, url: url, slot: slot), type)
            }
            defer { slot.release() }
            if let length, length > limits.upstreamPlaylistBytes {
                throw APIError(
                    status: 502, code: .upstreamTooLarge,
                    "the playlist \(url) is \(length) bytes, more than the \(limits.upstreamPlaylistBytes) allowed")
            }
            let remaining = limits.upstreamTimeout - (clock.now - started)
            // The body's time limit is on the server's clock, as the request's deadline is.
            let sleep: TimeLimitSleep = { try await clock.sleep(for: MediaTime($0)) }
            let body = try await withTimeLimit(remaining.duration, sleep: sleep) {
                try await response.body.collect(upTo: limits.upstreamPlaylistBytes)
            }
            return .whole(Array(buffer: body), type)
        } catch let error as APIError {
            slot.release()
            throw error
        } catch let error as NIOTooManyBytesError {
            _ = error
            slot.release()
            throw APIError(
                status: 502, code: .upstreamTooLarge,
                "the playlist \(url) is larger than the \(limits.upstreamPlaylistBytes) bytes allowed")
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            slot.release()
            throw APIError(status: 504, code: .upstreamTimeout, "\(url) did not answer in time")
        } catch is TimeLimitExceeded {
            slot.release()
            throw APIError(
                status: 504, code: .upstreamTimeout, "\(url) did not answer whole within \(limits.upstreamTimeout) s")
        } catch {
            slot.release()
            throw APIError(status: 502, code: .upstreamFailed, "\(url) failed: \(error)")
        }
    }

    /// An upstream playlist, if it is one: `#EXTM3U` first, UTF-8, a media or multivariant
    /// playlist whose structure parses; else 502 with the reason.
    static func checkedPlaylist(_ bytes: [UInt8], url: String, contentType: String) throws(APIError) -> ParseResult {
        do {
            try PlaylistLoader.checkPlaylistContent(bytes, location: url, contentType: contentType)
        } catch {
            throw APIError(status: 502, code: .upstreamNotPlaylist, "\(url): \(error.message)")
        }
        let result = PlaylistParser.parse(bytes, options: ParseOptions(file: url, playlistURL: url))
        let fatal: Set<RuleID> = [
            Rule.playlistHeader.id, Rule.playlistEncoding.id, Rule.playlistKind.id, Rule.segmentURI.id,
            Rule.streamURI.id, Rule.tagMissing.id,
        ]
        if let problem = result.diagnostics.first(where: { $0.severity == .error && fatal.contains($0.rule) }) {
            throw APIError(
                status: 502, code: .upstreamNotPlaylist, "\(url) is not a usable playlist: \(problem.message)")
        }
        return result
    }

    /// The body of an upstream file, passed on chunk by chunk: cut off beyond
    /// ``ServerLimits/upstreamFileBytes`` or ``ServerLimits/upstreamTransferTimeout`` (a stalled
    /// upstream is cut by the HTTP client's read timeout, ``ServerLimits/upstreamTimeout``).
    private func stream(
        _ body: HTTPClientResponse.Body, length: Int?, url: String, slot: UpstreamSlot
    ) -> ResponseBody {
        let limits = configuration.limits
        let clock = clock
        let deadline = clock.now + limits.upstreamTransferTimeout
        let logger = logger
        return ResponseBody(contentLength: length) { writer in
            defer { slot.release() }
            var received = 0
            do {
                for try await chunk in body {
                    received += chunk.readableBytes
                    guard received <= limits.upstreamFileBytes else {
                        throw APIError(
                            status: 502, code: .upstreamTooLarge,
                            "\(url) is larger than the \(limits.upstreamFileBytes) bytes allowed")
                    }
                    guard clock.now < deadline else {
                        throw APIError(
                            status: 504, code: .upstreamTimeout,
                            "\(url) took longer than \(limits.upstreamTransferTimeout) s")
                    }
                    try await writer.write(chunk)
                }
            } catch {
                logger.warning("cut off the upstream body of \(url) after \(received) bytes: \(error)")
                throw error
            }
            try await writer.finish(nil)
        }
    }

    /// Takes one of the origin's ``ServerLimits/upstreamConcurrency`` request slots, or fails with 503;
    /// a request with a viewer's query leaves the last ``ServerLimits/upstreamReserve`` free.
    private func takeSlot(_ origin: String, viewerQuery: Bool) throws(APIError) -> UpstreamSlot {
        let limits = configuration.limits
        let limit = viewerQuery ? limits.upstreamConcurrency - limits.upstreamReserve : limits.upstreamConcurrency
        let counts = upstreamRequests
        let taken = counts.withLockedValue { counts in
            guard counts[origin, default: 0] < limit else { return false }
            counts[origin, default: 0] += 1
            return true
        }
        guard taken else {
            throw APIError(
                status: 503, code: .upstreamBusy,
                viewerQuery
                    ? "\(limit) requests to \(origin) with a viewer's query are in progress (the last \(limits.upstreamReserve) of \(limits.upstreamConcurrency) are kept for the channel's own URLs); try again soon"
                    : "\(limit) requests to \(origin) are in progress; try again soon")
        }
        return UpstreamSlot {
            counts.withLockedValue { counts in
                counts[origin, default: 1] -= 1
                if counts[origin] == 0 { counts[origin] = nil }
            }
        }
    }
}
