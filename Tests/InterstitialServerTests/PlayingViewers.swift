import HLSPlaylist
import HummingbirdTesting
import Testing

@testable import InterstitialServer

/// Viewers who play a live channel as players do, for the tests of decisions made ahead: each
/// requests its media playlist, and again once the server's manual clock has moved on a playing
/// span (`prefetchPlayingSpan`, 6 s by default), so that the server sees them play
/// (``ViewerActivity``).
enum PlayingViewers {
    /// One viewer's playlist request: on `client`, the playlist at `path`, with the session in the
    /// `X-PLAYBACK-SESSION-ID` header (nil: the session is the path's `_HLS_primary_id`).
    typealias Request = (client: any TestClientProtocol, path: String, session: String?)

    /// The demo live channel's video playlist.
    static let videoPath = "/demo/live/video/main.m3u8"

    /// Makes each of `requests` in order, and again once `clock` has moved on `span`; every answer
    /// must be 200. Returns the answers, in order.
    @discardableResult
    static func play(
        _ requests: [Request], clock: ManualServerClock, span: MediaTime = ServerLimits().prefetchPlayingSpan
    ) async throws -> [TestResponse] {
        var answers: [TestResponse] = []
        for reload in 0..<2 {
            if reload > 0 { clock.advance(by: span) }
            for request in requests {
                let answer = try await request.client.get(
                    request.path, headers: request.session.map { [Routes.sessionField: $0] } ?? [:])
                #expect(answer.status == .ok, "GET \(request.path)")
                answers.append(answer)
            }
        }
        return answers
    }

    /// `viewers` (session IDs, in the header) play `path` on `client`, a playing span apart on
    /// `clock`. Returns the answers, in order.
    @discardableResult
    static func play(
        _ viewers: [String], on client: any TestClientProtocol, path: String = videoPath, clock: ManualServerClock
    ) async throws -> [TestResponse] {
        try await play(viewers.map { (client, path, $0) }, clock: clock)
    }
}
