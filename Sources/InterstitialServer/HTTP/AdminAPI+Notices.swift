import HLSInterstitials
import HLSPlaylist
import Hummingbird

/// The early notices of live breaks (``NoticeBoard``): an operator's automation announces a break
/// of a live channel before its cue, as Google DAI's early ad break notification.
extension AdminAPI {
    /// Adds `POST` and `GET channels/{id}/upcoming` and `DELETE channels/{id}/upcoming/{notice}`.
    func registerNotices(on group: RouterGroup<ServerRequestContext>) {
        let limit = configuration.limits.adminBodyBytes
        let board = NoticeBoard(configuration: configuration, state: state)
        group.post("channels/:id/upcoming") { request, context in
            let channel = try channel(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            let now = now()
            let notice = try await board.announce(channel, try NoticeBoard.request(body, now: now), now: now)
            metrics.notice(outcome: "announced")
            return Response.json(notice.jsonValue, status: .created)
        }
        group.get("channels/:id/upcoming") { _, context in
            Response.json(board.list(try channel(context), now: now()))
        }
        group.delete("channels/:id/upcoming/:notice") { _, context in
            let channel = try channel(context)
            guard let id = context.parameters.get("notice"), JSONObjectReader.isIdentifier(id) else {
                throw APIError.badRequest(code: .badPath, "the notice ID in the URL is not an identifier")
            }
            try await board.withdraw(channel, id: id)
            metrics.notice(outcome: "withdrawn")
            return Response(status: .noContent)
        }
    }
}
