/// Reads the bytes a client sends on one HTTP/1.1 connection and decides, as they come, what they
/// are: blank lines before a request, the head of a request (held until it is whole and checked),
/// a body and its framing (passed on), or something to refuse.
///
/// A value with no I/O and no clock: bytes in, a ``Step`` out (the ``RequestGuard`` drives it on a
/// channel; the tests and the fuzzer drive it directly). It refuses at least everything NIO's
/// llhttp-based request decoder refuses, so that no request reaches the decoder only to be dropped
/// there without an answer: a method other than the known upper-case ones, a line not ended by
/// CRLF, a field that is not `token: visible text`, a `Content-Length` repeated, listed or not a
/// number, a `Transfer-Encoding` other than exactly `chunked`, both of them, and chunked framing
/// or trailer fields that are malformed. It holds at most the head limits' bytes.
struct RequestHeadReader {
    /// The bounds on a request head.
    struct Limits: Hashable, Sendable {
        /// The longest request line, without its CRLF; longer gets 414.
        var requestLineBytes: Int
        /// The most bytes of header fields (and, separately, of trailer fields); more gets 431.
        var headerBytes: Int
        /// The most header fields; more gets 431.
        var headerCount: Int

        /// The given bounds.
        init(requestLineBytes: Int, headerBytes: Int, headerCount: Int) {
            self.requestLineBytes = requestLineBytes
            self.headerBytes = headerBytes
            self.headerCount = headerCount
        }
    }

    /// How the body after a whole head is framed.
    enum Body: Hashable, Sendable {
        /// No body: the next bytes are the next request.
        case none
        /// `Content-Length` bytes (more than 0).
        case length(Int)
        /// Chunked.
        case chunked
        /// A WebSocket upgrade: whatever follows is no longer HTTP/1 requests.
        case upgrade
    }

    /// What a whole, valid head says.
    struct Head: Hashable, Sendable {
        /// How its body is framed.
        var body: Body
        /// Where its request line ends in ``RequestHeadReader/head``, after its CRLF.
        var requestLineEnd: Int
        /// Whether it has a field that changes an answer (`Range`, `If-*`, `Connection`, `Expect`,
        /// `TE`, `Upgrade`) or frames a body.
        var special: Bool
        /// Whether it asks for an upgrade to another protocol than WebSocket (`Upgrade: h2c`): the
        /// server ignores it (RFC 9110 §7.8), so the head passes on without its `Upgrade` fields
        /// (``RequestHeadReader/passedHead``) and is answered over HTTP/1.1.
        var ignoresUpgrade = false
        /// Whether the connection closes once the request is answered
        /// (``ConnectionOptions/closesAfterAnswer(_:http10:)``: its `Connection` field carries the
        /// `close` option, or it is an HTTP/1.0 request without `keep-alive`) and it is no WebSocket
        /// upgrade: the head passes on with exactly `Connection: close` in place of its `Connection`
        /// fields, or added before its end when it has none (``RequestHeadReader/passedHead``), the
        /// only form after which Hummingbird closes the connection once it has answered (RFC 9112
        /// §9.6, §9.3).
        var closesConnection = false

        /// Whether the head passes on rewritten (``RequestHeadReader/passedHead``), not as read.
        var rewritten: Bool { ignoresUpgrade || closesConnection }
    }

    /// What a prefix of the bytes given to ``read(_:)`` is.
    enum Step: Hashable, Sendable {
        /// That many bytes of blank lines before a request line, to drop.
        case blank(Int)
        /// That many bytes of a head not yet whole, held in ``RequestHeadReader/head``.
        case partial(Int)
        /// That many bytes end a valid head, held whole in ``RequestHeadReader/head`` until the next read.
        case head(Int, Head)
        /// That many bytes of a body, of its chunked framing or of an upgraded connection, to pass on.
        case body(Int)
        /// The request is refused; nothing more is read.
        case refuse(Refusal)
    }

    private enum Phase: Hashable {
        case head
        case body(remaining: Int)
        /// Chunked framing: a chunk-size line, the CRLF after chunk data, or the trailer section.
        case framing(ChunkedFraming)
        case chunkData(remaining: Int)
        case passthrough
        case refused(Refusal)
    }

    /// The methods it lets through: those llhttp knows, but `CONNECT` and `PRI`, whose forms the
    /// server does not serve.
    static let methods: [[UInt8]] = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "PURGE", "COPY", "LOCK", "MKCOL",
        "MOVE", "PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "BIND", "REBIND", "UNBIND", "ACL", "REPORT",
        "MKACTIVITY", "CHECKOUT", "MERGE", "M-SEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE", "MKCALENDAR",
        "LINK", "UNLINK", "SOURCE", "QUERY",
    ].map { Array($0.utf8) }

    /// The fields (lower case) after which the fast lane leaves a request to the full path.
    private static let specialFields: [[UInt8]] = [
        "connection", "range", "if-none-match", "if-range", "if-match", "if-modified-since", "if-unmodified-since",
        "expect", "te", "upgrade", "content-length", "transfer-encoding",
    ].map { Array($0.utf8) }

    private static let contentLength = Array("content-length".utf8)
    private static let connection = Array("connection".utf8)
    /// The field a head carrying the `close` option passes on with, in place of its `Connection` fields.
    private static let connectionClose = Array("Connection: close\r\n".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)

    /// The bounds it applies.
    let limits: Limits
    private var phase = Phase.head
    /// The head being read (or, after ``Step/head(_:_:)``, the head just read, until the next read).
    private(set) var head: [UInt8] = []
    private var headComplete = false
    private var lineStart = 0
    private var requestLineEnd = 0
    private var fieldCount = 0
    private var contentLength: Int?
    private var chunked = false
    private var transferEncoding = false
    private var upgrade = false
    private var special = false
    /// Where the `Upgrade` fields of the head naming no WebSocket are in ``head`` (each line with its CRLF).
    private var ignoredUpgrades: [Range<Int>] = []
    /// Where the `Connection` fields of the head are in ``head``: each line with its CRLF, and its value.
    private var connectionLines: [(line: Range<Int>, value: Range<Int>)] = []
    /// Whether the head being read is an HTTP/1.0 request's (its request line read).
    private var http10 = false
    /// The lines ``passedHead`` leaves out of the head just read, in order, and the one it puts
    /// `Connection: close` in place of.
    private var rewrite: (dropped: [Range<Int>], closeAt: Range<Int>?) = ([], nil)

    /// A reader at the start of a connection.
    init(limits: Limits) {
        self.limits = limits
    }

    /// The head just read (``Step/head(_:_:)``) as it passes on: without its `Upgrade` fields when
    /// it ``Head/ignoresUpgrade``, with one `Connection: close` in place of its `Connection` fields
    /// (or before its end, when it has none) when it ``Head/closesConnection``; else the head
    /// itself, byte for byte.
    var passedHead: [UInt8] {
        guard headComplete, !rewrite.dropped.isEmpty else { return head }
        var kept: [UInt8] = []
        kept.reserveCapacity(head.count + Self.connectionClose.count)
        var start = 0
        for range in rewrite.dropped {
            kept += head[start..<range.lowerBound]
            if range == rewrite.closeAt { kept += Self.connectionClose }
            start = range.upperBound
        }
        return kept + head[start...]
    }

    /// Whether a head has begun and is not yet whole.
    var readingHead: Bool { !headComplete && !head.isEmpty }

    /// Whether a body (or its framing, or its trailers) is being read.
    var readingBody: Bool {
        switch phase {
        case .body, .framing, .chunkData: true
        default: false
        }
    }

    /// Whether the connection was upgraded: everything from now on is passed on unread.
    var upgraded: Bool { phase == .passthrough }

    /// The refusal, once refused.
    var refusal: Refusal? {
        if case .refused(let refusal) = phase { return refusal }
        return nil
    }

    /// Reads a prefix of `bytes`: at least one byte unless `bytes` is empty or the request is refused.
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> Step {
        if headComplete {
            head.removeAll(keepingCapacity: head.capacity <= 4096)
            headComplete = false
            rewrite = ([], nil)
        }
        guard !bytes.isEmpty else { return .body(0) }
        switch phase {
        case .refused(let refusal):
            return .refuse(refusal)
        case .passthrough:
            return .body(bytes.count)
        case .body(let remaining):
            let count = min(remaining, bytes.count)
            phase = remaining == count ? .head : .body(remaining: remaining - count)
            return .body(count)
        case .chunkData(let remaining):
            let count = min(remaining, bytes.count)
            phase = remaining == count ? .framing(.afterData) : .chunkData(remaining: remaining - count)
            return .body(count)
        case .head:
            return readHead(bytes)
        case .framing:
            return readFraming(bytes)
        }
    }

    /// Reads a prefix of `bytes` (see ``read(_:)-(UnsafeRawBufferPointer)``).
    mutating func read(_ bytes: ArraySlice<UInt8>) -> Step {
        bytes.withUnsafeBytes { read($0) }
    }

    // MARK: Heads

    private mutating func readHead(_ bytes: UnsafeRawBufferPointer) -> Step {
        if head.isEmpty {
            // Blank lines before a request line are ignored (RFC 9112 §2.2).
            var count = 0
            while count < bytes.count, bytes[count] == 0x0D || bytes[count] == 0x0A { count += 1 }
            if count > 0 { return .blank(count) }
        }
        // The bytes up to and including the next LF, no more than the limits could take.
        let room = max(1, limits.requestLineBytes + limits.headerBytes + 2 - head.count)
        let available = min(bytes.count, room)
        let newline = bytes[..<available].firstIndex(of: 0x0A)
        let count = newline.map { $0 + 1 } ?? available
        head.append(contentsOf: bytes[..<count])
        switch checkLine(complete: newline != nil) {
        case .more: return .partial(count)
        case .whole(let head): return .head(count, head)
        case .refuse(let refusal): return refuse(refusal)
        }
    }

    private enum LineResult {
        case more
        case whole(Head)
        case refuse(Refusal)
    }

    private mutating func refuse(_ refusal: Refusal) -> Step {
        phase = .refused(refusal)
        head = []
        headComplete = false
        return .refuse(refusal)
    }

    /// Checks the line `head` ends with, or the part of it read so far.
    private mutating func checkLine(complete: Bool) -> LineResult {
        if requestLineEnd == 0 {
            // Its length without the CRLF (a CR at the end of a part may be the CRLF's).
            let length = head.count - (complete ? 2 : 1)
            if length > limits.requestLineBytes {
                return .refuse(
                    Refusal(
                        status: 414, reason: "URI Too Long", code: .requestLineTooLong,
                        message: "the request line is longer than \(limits.requestLineBytes) bytes"))
            }
            guard complete else { return .more }
            if let refusal = lineEnding() ?? checkRequestLine(head[..<(head.count - 2)]) { return .refuse(refusal) }
            // A valid request line ends with its version, HTTP/1.1 or HTTP/1.0.
            http10 = head[(head.count - 5)..<(head.count - 2)].elementsEqual("1.0".utf8)
            lineStart = head.count
            requestLineEnd = head.count
            return .more
        }
        if head.count - requestLineEnd > limits.headerBytes {
            return .refuse(.headersTooLarge("the header fields are larger than \(limits.headerBytes) bytes"))
        }
        guard complete else { return .more }
        if let refusal = lineEnding() { return .refuse(refusal) }
        let line = head[lineStart..<(head.count - 2)]
        lineStart = head.count
        if line.isEmpty {
            let ignoresUpgrade = !upgrade && !ignoredUpgrades.isEmpty
            let closesConnection =
                !upgrade && ConnectionOptions.closesAfterAnswer(connectionLines.map { head[$0.value] }, http10: http10)
            if ignoresUpgrade || closesConnection {
                // Where `Connection: close` goes: in place of the first Connection line, else (an
                // HTTP/1.0 request without one) before the blank line that ends the head.
                let end = head.count - 2
                let closeAt = closesConnection ? connectionLines.first?.line ?? end..<end : nil
                // The lines left out (and the empty range written into), in the order they are in the head.
                let dropped =
                    (ignoresUpgrade ? ignoredUpgrades : []) + (closesConnection ? connectionLines.map(\.line) : [])
                    + (closesConnection && connectionLines.isEmpty ? [end..<end] : [])
                rewrite = (dropped.sorted { $0.lowerBound < $1.lowerBound }, closeAt)
            }
            if let refusal = completeHead() { return .refuse(refusal) }
            let whole = Head(
                body: bodyAfterHead, requestLineEnd: requestLineEnd, special: special, ignoresUpgrade: ignoresUpgrade,
                closesConnection: closesConnection)
            requestLineEnd = 0
            special = false
            return .whole(whole)
        }
        fieldCount += 1
        if fieldCount > limits.headerCount {
            return .refuse(.headersTooLarge("the request has more than \(limits.headerCount) header fields"))
        }
        if let refusal = checkField(line) { return .refuse(refusal) }
        return .more
    }

    private var bodyAfterHead = Body.none

    /// A line must end with CRLF: llhttp refuses a bare LF.
    private func lineEnding() -> Refusal? {
        guard head.count >= lineStart + 2, head[head.count - 2] == 0x0D else {
            return .badRequest(.badLineEnding, "a line of the request head does not end with CRLF")
        }
        return nil
    }

    private func checkRequestLine(_ line: ArraySlice<UInt8>) -> Refusal? {
        // METHOD SP target SP version, found in place (splitting into an array was 2 % of a kept
        // playlist's fast answer).
        let firstSpace = line.firstIndex(of: 0x20) ?? line.endIndex
        guard Self.methods.contains(where: { line[..<firstSpace].elementsEqual($0) }) else {
            let method = String(decoding: line.prefix(while: { $0 != 0x20 }).prefix(32), as: UTF8.self)
            return .badRequest(
                .badRequestLine,
                "the method \"\(method.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : "?" }.joined())\" is not one the server knows (upper case)"
            )
        }
        let secondSpace = firstSpace < line.endIndex ? line[(firstSpace + 1)...].firstIndex(of: 0x20) : nil
        guard let secondSpace, case let version = line[(secondSpace + 1)...],
            Self.isTarget(line[(firstSpace + 1)..<secondSpace], method: line[..<firstSpace]),
            version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8)
        else {
            return .badRequest(
                .badRequestLine,
                "the request line is not METHOD SP target SP HTTP/1.x, the target a path or an absolute http(s) URL in visible ASCII"
            )
        }
        return nil
    }

    /// Whether `target` is an origin-form (`/…`), absolute-form (`http://host/…`) or, for
    /// `OPTIONS`, asterisk-form (`*`) request target, in visible ASCII.
    static func isTarget(_ target: ArraySlice<UInt8>, method: ArraySlice<UInt8>) -> Bool {
        guard let first = target.first, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        if first == 0x2F { return true }
        if target.elementsEqual([0x2A]) { return method.elementsEqual("OPTIONS".utf8) }
        // Absolute form: http:// or https://, an authority, then a path or query.
        let lower = target.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        let schemeLength: Int
        if lower.starts(with: "http://".utf8) {
            schemeLength = 7
        } else if lower.starts(with: "https://".utf8) {
            schemeLength = 8
        } else {
            return false
        }
        let rest = target.dropFirst(schemeLength)
        let authority = rest.prefix(while: { $0 != 0x2F && $0 != 0x3F })
        return !authority.isEmpty && authority.allSatisfy(isAuthorityByte)
            && authority.count(where: { $0 == 0x40 }) <= 1
    }

    private static func isAuthorityByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x2D, 0x2E, 0x5F, 0x7E, 0x3A, 0x40, 0x5B, 0x5D: true  // - . _ ~ : @ [ ]
        default: false
        }
    }

    private mutating func checkField(_ line: ArraySlice<UInt8>) -> Refusal? {
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex,
            line[..<colon].allSatisfy(HTTPBytes.isTokenByte),
            line[(colon + 1)...].allSatisfy(HTTPBytes.isFieldValueByte)
        else {
            return .badRequest(.badHeader, "a header field is not name: value (a token, then visible characters)")
        }
        let name = line[..<colon]
        guard let known = Self.specialFields.first(where: { HTTPBytes.equalsLowercased(name, $0) }) else { return nil }
        special = true
        let value = HTTPBytes.trimmed(line[(colon + 1)...])
        if known == Self.contentLength {
            guard contentLength == nil else {
                return .badRequest(.badFraming, "the request has more than one Content-Length")
            }
            guard !value.isEmpty, value.count <= 18, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return .badRequest(.badFraming, "the Content-Length is not a number of at most 18 digits")
            }
            contentLength = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        } else if known == Self.transferEncoding {
            guard !transferEncoding, HTTPBytes.equalsLowercased(value, Array("chunked".utf8)) else {
                return .badRequest(
                    .badFraming, "the Transfer-Encoding is not exactly chunked (the only coding the server reads)")
            }
            transferEncoding = true
        } else if known == Self.connection {
            connectionLines.append((line.startIndex..<(line.endIndex + 2), value.startIndex..<value.endIndex))
        } else if known == Array("upgrade".utf8) {
            if HTTPBytes.containsLowercased(value, Array("websocket".utf8)) {
                upgrade = true
            } else {
                ignoredUpgrades.append(line.startIndex..<(line.endIndex + 2))
            }
        }
        return nil
    }

    /// The head is whole: decides how its body is framed.
    private mutating func completeHead() -> Refusal? {
        if transferEncoding, contentLength != nil {
            return .badRequest(.badFraming, "the request has both Content-Length and Transfer-Encoding")
        }
        let body: Body =
            if upgrade {
                .upgrade
            } else if transferEncoding {
                .chunked
            } else if let contentLength, contentLength > 0 {
                .length(contentLength)
            } else {
                .none
            }
        switch body {
        case .none: phase = .head
        case .length(let length): phase = .body(remaining: length)
        case .chunked: phase = .framing(ChunkedFraming())
        case .upgrade: phase = .passthrough
        }
        bodyAfterHead = body
        headComplete = true
        lineStart = 0
        fieldCount = 0
        contentLength = nil
        transferEncoding = false
        upgrade = false
        ignoredUpgrades = []
        connectionLines = []
        return nil
    }

    // MARK: Chunked framing

    /// Reads chunked framing (sizes, the CRLF after data, trailers) up to its next part or a bad byte.
    private mutating func readFraming(_ bytes: UnsafeRawBufferPointer) -> Step {
        var count = 0
        while count < bytes.count {
            guard case .framing(let framing) = phase else { return .body(count) }
            switch framing.reading(bytes[count], limits: limits) {
            case .success(.framing(let next)): phase = .framing(next)
            case .success(.data(let size)): phase = .chunkData(remaining: size)
            case .success(.end): phase = .head
            case .failure(let refusal): return count > 0 ? .body(count) : refuse(refusal)
            }
            count += 1
        }
        return .body(count)
    }
}
