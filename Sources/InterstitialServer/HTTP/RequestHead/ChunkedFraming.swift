/// Where a reader is in the chunked framing of one request body (RFC 9112 §7.1): a chunk-size
/// line, the CRLF after a chunk's data, or the trailer section. A value read one byte at a time
/// (``reading(_:limits:)``); the chunk data itself is not its business (the
/// ``RequestHeadReader`` passes it on by count).
///
/// It refuses what NIO's llhttp-based decoder refuses (a bare LF, a size that is not hexadecimal,
/// a malformed extension or trailer field) and a trailer field that would frame the body
/// (`Content-Length`, `Transfer-Encoding`), and holds no more than a chunk-size line's bytes
/// (``lineBytes``) and the trailers' limits.
struct ChunkedFraming: Hashable, Sendable {
    /// What comes after a byte of framing.
    enum Next: Hashable, Sendable {
        /// More framing, from this point.
        case framing(ChunkedFraming)
        /// That many bytes of chunk data (more than 0), then the CRLF after them (``afterData``).
        case data(Int)
        /// The body has ended: the next byte starts the next request.
        case end
    }

    /// Where a chunk-size line is.
    private struct ChunkLine: Hashable, Sendable {
        enum State: Hashable, Sendable {
            case size, extensionStart, extensionName, valueStart, token, quoted, escaped, afterQuoted, lineFeed
        }
        var state = State.size
        var size = 0
        var digits = 0
        var bytes = 0
    }

    /// Where the trailer section is.
    private struct Trailer: Hashable, Sendable {
        enum State: Hashable, Sendable { case lineStart, name, value, lineFeed, endLineFeed }
        var state = State.lineStart
        /// The current field name's bytes, lower-cased (only as many as a framing field's name).
        var name: [UInt8] = []
        var nameBytes = 0
        var bytes = 0
        var count = 0
    }

    private enum Part: Hashable, Sendable {
        case size(ChunkLine)
        /// After chunk data: `sawCR` once its CR came.
        case dataEnd(sawCR: Bool)
        case trailers(Trailer)
    }

    /// The longest chunk-size line (size and extensions).
    static let lineBytes = 4096

    private static let contentLength = Array("content-length".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)

    private var part: Part

    /// At the start of a chunked body: its first chunk-size line.
    init() {
        part = .size(ChunkLine())
    }

    private init(_ part: Part) {
        self.part = part
    }

    /// After a chunk's data: its CRLF.
    static let afterData = ChunkedFraming(.dataEnd(sawCR: false))

    /// What follows `byte` of framing, or why the request is refused; `limits` bound the trailers
    /// as they bound the header fields.
    func reading(_ byte: UInt8, limits: RequestHeadReader.Limits) -> Result<Next, RequestHeadReader.Refusal> {
        switch part {
        case .size(let line): Self.size(line, byte)
        case .dataEnd(let sawCR): Self.dataEnd(sawCR: sawCR, byte)
        case .trailers(let trailer): Self.trailers(trailer, byte, limits: limits)
        }
    }

    private static let malformed = RequestHeadReader.Refusal.badRequest(.badFraming, "the chunked body is malformed")

    private static func size(_ given: ChunkLine, _ byte: UInt8) -> Result<Next, RequestHeadReader.Refusal> {
        var line = given
        line.bytes += 1
        guard line.bytes <= lineBytes else { return .failure(malformed) }
        switch (line.state, byte) {
        case (.size, _) where HTTPBytes.hexValue(byte) != nil:
            guard line.digits < 15 else { return .failure(malformed) }
            line.size = line.size * 16 + HTTPBytes.hexValue(byte)!
            line.digits += 1
        case (.size, 0x0D), (.size, 0x3B):
            guard line.digits > 0 else { return .failure(malformed) }
            line.state = byte == 0x0D ? .lineFeed : .extensionStart
        case (.extensionStart, _) where HTTPBytes.isTokenByte(byte): line.state = .extensionName
        case (.extensionName, _) where HTTPBytes.isTokenByte(byte): break
        case (.extensionName, 0x3D): line.state = .valueStart
        case (.valueStart, 0x22): line.state = .quoted
        case (.valueStart, _) where HTTPBytes.isTokenByte(byte): line.state = .token
        case (.token, _) where HTTPBytes.isTokenByte(byte): break
        case (.quoted, 0x22): line.state = .afterQuoted
        case (.quoted, 0x5C): line.state = .escaped
        case (.quoted, _) where byte == 0x09 || byte == 0x20 || byte == 0x21 || (byte >= 0x23 && byte != 0x7F):
            break
        case (.escaped, _) where HTTPBytes.isFieldValueByte(byte): line.state = .quoted
        case (.extensionName, 0x3B), (.token, 0x3B), (.afterQuoted, 0x3B): line.state = .extensionStart
        case (.extensionName, 0x0D), (.token, 0x0D), (.afterQuoted, 0x0D): line.state = .lineFeed
        case (.lineFeed, 0x0A):
            return .success(line.size == 0 ? .framing(ChunkedFraming(.trailers(Trailer()))) : .data(line.size))
        default: return .failure(malformed)
        }
        return .success(.framing(ChunkedFraming(.size(line))))
    }

    private static func dataEnd(sawCR: Bool, _ byte: UInt8) -> Result<Next, RequestHeadReader.Refusal> {
        switch (sawCR, byte) {
        case (false, 0x0D): .success(.framing(ChunkedFraming(.dataEnd(sawCR: true))))
        case (true, 0x0A): .success(.framing(ChunkedFraming()))
        default: .failure(malformed)
        }
    }

    private static func trailers(
        _ given: Trailer, _ byte: UInt8, limits: RequestHeadReader.Limits
    ) -> Result<Next, RequestHeadReader.Refusal> {
        var trailer = given
        trailer.bytes += 1
        guard trailer.bytes <= limits.headerBytes else {
            return .failure(.headersTooLarge("the trailer fields are larger than \(limits.headerBytes) bytes"))
        }
        let badField = RequestHeadReader.Refusal.badRequest(
            .badHeader, "a trailer field is not name: value (a token, then visible characters) ended by CRLF")
        switch (trailer.state, byte) {
        case (.lineStart, 0x0D): trailer.state = .endLineFeed
        case (.lineStart, _) where HTTPBytes.isTokenByte(byte), (.name, _) where HTTPBytes.isTokenByte(byte):
            trailer.state = .name
            trailer.nameBytes += 1
            if trailer.nameBytes <= transferEncoding.count {
                trailer.name.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            }
        case (.name, 0x3A):
            if trailer.nameBytes == trailer.name.count,
                trailer.name == contentLength || trailer.name == transferEncoding
            {
                return .failure(.badRequest(.badFraming, "a trailer field frames the body"))
            }
            trailer.count += 1
            guard trailer.count <= limits.headerCount else {
                return .failure(.headersTooLarge("the request has more than \(limits.headerCount) trailer fields"))
            }
            trailer.state = .value
            trailer.name = []
            trailer.nameBytes = 0
        case (.value, 0x0D): trailer.state = .lineFeed
        case (.value, _) where HTTPBytes.isFieldValueByte(byte): break
        case (.lineFeed, 0x0A): trailer.state = .lineStart
        case (.endLineFeed, 0x0A): return .success(.end)
        default: return .failure(badField)
        }
        return .success(.framing(ChunkedFraming(.trailers(trailer))))
    }
}
