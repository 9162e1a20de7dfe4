import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// A channel handler in front of the HTTP/1 decoder that bounds what a client may send before the
/// server has a request: the request line (414), the header fields (431), their syntax (400) and
/// the time to send them (408), and the time a new connection may wait before it sends anything.
///
/// It reads the bytes of each request head, checks them as they come, and passes the head to the
/// decoder only once it is whole and valid; bodies pass straight through (their framing, by
/// Content-Length or chunked, tells where the next head starts). A refused request gets a JSON
/// error response (the server's usual `{"error":{…}}`), after the responses to the earlier requests
/// on its connection, and the connection is closed. A new connection that sends nothing within the
/// idle timeout is closed without an answer (later, Hummingbird's idle handler watches it). A WebSocket upgrade request (`Upgrade: websocket`)
/// ends the guarding of its connection: the server either upgrades it or closes it.
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
    private var phase = Phase.head
    /// The head read so far, and where its current line starts.
    private var head: [UInt8] = []
    private var lineStart = 0
    private var fieldBytes = 0
    private var fieldCount = 0
    private var contentLengths: [Substring] = []
    private var transferEncodings: [Substring] = []
    private var upgrade = false
    /// Heads passed on to the decoder.
    private var requests = 0
    private var timer: Scheduled<Void>?
    /// The error response written when the pipeline closes (after earlier responses).
    private var pending: ByteBuffer?

    init(limits: Limits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    // MARK: Events

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armTimer(context, after: limits.idleTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        armTimer(context, after: limits.idleTimeout)
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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        switch phase {
        case .passthrough:
            context.fireChannelRead(data)
            return
        case .refused:
            return
        default: break
        }
        var output = context.channel.allocator.buffer(capacity: input.readableBytes)
        while input.readableBytes > 0 {
            switch phase {
            case .passthrough:
                output.writeBuffer(&input)
            case .refused:
                input.moveReaderIndex(to: input.writerIndex)
            case .body(let remaining):
                var slice = input.readSlice(length: min(remaining, input.readableBytes))!
                phase = remaining == slice.readableBytes ? .head : .body(remaining: remaining - slice.readableBytes)
                output.writeBuffer(&slice)
            case .chunkData(let remaining):
                var slice = input.readSlice(length: min(remaining, input.readableBytes))!
                phase =
                    remaining == slice.readableBytes
                    ? .chunkDataEnd : .chunkData(remaining: remaining - slice.readableBytes)
                output.writeBuffer(&slice)
            case .head:
                switch readHead(input.readInteger(as: UInt8.self)!, context: context) {
                case .more: break
                case .complete(let bytes): output.writeBytes(bytes)
                case .refuse(let refusal):
                    flush(&output, context: context)
                    refuse(refusal, context: context)
                }
            default:
                let byte = input.readInteger(as: UInt8.self)!
                output.writeInteger(byte)
                if let refusal = readFraming(byte) {
                    flush(&output, context: context)
                    refuse(refusal, context: context)
                }
            }
        }
        flush(&output, context: context)
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

    private enum HeadStep {
        case more
        case complete([UInt8])
        case refuse(Refusal)
    }

    /// Reads one byte of a head: more is needed, or the head is whole and valid, or refused.
    private func readHead(_ byte: UInt8, context: ChannelHandlerContext) -> HeadStep {
        if head.isEmpty {
            // Blank lines before a request line are ignored (RFC 9112 §2.2).
            if byte == 0x0D || byte == 0x0A { return .more }
            // The head has begun: it has the header timeout (a new connection had the idle timeout).
            cancelTimer()
            armTimer(context, after: limits.headerTimeout)
        }
        head.append(byte)
        if lineStart == 0 {
            if byte == 0x0A {
                if let refusal = checkRequestLine(head[..<(head.count - 1)]) { return .refuse(refusal) }
                lineStart = head.count
            } else if head.count > limits.requestLineBytes {
                return .refuse(
                    Refusal(
                        status: 414, reason: "URI Too Long", code: "request-line-too-long",
                        message: "the request line is longer than \(limits.requestLineBytes) bytes"))
            }
            return .more
        }
        fieldBytes += 1
        if fieldBytes > limits.headerBytes {
            return .refuse(
                Refusal.headersTooLarge("the header fields are larger than \(limits.headerBytes) bytes"))
        }
        guard byte == 0x0A else { return .more }
        var line = head[lineStart..<(head.count - 1)]
        if line.last == 0x0D { line = line.dropLast() }
        lineStart = head.count
        if line.isEmpty {
            if let refusal = completeHead() { return .refuse(refusal) }
            defer { head = [] }
            return .complete(head)
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

    private func checkField(_ line: ArraySlice<UInt8>) -> Refusal? {
        let bad = Refusal(
            status: 400, reason: "Bad Request", code: "bad-header",
            message: "a header field is not name: value (a token, then visible characters)")
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex,
            line[..<colon].allSatisfy(Self.isTokenByte),
            line[(colon + 1)...].allSatisfy({ $0 == 0x09 || $0 == 0x20 || ($0 > 0x20 && $0 != 0x7F) })
        else { return bad }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = Substring(String(decoding: line[(colon + 1)...], as: UTF8.self))
        switch name {
        case "content-length": contentLengths += value.split(separator: ",")
        case "transfer-encoding": transferEncodings += value.split(separator: ",")
        case "upgrade": upgrade = upgrade || value.lowercased().contains("websocket")
        default: break
        }
        return nil
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
        requests += 1
        cancelTimer()
        lineStart = 0
        fieldBytes = 0
        fieldCount = 0
        contentLengths = []
        transferEncodings = []
        upgrade = false
        return nil
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

    private func flush(_ output: inout ByteBuffer, context: ChannelHandlerContext) {
        guard output.readableBytes > 0 else { return }
        context.fireChannelRead(wrapInboundOut(output))
        output = context.channel.allocator.buffer(capacity: 0)
    }

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
        cancelTimer()
        pending = response
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        guard context.channel.isActive, pending != nil || response == nil else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.headerTimeout) {
            context.close(promise: nil)
        }
    }

    /// Arms the timer of a connection waiting for its first request (the idle timeout) or of a head
    /// being read (the header timeout).
    private func armTimer(_ context: ChannelHandlerContext, after delay: TimeAmount) {
        guard timer == nil else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            timer = nil
            guard case .head = phase, requests == 0 || !head.isEmpty else { return }
            guard !head.isEmpty else {
                // Nothing was sent: there is nobody to answer.
                end(context, answering: nil)
                return
            }
            refuse(
                Refusal(
                    status: 408, reason: "Request Timeout", code: "header-timeout",
                    message: "the request head did not arrive within the header timeout"),
                context: context)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
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

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                RequestGuard(limits: limits, logger: logger), position: .first)
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
