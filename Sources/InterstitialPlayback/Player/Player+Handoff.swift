import AsyncHTTPClient
import Foundation
import HLSPlaylist
import Logging
import NIOCore
import NIOHTTP1
import PlaybackCoordination

extension Player {
    /// Creates a player that continues a handed-off session (AirPlay-style): the same item from the
    /// same point (inside an interstitial included), at the same rate, with the session's events —
    /// client-set ones and overridden restrictions included, which it enforces — its ONCE history,
    /// and its audio and subtitle selection.
    public convenience init<C: Clock>(
        session: PlaybackSession, configuration: Configuration = Configuration(), clock: C,
        renderer: any MediaRenderer = CountingRenderer(), logger: Logger? = nil
    ) where C.Duration == Duration {
        var configuration = configuration
        configuration.preferredTracks = session.tracks
        let item = PlayerItem(url: session.url)
        item.automaticallyHandlesInterstitialEvents = session.automaticallyHandlesInterstitialEvents
        self.init(item: item, configuration: configuration, clock: clock, renderer: renderer, logger: logger)
        handle(.restore(session))
    }

    /// Hands the session off through a server's hand-off endpoint (`POST /handoff/NAME`) and stops
    /// this player (trace `handedOff`); the receiver is ``receiveSession(from:timeout:)``.
    ///
    /// - Throws: `CoordinationError` with code `handoff-send` when the server does not accept it.
    public func handOff(to url: String) async throws {
        let session = session()
        try await Self.send(session, to: url)
        handle(.handedOff(to: url))
    }

    /// Sends a session to a hand-off endpoint (`hlsi handoff`).
    public static func send(_ session: PlaybackSession, to url: String) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: session.text))
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        } catch {
            throw CoordinationError(code: .handoffSend, path: url, "could not reach the hand-off endpoint: \(error)")
        }
        let body = try? await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw CoordinationError(
                code: .handoffSend, path: url,
                "the server answered \(response.status.code): \(body.map { String(buffer: $0) } ?? "")")
        }
    }

    /// Waits for a session handed off to `url` (`GET /handoff/NAME`, long-polled) and returns it.
    ///
    /// - Throws: `CoordinationError` with code `handoff-receive` on a timeout or an error answer,
    ///   or the session's schema error.
    public static func receiveSession(
        from url: String, timeout: Duration = .seconds(300)
    ) async throws
        -> PlaybackSession
    {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            try Task.checkCancellation()
            let left = max(1, min(25, Int(clock.now.duration(to: deadline).components.seconds)))
            let separator = url.contains("?") ? "&" : "?"
            let request = HTTPClientRequest(url: "\(url)\(separator)wait=\(left)")
            let response: HTTPClientResponse
            do {
                response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(left) + 10))
            } catch {
                throw CoordinationError(
                    code: .handoffReceive, path: url, "could not reach the hand-off endpoint: \(error)")
            }
            let body = try await response.body.collect(upTo: 4 << 20)
            switch response.status.code {
            case 200: return try PlaybackSession(json: Array(buffer: body))
            case 204: continue
            default:
                throw CoordinationError(
                    code: .handoffReceive, path: url,
                    "the server answered \(response.status.code): \(String(buffer: body))")
            }
        }
        throw CoordinationError(code: .handoffReceive, path: url, "no session arrived within \(timeout)")
    }
}
