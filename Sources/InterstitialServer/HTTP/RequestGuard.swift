import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// A channel handler in front of the HTTP/1 decoder that bounds what a client may send before the
/// server has a request: the request line (414), the header fields (431), their syntax (400) and
/// the time to send them (408), and the time a connection may stay idle.
///
/// It reads the bytes of each request head, checks them as they come, and passes the head to the
/// decoder only once it is whole and valid; bodies pass straight through (their framing, by
/// Content-Length or chunked, tells where the next head starts). Bytes pass on as slices of what
/// was read, not copies. A refused request gets a JSON error response (the server's usual
/// `{"error":{…}}`), after the responses to the earlier requests on its connection, and the
/// connection is closed. A connection with no request being read or answered for the idle timeout
/// is closed without an answer. A WebSocket upgrade request (`Upgrade: websocket`) ends the
/// guarding of its connection: the server either upgrades it or closes it.
///
/// A plain GET whose answer is in memory is answered here, by the ``FastLane``, once the
/// connection's HTTP/1 pipeline is in place (``ResponseTracker`` says so and counts the answers
/// behind) and no earlier request is still being answered, so answers keep their order.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// The limits it enforces.
    struct Limits: Sendable {
        var requestLineBytes: Int
        var headerBytes: Int
        var headerCount: Int
        var headerTimeout: TimeAmount
        var idleTimeout: TimeAmount

        init(_ limits: ServerLimits) {
            requestLineBytes = limits.requestLineBytes
            headerBytes = limits.headerBytes
            headerCount = limits.headerCount
            headerTimeout = .nanoseconds(limits.headerTimeout.nanoseconds)
            idleTimeout = .nanoseconds(limits.idleTimeout.nanoseconds)
        }
    }

    private enum Phase {
        case head
        case body(remaining: Int)
        case chunkSize(size: Int, digits: Int, lineBytes: Int, inExtension: Bool)
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(lineBytes: Int, totalBytes: Int)
        case passthrough
        case refused
    }

    private let limits: Limits
    private let logger: Logger
    private let fastLane: FastLane?
    private var phase = Phase.head
    /// The head read so far, and where its current line starts (0: in the request line).
    private var head: [UInt8] = []
    private var lineStart = 0
    private var requestLineEnd = 0
    private var fieldCount = 0
    private var contentLengths: [Substring] = []
    private var transferEncodings: [Substring] = []
    private var upgrade = false
    /// Whether the head has a field that the fast lane does not answer for.
    private var special = false
    /// When the head being read began.
    private var headStarted: NIODeadline?
    /// Requests passed on to the handlers behind whose answers have not ended.
    private var inFlight = 0
    /// Files the fast lane is still sending.
    private var sending = 0
    /// Whether the HTTP/1 pipeline behind is in place (the first request chose no upgrade).
    private var pipelineReady = false
    /// When the connection last began, or last finished a request or an answer.
    private var lastActivity = NIODeadline.uptimeNanoseconds(0)
    /// The connection's event loop, whose clock the timeouts follow.
    private var eventLoop: (any EventLoop)?
    private var now: NIODeadline { eventLoop?.now ?? .now() }
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    /// The `Date` field of fast answers, made once a second.
    private var date: (second: Int, text: String) = (0, "")
    /// The error response written when the pipeline closes (after earlier responses).
    private var pending: ByteBuffer?

    init(limits: Limits, logger: Logger, fastLane: FastLane? = nil) {
        self.limits = limits
        self.logger = logger
        self.fastLane = fastLane
    }

    // MARK: Events

    func handlerAdded(context: ChannelHandlerContext) {
        eventLoop = context.eventLoop
        if context.channel.isActive { becameActive(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
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
        inFlight = max(0, inFlight - 1)
        lastActivity = now
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let input = unwrapInboundIn(data)
        switch phase {
        case .passthrough:
            context.fireChannelRead(data)
            return
        case .refused:
            return
        default: break
        }
        var reader = Reader(input: input)
        var answered = false
        while reader.cursor < reader.end {
            switch phase {
            case .passthrough:
                reader.cursor = reader.end
            case .refused:
                reader.cursor = reader.end
                reader.runStart = reader.end
            case .body(let remaining):
                let count = min(remaining, reader.end - reader.cursor)
                reader.cursor += count
                phase = remaining == count ? .head : .body(remaining: remaining - count)
            case .chunkData(let remaining):
                let count = min(remaining, reader.end - reader.cursor)
                reader.cursor += count
                phase = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .head:
                if readHead(&reader, context: context) { answered = true }
            default:
                let byte = input.getInteger(at: reader.cursor, as: UInt8.self)!
                reader.cursor += 1
                if let refusal = readFraming(byte) {
                    reader.pass(upTo: reader.cursor, context)
                    refuse(refusal, context: context)
                }
            }
        }
        // A head still being read waits for its end; the bytes before it pass on.
        if case .head = phase, !head.isEmpty {
            reader.pass(upTo: reader.headStart ?? reader.runStart, context)
            guardHead(context)
        } else {
            reader.pass(upTo: reader.end, context)
        }
        if answered { context.flush() }
    }

    // MARK: Heads

    private struct Refusal {
        var status: Int
        var reason: String
        var code: String
        var message: String

        /// 431: the header (or trailer) fields are over a limit.
        static func headersTooLarge(_ message: String) -> Refusal {
            Refusal(
                status: 431, reason: "Request Header Fields Too Large", code: "headers-too-large", message: message)
        }
    }

    /// Where one read is: the next byte to read, and the bytes not yet passed on.
    private struct Reader {
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

        /// Drops the bytes from ``runStart`` up to ``cursor`` after passing on those before `index`.
        mutating func drop(from index: Int, _ context: ChannelHandlerContext) {
            pass(upTo: index, context)
            runStart = cursor
        }
    }

    private enum HeadStep {
        case more
        case complete
        case refuse(Refusal)
    }

    /// Reads the head's bytes up to the end of a line (or of the input); returns whether it
    /// answered a request itself.
    private func readHead(_ reader: inout Reader, context: ChannelHandlerContext) -> Bool {
        let input = reader.input
        if head.isEmpty {
            // Blank lines before a request line are ignored (RFC 9112 §2.2).
            let byte = input.getInteger(at: reader.cursor, as: UInt8.self)!
            if byte == 0x0D || byte == 0x0A {
                reader.pass(upTo: reader.cursor, context)
                reader.cursor += 1
                reader.runStart = reader.cursor
                return false
            }
            reader.headStart = reader.cursor
            headStarted = now
        }
        // The bytes up to and including the next LF, no more than the limits could take.
        let room = limits.requestLineBytes + limits.headerBytes + 2 - head.count
        let available = min(reader.end - reader.cursor, max(1, room))
        let newline = input.withUnsafeReadableBytes { bytes -> Int? in
            let from = reader.cursor - input.readerIndex
            return bytes[from..<(from + available)].firstIndex(of: 0x0A).map { $0 - from }
        }
        let count = newline.map { $0 + 1 } ?? available
        input.withUnsafeReadableBytes { bytes in
            let from = reader.cursor - input.readerIndex
            head.append(contentsOf: bytes[from..<(from + count)])
        }
        reader.cursor += count
        switch checkLine(complete: newline != nil) {
        case .more:
            return false
        case .refuse(let refusal):
            reader.pass(upTo: reader.headStart ?? reader.runStart, context)
            refuse(refusal, context: context)
            return false
        case .complete:
            defer {
                head.removeAll(keepingCapacity: true)
                headStarted = nil
                lastActivity = now
            }
            if let answer = fastAnswer(context), let body = FastLane.data(answer.body) {
                // Answered here: the head goes no further.
                reader.drop(from: reader.headStart ?? reader.runStart, context)
                reader.headStart = nil
                write(answer, body: body, context: context)
                return true
            }
            inFlight += 1
            if reader.headStart == nil {
                // It began in an earlier read: it passes on whole, from what was kept of it.
                reader.pass(upTo: reader.runStart, context)
                context.fireChannelRead(NIOAny(context.channel.allocator.buffer(bytes: head)))
                reader.runStart = reader.cursor
            }
            reader.headStart = nil
            return false
        }
    }

    /// Checks the line `head` ends with, or the part of it read so far.
    private func checkLine(complete: Bool) -> HeadStep {
        if lineStart == 0 {
            if head.count - (complete ? 1 : 0) > limits.requestLineBytes {
                return .refuse(
                    Refusal(
                        status: 414, reason: "URI Too Long", code: "request-line-too-long",
                        message: "the request line is longer than \(limits.requestLineBytes) bytes"))
            }
            guard complete else { return .more }
            if let refusal = checkRequestLine(head[..<(head.count - 1)]) { return .refuse(refusal) }
            lineStart = head.count
            requestLineEnd = head.count
            return .more
        }
        if head.count - requestLineEnd > limits.headerBytes {
            return .refuse(
                Refusal.headersTooLarge("the header fields are larger than \(limits.headerBytes) bytes"))
        }
        guard complete else { return .more }
        var line = head[lineStart..<(head.count - 1)]
        if line.last == 0x0D { line = line.dropLast() }
        lineStart = head.count
        if line.isEmpty {
            if let refusal = completeHead() { return .refuse(refusal) }
            return .complete
        }
        fieldCount += 1
        if fieldCount > limits.headerCount {
            return .refuse(
                Refusal.headersTooLarge("the request has more than \(limits.headerCount) header fields"))
        }
        if let refusal = checkField(line) { return .refuse(refusal) }
        return .more
    }

    private func checkRequestLine(_ bytes: ArraySlice<UInt8>) -> Refusal? {
        var line = bytes
        if line.last == 0x0D { line = line.dropLast() }
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        let valid =
            parts.count == 3 && !parts[0].isEmpty && parts[0].allSatisfy(Self.isTokenByte) && !parts[1].isEmpty
            && parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            && (parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8))
        guard valid else {
            return Refusal(
                status: 400, reason: "Bad Request", code: "bad-request-line",
                message: "the request line is not METHOD SP target SP HTTP/1.x in visible ASCII")
        }
        return nil
    }

    /// The fields (lowercase) after which the fast lane leaves a request to the full path.
    private static let specialFields: [[UInt8]] = [
        "connection", "range", "if-none-match", "if-range", "if-match", "if-modified-since", "if-unmodified-since",
        "expect", "te", "upgrade", "content-length", "transfer-encoding",
    ].map { Array($0.utf8) }

    private func checkField(_ line: ArraySlice<UInt8>) -> Refusal? {
        let bad = Refusal(
            status: 400, reason: "Bad Request", code: "bad-header",
            message: "a header field is not name: value (a token, then visible characters)")
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex,
            line[..<colon].allSatisfy(Self.isTokenByte),
            line[(colon + 1)...].allSatisfy({ $0 == 0x09 || $0 == 0x20 || ($0 > 0x20 && $0 != 0x7F) })
        else { return bad }
        let name = line[..<colon]
        guard let known = Self.specialFields.first(where: { Self.equalsLowercased(name, $0) }) else { return nil }
        special = true
        let value = Substring(String(decoding: line[(colon + 1)...], as: UTF8.self))
        switch String(decoding: known, as: UTF8.self) {
        case "content-length": contentLengths += value.split(separator: ",")
        case "transfer-encoding": transferEncodings += value.split(separator: ",")
        case "upgrade": upgrade = upgrade || value.lowercased().contains("websocket")
        default: break
        }
        return nil
    }

    /// Whether ASCII `name` equals the lowercase `lower`, ignoring case.
    private static func equalsLowercased(_ name: ArraySlice<UInt8>, _ lower: [UInt8]) -> Bool {
        guard name.count == lower.count else { return false }
        var index = 0
        for byte in name {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
            guard folded == lower[index] else { return false }
            index += 1
        }
        return true
    }

    /// The head is whole: decides how its body is framed and hands the head over.
    private func completeHead() -> Refusal? {
        let badFraming = Refusal(
            status: 400, reason: "Bad Request", code: "bad-framing",
            message: "the body's length is unclear (Content-Length and Transfer-Encoding disagree or are malformed)")
        let next: Phase
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty,
                transferEncodings.last?.trimmingCharacters(in: .whitespaces).lowercased() == "chunked"
            else { return badFraming }
            next = .chunkSize(size: 0, digits: 0, lineBytes: 0, inExtension: false)
        } else if !contentLengths.isEmpty {
            let values = Set(contentLengths.map { $0.trimmingCharacters(in: .whitespaces) })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.count <= 18,
                text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text)
            else { return badFraming }
            next = length > 0 ? .body(remaining: length) : .head
        } else {
            next = .head
        }
        phase = upgrade ? .passthrough : next
        if upgrade { cancelTimer() }
        lineStart = 0
        fieldCount = 0
        contentLengths = []
        transferEncodings = []
        upgrade = false
        return nil
    }

    // MARK: The fast lane

    /// The answer the fast lane has for the head just read, if it may answer it here.
    private func fastAnswer(_ context: ChannelHandlerContext) -> FastLane.Answer? {
        defer { special = false }
        guard let fastLane, pipelineReady, inFlight == 0, !special, case .head = phase,
            context.channel.isWritable,
            head.starts(with: "GET /".utf8)
        else { return nil }
        let line = head[4..<(requestLineEnd - 1)]
        guard let space = line.firstIndex(of: 0x20),
            line[(space + 1)...].starts(with: "HTTP/1.1".utf8)
        else { return nil }
        let target = line[..<space]
        guard !target.contains(0x25), !target.contains(0x23) else { return nil }
        return fastLane.answer(String(decoding: target, as: UTF8.self))
    }

    private func write(
        _ answer: FastLane.Answer, body: (data: IOData, handle: NIOFileHandle?), context: ChannelHandlerContext
    ) {
        guard let fastLane else { return }
        let second = Int(Date().timeIntervalSince1970)
        if second != date.second { date = (second, FastLane.httpDate(second)) }
        let head = fastLane.head(answer, date: date.text, allocator: context.channel.allocator)
        fastLane.answered()
        context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
        guard let handle = body.handle else {
            if body.data.readableBytes > 0 { context.write(wrapOutboundOut(body.data), promise: nil) }
            return
        }
        // The file is closed once written (or once the write failed); until then the connection
        // is not idle, however long a slow client takes.
        let written = context.eventLoop.makePromise(of: Void.self)
        sending += 1
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            sending -= 1
            lastActivity = now
            try? handle.close()
        }
        context.write(wrapOutboundOut(body.data), promise: written)
    }

    /// Reads one byte of chunked framing (sizes, the CRLF after data, trailers).
    private func readFraming(_ byte: UInt8) -> Refusal? {
        let bad = Refusal(
            status: 400, reason: "Bad Request", code: "bad-framing", message: "the chunked body is malformed")
        switch phase {
        case .chunkSize(let size, let digits, let lineBytes, let inExtension):
            guard lineBytes < 4096 else { return bad }
            if byte == 0x0A {
                guard digits > 0 else { return bad }
                phase = size == 0 ? .trailers(lineBytes: 0, totalBytes: 0) : .chunkData(remaining: size)
            } else if !inExtension, let digit = Self.hexValue(byte) {
                guard digits < 15 else { return bad }
                phase = .chunkSize(
                    size: size * 16 + digit, digits: digits + 1, lineBytes: lineBytes + 1, inExtension: false)
            } else if byte == 0x3B || inExtension || byte == 0x0D || byte == 0x20 || byte == 0x09 {
                phase = .chunkSize(
                    size: size, digits: digits, lineBytes: lineBytes + 1, inExtension: byte == 0x3B || inExtension)
            } else {
                return bad
            }
        case .chunkDataEnd:
            if byte == 0x0A {
                phase = .chunkSize(size: 0, digits: 0, lineBytes: 0, inExtension: false)
            } else if byte != 0x0D {
                return bad
            }
        case .trailers(let lineBytes, let totalBytes):
            guard totalBytes < limits.headerBytes else {
                return Refusal.headersTooLarge("the trailer fields are larger than \(limits.headerBytes) bytes")
            }
            if byte == 0x0A {
                phase = lineBytes == 0 ? .head : .trailers(lineBytes: 0, totalBytes: totalBytes + 1)
            } else {
                phase = .trailers(lineBytes: byte == 0x0D ? lineBytes : lineBytes + 1, totalBytes: totalBytes + 1)
            }
        default: break
        }
        return nil
    }

    // MARK: Refusing

    private func refuse(_ refusal: Refusal, context: ChannelHandlerContext) {
        logger.debug("refused a request: \(refusal.status) \(refusal.message)")
        let body = APIError(status: refusal.status, code: refusal.code, refusal.message).jsonValue.description + "\n"
        let text =
            "HTTP/1.1 \(refusal.status) \(refusal.reason)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n" + body
        end(context, answering: context.channel.allocator.buffer(string: text))
    }

    /// Stops reading and ends the connection: the input is closed for the handlers behind, which
    /// finish the requests they have and close; the answer goes out then (see
    /// ``close(context:mode:promise:)``), after the earlier responses. It closes anyway in time.
    private func end(_ context: ChannelHandlerContext, answering response: ByteBuffer?) {
        phase = .refused
        head = []
        headStarted = nil
        cancelTimer()
        pending = response
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        guard context.channel.isActive, pending != nil || response == nil else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.headerTimeout) {
            context.close(promise: nil)
        }
    }

    // MARK: Time

    private func becameActive(_ context: ChannelHandlerContext) {
        lastActivity = now
        arm(context, at: lastActivity + limits.idleTimeout)
    }

    /// A head is being read across reads: its header timeout applies, if sooner than the timer.
    private func guardHead(_ context: ChannelHandlerContext) {
        guard let headStarted else { return }
        let deadline = headStarted + limits.headerTimeout
        if let timerDeadline, timerDeadline <= deadline { return }
        cancelTimer()
        arm(context, at: deadline)
    }

    /// One timer per connection, moved on when it fires rather than at every request: a head
    /// being read gets 408 after the header timeout; a connection with nothing being read or
    /// answered closes after the idle timeout.
    private func arm(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        guard timer == nil else { return }
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timerDeadline = nil
            timerFired(context)
        }
    }

    private func timerFired(_ context: ChannelHandlerContext) {
        switch phase {
        case .passthrough, .refused: return
        default: break
        }
        let now = self.now
        if let headStarted {
            guard now >= headStarted + limits.headerTimeout else {
                arm(context, at: headStarted + limits.headerTimeout)
                return
            }
            refuse(
                Refusal(
                    status: 408, reason: "Request Timeout", code: "header-timeout",
                    message: "the request head did not arrive within the header timeout"),
                context: context)
            return
        }
        guard case .head = phase, inFlight == 0, sending == 0, context.channel.isWritable else {
            // A body is being read, or an answer written (or waiting for the client to read it): not idle.
            arm(context, at: now + limits.idleTimeout)
            return
        }
        guard now >= lastActivity + limits.idleTimeout else {
            arm(context, at: lastActivity + limits.idleTimeout)
            return
        }
        // Nothing is being read or answered: there is nobody to answer.
        end(context, answering: nil)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }
}

/// A server child channel that puts a ``RequestGuard`` in front of another one's pipeline.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let limits: RequestGuard.Limits
    /// Answers for requests whose answer is in memory; nil answers none.
    var fastLane: FastLane? = nil

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                RequestGuard(limits: limits, logger: logger, fastLane: fastLane), position: .first)
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
