import NIOCore
import NIOHTTPTypes

/// Tells the connection's ``RequestGuard`` that the HTTP/1 pipeline is in place and when each
/// answer the server writes there ends, so that the guard answers a request itself (``FastLane``)
/// only when no earlier one is still being answered, and knows when the connection is idle.
///
/// Hummingbird adds it behind the HTTP/1 codec once the connection's first request chose no
/// upgrade (`HTTP1Channel.Configuration.additionalChannelHandlers`).
final class ResponseTracker: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var requestGuard: RequestGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        requestGuard = try? context.pipeline.syncOperations.handler(type: RequestGuard.self)
        requestGuard?.trackerAdded()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestGuard = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let isEnd = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if isEnd { requestGuard?.answerEnded() }
    }
}

@available(*, unavailable)
extension ResponseTracker: Sendable {}
