import Foundation
import HTTPTypes
import NIOCore

/// Answers a plain GET whose answer is known at once (a rendered playlist, a kept media file, an
/// asset list filled from the server's own inventory) on the connection's event loop, without
/// Hummingbird's request path.
///
/// There is one function per answer: ``ContentLibrary/answer(_:query:userAgent:viewerIP:)`` says
/// whether it knows the answer now (``Pending/now(_:)``) or must find it (``Pending/later(_:)``,
/// with nothing done yet). The fast lane gives the first kind; the full path waits for the second
/// (and gives the first too, for requests the fast lane leaves to it). What a playlist is known by
/// is what changes it (``RenderedPlaylistCache/Key``: the content and path, the state's version, a
/// live window's last segment, the preload hints' length, the public base), so a change drops it.
///
/// The ``RequestGuard`` asks it once a request head is whole and valid (``Request``), on a
/// connection with no earlier request still being answered. The answer is the full path's `200`
/// byte for byte but for `Date`: the same fields (made by the same functions: ``Routes/http(_:)``,
/// ``FileResponder/whole(path:identity:name:contentType:cacheControl:)``,
/// ``HTTPSemanticsMiddleware/addPublicFields(to:)``) and the same body. Anything else, and any
/// request it has no answer for, takes the full path.
struct FastLane: Sendable {
    /// A `200` answer: its fields (with `Content-Length`, without `Date` and `Server`) and body.
    struct Answer: Sendable {
        /// What the body is: bytes in memory, or a whole file as it was found (`identity`).
        enum Body: Sendable {
            case bytes(ByteBuffer)
            case file(path: String, identity: FileBodyCache.Identity)
        }

        var fields: HTTPFields
        var body: Body
        /// The status line and ``fields`` as written (``written(allocator:)``), when made once for
        /// an answer given again (``AnswerCache``); nil: written from ``fields`` each time.
        var written: ByteBuffer? = nil

        /// The status line and fields of this answer as HTTP/1.1 writes them, without `Date` and
        /// `Server`.
        func written(allocator: ByteBufferAllocator) -> ByteBuffer {
            var buffer = allocator.buffer(capacity: 512)
            buffer.writeStaticString("HTTP/1.1 200 OK\r\n")
            for field in fields {
                buffer.writeString(field.name.rawName)
                buffer.writeStaticString(": ")
                buffer.writeString(field.value)
                buffer.writeStaticString("\r\n")
            }
            return buffer
        }
    }

    /// The `Server` field of every answer.
    let serverName: String
    /// Told of each answer written (the server counts them).
    var answered: @Sendable () -> Void = {}
    /// The answer for a request target (an absolute path and its query, without percent escapes),
    /// or nil for the full path; `session` is the request's `X-PLAYBACK-SESSION-ID` for a playlist
    /// (``isPlaylist(_:)``), nil otherwise.
    let answer: @Sendable (_ target: String, _ session: String?) -> Answer?

    /// What the fast lane may answer in a whole, valid request head: a plain `GET` over HTTP/1.1
    /// without a body, percent escapes, a fragment or fields that change the answer (`Range`,
    /// `If-*`, `Connection`, `Expect`, `TE`, `Upgrade`). A value of the head's bytes alone.
    struct Request: Hashable, Sendable {
        /// The request target: an absolute path and its query.
        var target: String
        /// The `X-PLAYBACK-SESSION-ID` of a playlist request (``FastLane/isPlaylist(_:)``).
        var session: String?

        /// A request for `target`, with the playlist session `session`.
        init(target: String, session: String? = nil) {
            self.target = target
            self.session = session
        }

        /// The request in `head` (its bytes, as ``RequestHeadReader/head`` holds them, and what the
        /// reader said of them), or nil when the fast lane may not answer it.
        init?(head: [UInt8], _ read: RequestHeadReader.Head) {
            guard !read.special, read.body == .none, head.starts(with: "GET /".utf8) else { return nil }
            let line = head[4..<(read.requestLineEnd - 2)]
            guard let space = line.firstIndex(of: 0x20),
                line[(space + 1)...].starts(with: "HTTP/1.1".utf8)
            else { return nil }
            let target = line[..<space]
            guard !target.contains(0x25), !target.contains(0x23) else { return nil }
            self.target = String(decoding: target, as: UTF8.self)
            session = FastLane.isPlaylist(target) ? FastLane.sessionID(in: head, fieldsStart: read.requestLineEnd) : nil
        }
    }

    /// Whether a request target names a playlist (its path ends in `.m3u8`): only then is the
    /// session header looked for.
    static func isPlaylist(_ target: ArraySlice<UInt8>) -> Bool {
        let path = target.prefix { $0 != 0x3F }
        return path.count > 5 && path.suffix(5).elementsEqual(".m3u8".utf8)
    }

    /// The value of the `X-PLAYBACK-SESSION-ID` field of a whole request head (`head`, its fields
    /// from `fieldsStart`), trimmed; nil without one. One pass over the fields' bytes.
    static func sessionID(in head: [UInt8], fieldsStart: Int) -> String? {
        let name = Self.sessionField
        var index = fieldsStart
        while index < head.count {
            var end = index
            while end < head.count, head[end] != 0x0A { end += 1 }
            // `x-playback-session-id:` (22 bytes) at the line's start, any case.
            if end - index > name.count, head[index + name.count] == 0x3A {
                var matches = true
                for offset in 0..<name.count where head[index + offset] | 0x20 != name[offset] {
                    matches = false
                    break
                }
                if matches {
                    var start = index + name.count + 1
                    var stop = end
                    while start < stop, head[start] == 0x20 || head[start] == 0x09 { start += 1 }
                    while stop > start, head[stop - 1] == 0x0D || head[stop - 1] == 0x20 || head[stop - 1] == 0x09 {
                        stop -= 1
                    }
                    return String(decoding: head[start..<stop], as: UTF8.self)
                }
            }
            index = end + 1
        }
        return nil
    }

    /// `x-playback-session-id`, lowercased (`-` is unchanged by `| 0x20`).
    private static let sessionField = Array("x-playback-session-id".utf8)

    /// The response head of `answer`, with `date` (an IMF-fixdate, ``httpDate(_:)``).
    func head(_ answer: Answer, date: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer: ByteBuffer
        if let written = answer.written {
            buffer = allocator.buffer(capacity: written.readableBytes + 80)
            buffer.writeImmutableBuffer(written)
        } else {
            buffer = answer.written(allocator: allocator)
        }
        buffer.writeStaticString("Date: ")
        buffer.writeString(date)
        buffer.writeStaticString("\r\nServer: ")
        buffer.writeString(serverName)
        buffer.writeStaticString("\r\n\r\n")
        return buffer
    }

    /// What to write for `body`: its bytes, or a region of its file, opened now, for the socket to
    /// send from the file system (`sendfile`), with the handle to close once written. Nil when the
    /// file cannot be opened or is no longer the one described (the full path answers then).
    static func data(_ body: Answer.Body) -> (data: IOData, handle: NIOFileHandle?)? {
        switch body {
        case .bytes(let buffer):
            return (.byteBuffer(buffer), nil)
        case .file(let path, let identity):
            guard let handle = try? NIOFileHandle(_deprecatedPath: path) else { return nil }
            let opened = try? handle.withUnsafeFileDescriptor { FileBodyCache.identity(descriptor: $0) }
            guard opened == identity else {
                try? handle.close()
                return nil
            }
            return (.fileRegion(FileRegion(fileHandle: handle, readerIndex: 0, endIndex: identity.size)), handle)
        }
    }

    /// `seconds` since 1970 as an HTTP date (IMF-fixdate, RFC 9110 §5.6.7), as in `Date` fields.
    static func httpDate(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let month = months[Int(parts.tm_mon)]
        let day = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(month) \(1900 + parts.tm_year)"
        return day + " \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
