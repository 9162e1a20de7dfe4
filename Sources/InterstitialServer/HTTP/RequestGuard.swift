import HLSPlaylist
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// A channel handler in front of the HTTP/1 decoder that bounds what a client may send before the
/// server has a request: the request line (414), the header fields (431), their syntax and the
/// body's framing (400), the time to send a head (408) and a body (408), the time a connection may
/// stay idle, and the connections open at once (503, ``ConnectionLimiter``).
///
/// It drives a ``RequestHeadReader`` over the bytes read, which refuses what the decoder would
/// refuse (so that no request is dropped there unanswered), and passes each head to the decoder
/// only once it is whole and valid; bodies pass straight through (their framing tells where the
/// next head starts). Bytes pass on as slices of what was read, not copies. A refused request gets
/// a JSON error response (the server's usual `{"error":{…}}`, with `Connection: close` and
/// `Access-Control-Allow-Origin: *`), after the responses to the earlier requests on its
/// connection, and the connection is closed. A connection with no request being read or answered
/// for the idle timeout is closed without an answer. Every deadline is decided on the server's
/// ``ServerClock``; the event loop only runs the wake-up (``ServerClock/wake(at:on:_:)``), so a
/// test decides a timeout by moving a ``ManualServerClock``. A head whose `Connection` field
/// carries the `close` option in any form, or an HTTP/1.0 request's without `keep-alive`, passes
/// on with exactly `Connection: close`, so that the connection is closed once it is answered
/// (``RequestHeadReader/Head/closesConnection``). A WebSocket upgrade request
/// (`Upgrade: websocket`) ends the guarding of its connection: the server either upgrades it or
/// closes it.
///
/// A plain GET whose answer is in memory is answered here, by the ``FastLane``, once the
/// connection's HTTP/1 pipeline is in place (``ResponseTracker`` says so and counts the answers
/// behind) and no earlier request is still being answered, so answers keep their order.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData
    typealias Refusal = RequestHeadReader.Refusal

    /// The limits it enforces.
    struct Limits: Sendable {
        var requestLineBytes: Int
        var headerBytes: Int
        var headerCount: Int
        var headerTimeout: MediaTime
        var bodyTimeout: MediaTime
        var idleTimeout: MediaTime

        init(_ limits: ServerLimits) {
            requestLineBytes = limits.requestLineBytes
            headerBytes = limits.headerBytes
            headerCount = limits.headerCount
            headerTimeout = limits.headerTimeout
            bodyTimeout = limits.bodyTimeout
            idleTimeout = limits.idleTimeout
        }

        /// The timeouts of a connection.
        var clock: ConnectionClock.Limits {
            ConnectionClock.Limits(header: headerTimeout, body: bodyTimeout, idle: idleTimeout)
        }

        /// The bounds of a head.
        var head: RequestHeadReader.Limits {
            RequestHeadReader.Limits(
                requestLineBytes: requestLineBytes, headerBytes: headerBytes, headerCount: headerCount)
        }
    }

    private let limits: Limits
    private let logger: Logger
    /// The server's clock: every deadline of the connection is on it.
    private let serverClock: any ServerClock
    private let fastLane: FastLane?
    private let connections: ConnectionLimiter?
    private var reader: RequestHeadReader
    /// Whether the connection is ended (refused, timed out or idle): nothing more is read.
    private var ended = false
    /// Whether it has begun (the timer and the connection count are set up once).
    private var started = false
    /// The connection's ID in ``connections`` while it is counted there.
    private var admitted: UInt64?
    /// Whether ``connections`` was last told the connection is idle.
    private var reportedIdle = true
    /// The connection's time rules: what is being read and answered, and what is due when.
    private var clock: ConnectionClock
    /// Whether the HTTP/1 pipeline behind is in place (the first request chose no upgrade).
    private var pipelineReady = false
    /// Whether a request carrying the `close` option was passed on: the connection closes once it
    /// is answered, and no request after it is answered here (RFC 9112 §9.6).
    private var closing = false
    private var now: MediaTime { serverClock.now }
    private var timer: ServerClockAlarm?
    private var timerDeadline: MediaTime?
    /// The connection's peer as an IP address (nil for a Unix socket), read once: it is the same
    /// for every request, and writing it out (`inet_ntop`) was about 1 % of a kept playlist's fast
    /// answer when read per request.
    private var peerAddress: String??
    /// The `Date` field of fast answers, made once a second.
    private var date: (second: Int, text: String) = (0, "")
    /// The error response written when the pipeline closes (after earlier responses).
    private var pending: ByteBuffer?

    /// A guard enforcing `limits` on `clock`'s time, answering from `fastLane` and counting its
    /// connection in `connections` when given.
    init(
        limits: Limits, logger: Logger, clock: any ServerClock, fastLane: FastLane? = nil,
        connections: ConnectionLimiter? = nil
    ) {
        self.limits = limits
        self.logger = logger
        serverClock = clock
        self.fastLane = fastLane
        self.connections = connections
        reader = RequestHeadReader(limits: limits.head)
        self.clock = ConnectionClock(limits: limits.clock)
    }

    // MARK: Events

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { becameActive(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        releaseConnection()
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        releaseConnection()
        context.fireChannelInactive()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if clock.dropsAnswers {
            promise?.succeed(())
            return
        }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard let response = pending else {
            context.close(mode: mode, promise: promise)
            return
        }
        pending = nil
        cancelTimer()
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(response))).assumeIsolated().whenComplete { _ in
            context.close(mode: .all, promise: promise)
        }
    }

    /// The ``ResponseTracker`` behind is in place: requests can be answered here from now on.
    func trackerAdded() {
        pipelineReady = true
    }

    /// An answer from the handlers behind has ended.
    func answerEnded() {
        clock.answerEnded(at: now)
        reportIdle()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if reader.upgraded {
            context.fireChannelRead(data)
            return
        }
        guard !ended else { return }
        var run = Run(input: unwrapInboundIn(data))
        var answered = false
        reading: while run.cursor < run.end {
            let starting = !reader.readingHead
            let step = run.input.withUnsafeReadableBytes { bytes in
                reader.read(UnsafeRawBufferPointer(rebasing: bytes[(run.cursor - run.input.readerIndex)...]))
            }
            switch step {
            case .blank(let count):
                // Blank lines before a request line are dropped.
                run.pass(upTo: run.cursor, context)
                run.cursor += count
                run.runStart = run.cursor
            case .partial(let count):
                if starting {
                    run.headStart = run.cursor
                    clock.headBegan(at: now)
                }
                run.cursor += count
            case .head(let count, let head):
                if starting { run.headStart = run.cursor }
                run.cursor += count
                if completed(head, &run, context) { answered = true }
            case .body(let count):
                run.cursor += count
                if !reader.readingBody { clock.bodyEnded(at: now) }
            case .refuse(let refusal):
                // Nothing of a refused head passes on (it may have begun in an earlier read).
                run.pass(upTo: run.headStart ?? (starting ? run.cursor : run.runStart), context)
                refuse(refusal, context: context)
                break reading
            }
        }
        if ended {
            // Refused: nothing after the refused request passes on.
        } else if reader.readingHead {
            // A head still being read waits for its end; the bytes before it pass on.
            run.pass(upTo: run.headStart ?? run.runStart, context)
            if let deadline = clock.headDeadline { schedule(context, at: deadline) }
        } else {
            run.pass(upTo: run.end, context)
        }
        if answered { context.flush() }
        reportIdle()
    }

    // MARK: Heads

    /// Where one read is: the next byte to read, and the bytes not yet passed on.
    private struct Run {
        let input: ByteBuffer
        var cursor: Int
        let end: Int
        /// The first byte not yet passed on.
        var runStart: Int
        /// Where the head being read begins in this input; nil when it began in an earlier one.
        var headStart: Int?

        init(input: ByteBuffer) {
            self.input = input
            cursor = input.readerIndex
            end = input.writerIndex
            runStart = cursor
        }

        /// Passes on the bytes from ``runStart`` up to `index`, as a slice of the input.
        mutating func pass(upTo index: Int, _ context: ChannelHandlerContext) {
            if index > runStart, let slice = input.getSlice(at: runStart, length: index - runStart) {
                context.fireChannelRead(NIOAny(slice))
            }
            runStart = max(runStart, index)
        }
    }

    /// A whole, valid head was read (up to `run.cursor`): answers it here or passes it on; returns
    /// whether it answered it.
    private func completed(_ head: RequestHeadReader.Head, _ run: inout Run, _ context: ChannelHandlerContext) -> Bool {
        defer {
            run.headStart = nil
            let expectsBody = head.body != .none && head.body != .upgrade
            if let deadline = clock.headRead(at: now, expectsBody: expectsBody) { schedule(context, at: deadline) }
            if head.body == .upgrade { cancelTimer() }
        }
        if let answer = fastAnswer(head, context), let body = FastLane.data(answer.body) {
            // Answered here: the head goes no further.
            run.pass(upTo: run.headStart ?? run.runStart, context)
            run.runStart = run.cursor
            write(answer, body: body, context: context)
            return true
        }
        clock.passedOn()
        if head.closesConnection { closing = true }
        if head.rewritten {
            // `Upgrade: h2c` and the like: the head passes on without its `Upgrade` fields, so
            // that the decoder reads an HTTP/1.1 request and it is answered (RFC 9110 §7.8). A
            // `close` option among other tokens (`keep-alive, close`): with exactly
            // `Connection: close`, after which Hummingbird closes the connection (RFC 9112 §9.6).
            run.pass(upTo: run.headStart ?? run.runStart, context)
            context.fireChannelRead(NIOAny(context.channel.allocator.buffer(bytes: reader.passedHead)))
            run.runStart = run.cursor
        } else if run.headStart == nil {
            // It began in an earlier read: it passes on whole, from what the reader kept of it.
            context.fireChannelRead(NIOAny(context.channel.allocator.buffer(bytes: reader.head)))
            run.runStart = run.cursor
        }
        return false
    }

    // MARK: The fast lane

    /// The answer the fast lane has for the head just read, if it may answer it here.
    private func fastAnswer(_ read: RequestHeadReader.Head, _ context: ChannelHandlerContext) -> FastLane.Answer? {
        guard let fastLane, pipelineReady, !closing, clock.inFlight == 0, context.channel.isWritable,
            var request = FastLane.Request(head: reader.head, read)
        else { return nil }
        if request.readsViewer { request.viewer.peer = peer(context) }
        return fastLane.answer(request.target, request.viewer)
    }

    /// The largest body of a fast answer written in the head's buffer.
    static let joinedBody = 16 * 1024

    private func write(
        _ answer: FastLane.Answer, body: (data: IOData, handle: NIOFileHandle?), context: ChannelHandlerContext
    ) {
        guard let fastLane else { return }
        let second = Int(serverClock.wall.nanosecondsSinceEpoch / 1_000_000_000)
        if second != date.second { date = (second, FastLane.httpDate(second)) }
        // A small body goes in the head's buffer: one write, where two cost more than the copy.
        var joined: ByteBuffer?
        if body.handle == nil, case .byteBuffer(let bytes) = body.data, bytes.readableBytes <= Self.joinedBody {
            joined = bytes
        }
        var head = fastLane.head(
            answer, date: date.text, allocator: context.channel.allocator, reserving: joined?.readableBytes ?? 0)
        fastLane.answered()
        if var joined {
            head.writeBuffer(&joined)
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            return
        }
        context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
        guard let handle = body.handle else {
            if body.data.readableBytes > 0 { context.write(wrapOutboundOut(body.data), promise: nil) }
            return
        }
        // The file is closed once written (or once the write failed); until then the connection
        // is not idle, however long a slow client takes.
        let written = context.eventLoop.makePromise(of: Void.self)
        clock.sendingBegan()
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            clock.sendingEnded(at: now)
            reportIdle()
            try? handle.close()
        }
        context.write(wrapOutboundOut(body.data), promise: written)
    }

    // MARK: Refusing

    private func refuse(_ refusal: Refusal, context: ChannelHandlerContext, retryAfter: Int? = nil) {
        logger.debug("refused a request: \(refusal.status) \(refusal.message)")
        clock.refused()
        end(context, answering: Self.response(refusal, retryAfter: retryAfter, allocator: context.channel.allocator))
    }

    /// The answer to a refused request: the JSON error body, `Connection: close`, never stored
    /// (``CachePolicy/noStore``), and the CORS fields every public answer has
    /// (``HTTPSemanticsMiddleware/addPublicFields(to:)``).
    static func response(_ refusal: Refusal, retryAfter: Int? = nil, allocator: ByteBufferAllocator) -> ByteBuffer {
        let body =
            APIError(status: refusal.status, code: APIError.Code(refusal.code), refusal.message).jsonValue.description
            + "\n"
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentLength] = String(body.utf8.count)
        fields[.cacheControl] = CachePolicy.noStore
        HTTPSemanticsMiddleware<ServerRequestContext>.addPublicFields(to: &fields)
        if let retryAfter { fields[.retryAfter] = String(retryAfter) }
        fields[.connection] = "close"
        var text = "HTTP/1.1 \(refusal.status) \(refusal.reason)\r\n"
        for field in fields { text += "\(field.name.rawName): \(field.value)\r\n" }
        return allocator.buffer(string: text + "\r\n" + body)
    }

    /// Stops reading and ends the connection: the input is closed for the handlers behind, which
    /// finish the requests they have and close; the answer goes out then (see
    /// ``close(context:mode:promise:)``), after the earlier responses. It closes anyway in time.
    private func end(_ context: ChannelHandlerContext, answering response: ByteBuffer?) {
        ended = true
        clock.stopped()
        cancelTimer()
        pending = response
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        guard context.channel.isActive, pending != nil || response == nil else { return }
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = serverClock.wake(at: now + limits.headerTimeout, on: context.eventLoop) {
            // Through this handler's own close, so that the answer goes out first.
            bound.value.handler.close(context: bound.value.context, mode: .all, promise: nil)
        }
    }

    // MARK: Connections

    /// ``peerAddress``, read on first use.
    private func peer(_ context: ChannelHandlerContext) -> String? {
        if let known = peerAddress { return known }
        let address = context.channel.remoteAddress?.ipAddress
        peerAddress = .some(address)
        return address
    }

    private func becameActive(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let idle = clock.began(at: now)
        if let connections {
            // Closed, should it be the connection idle the longest when the server is at its cap.
            let channel = context.channel
            switch connections.admit(peer(context), close: { channel.close(promise: nil) }) {
            case .success(let id): admitted = id
            case .failure(let refusal):
                refuseConnection(refusal, connections, context)
                return
            }
        }
        arm(context, at: idle)
    }

    /// Answers 503 and closes at once: the connection is over a cap.
    private func refuseConnection(
        _ refusal: ConnectionLimiter.Refusal, _ connections: ConnectionLimiter, _ context: ChannelHandlerContext
    ) {
        ended = true
        let message =
            switch refusal {
            case .total: "the server has \(connections.total) connections open, its most"
            case .perPeer:
                "this address (an IPv6 address: its /64) has \(connections.perPeer) connections open, the most one address may have"
            }
        logger.debug("refused a connection: \(message)")
        let response = Self.response(
            Refusal(status: 503, reason: "Service Unavailable", code: .tooManyConnections, message: message),
            retryAfter: 1, allocator: context.channel.allocator)
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(response))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func releaseConnection() {
        guard let admitted else { return }
        self.admitted = nil
        connections?.release(admitted)
    }

    /// Tells ``connections`` when the connection becomes idle (nothing being read or answered,
    /// not upgraded) or busy, so that at the cap the one idle the longest can make room.
    private func reportIdle() {
        guard let admitted, let connections else { return }
        let idle =
            !ended && !reader.upgraded && !reader.readingHead && !reader.readingBody && clock.inFlight == 0
            && clock.sending == 0
        guard idle != reportedIdle else { return }
        reportedIdle = idle
        connections.setIdle(admitted, idle)
    }

    // MARK: Time

    /// Moves the timer to `deadline` if that is sooner.
    private func schedule(_ context: ChannelHandlerContext, at deadline: MediaTime) {
        if let timerDeadline, timerDeadline <= deadline { return }
        cancelTimer()
        arm(context, at: deadline)
    }

    /// One timer per connection, moved on when it fires rather than at every request: a head
    /// being read gets 408 after the header timeout, a body after the body timeout; a connection
    /// with nothing being read or answered closes after the idle timeout.
    private func arm(_ context: ChannelHandlerContext, at deadline: MediaTime) {
        guard timer == nil else { return }
        timerDeadline = deadline
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = serverClock.wake(at: deadline, on: context.eventLoop) {
            let (handler, context) = bound.value
            handler.timer = nil
            handler.timerDeadline = nil
            handler.timerFired(context)
        }
    }

    private func timerFired(_ context: ChannelHandlerContext) {
        guard !ended, !reader.upgraded else { return }
        switch clock.verdict(at: now, writable: context.channel.isWritable) {
        case .wait(let deadline): arm(context, at: deadline)
        case .timeOut(let refusal): refuse(refusal, context: context)
        // Nothing is being read or answered: there is nobody to answer.
        case .idle: end(context, answering: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }
}

/// A server child channel that puts a ``RequestGuard`` in front of another one's pipeline.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let limits: RequestGuard.Limits
    /// The server's clock, which the guard's deadlines are on.
    let clock: any ServerClock
    /// Answers for requests whose answer is in memory; nil answers none.
    var fastLane: FastLane? = nil
    /// The caps on open connections; nil for none.
    var connections: ConnectionLimiter? = nil

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                RequestGuard(
                    limits: limits, logger: logger, clock: clock, fastLane: fastLane, connections: connections),
                position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

@available(*, unavailable)
extension RequestGuard: Sendable {}
