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
    /// or nil for the full path; `viewer` is what the request says of its viewer for a playlist or
    /// an asset list (``readsViewer(_:)``), empty otherwise.
    let answer: @Sendable (_ target: String, _ viewer: RequestViewer) -> Answer?

    /// What the fast lane may answer in a whole, valid request head: a plain `GET` over HTTP/1.1
    /// without a body, percent escapes, a fragment or fields that change the answer (`Range`,
    /// `If-*`, `Connection`, `Expect`, `TE`, `Upgrade`). A value of the head's bytes alone.
    struct Request: Hashable, Sendable {
        /// The request target: an absolute path and its query.
        var target: String
        /// What the request says of its viewer, for a playlist or an asset list
        /// (``FastLane/readsViewer(_:)``; the connection's peer is the guard's to add); empty otherwise.
        var viewer: RequestViewer
        /// Whether ``viewer`` was read (the target is a playlist or an asset list).
        var readsViewer: Bool

        /// A request for `target`, by `viewer`.
        init(target: String, viewer: RequestViewer = RequestViewer()) {
            self.target = target
            self.viewer = viewer
            readsViewer = FastLane.readsViewer(ArraySlice(target.utf8))
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
            readsViewer = FastLane.readsViewer(target)
            viewer = readsViewer ? FastLane.viewer(in: head, fieldsStart: read.requestLineEnd) : RequestViewer()
        }
    }

    /// Whether the fast lane reads what a request for `target` says of its viewer: a playlist
    /// (``isPlaylist(_:)``) or an asset list, whose answers record it (``RequestEffects``).
    static func readsViewer(_ target: ArraySlice<UInt8>) -> Bool {
        let path = target.prefix { $0 != 0x3F }
        return isPlaylist(target) || path.suffix(16).elementsEqual("/asset-list.json".utf8)
    }

    /// Whether a request target names a playlist (its path ends in `.m3u8`).
    static func isPlaylist(_ target: ArraySlice<UInt8>) -> Bool {
        let path = target.prefix { $0 != 0x3F }
        return path.count > 5 && path.suffix(5).elementsEqual(".m3u8".utf8)
    }

    /// What a whole request head (`head`, its fields from `fieldsStart`) says of its viewer:
    /// `X-PLAYBACK-SESSION-ID` and `User-Agent` (trimmed; the first of each) and every
    /// `X-Forwarded-For`, names in any case. One pass over the fields' bytes.
    static func viewer(in head: [UInt8], fieldsStart: Int) -> RequestViewer {
        var viewer = RequestViewer()
        var index = fieldsStart
        while index < head.count {
            var end = index
            while end < head.count, head[end] != 0x0A { end += 1 }
            if let (field, valueStart) = Self.viewerField(in: head, line: index..<end) {
                var start = valueStart
                var stop = end
                while start < stop, head[start] == 0x20 || head[start] == 0x09 { start += 1 }
                while stop > start, head[stop - 1] == 0x0D || head[stop - 1] == 0x20 || head[stop - 1] == 0x09 {
                    stop -= 1
                }
                let value = String(decoding: head[start..<stop], as: UTF8.self)
                switch field {
                case 0: viewer.session = viewer.session ?? value
                case 1: viewer.userAgent = viewer.userAgent ?? value
                default: viewer.forwardedFor.append(value)
                }
            }
            index = end + 1
        }
        return viewer
    }

    /// Which of ``viewerFields`` the line `line` of `head` is (its index), and where its value
    /// starts; nil for another field.
    private static func viewerField(in head: [UInt8], line: Range<Int>) -> (Int, Int)? {
        fields: for (field, name) in viewerFields.enumerated() {
            guard line.count > name.count, head[line.lowerBound + name.count] == 0x3A else { continue }
            // `| 0x20` lowercases ASCII letters and leaves `-` as it is.
            for offset in 0..<name.count where head[line.lowerBound + offset] | 0x20 != name[offset] {
                continue fields
            }
            return (field, line.lowerBound + name.count + 1)
        }
        return nil
    }

    /// `x-playback-session-id`, `user-agent` and `x-forwarded-for`, lowercased.
    private static let viewerFields = ["x-playback-session-id", "user-agent", "x-forwarded-for"].map { Array($0.utf8) }

    /// The response head of `answer`, with `date` (an IMF-fixdate, ``httpDate(_:)``), in a buffer
    /// with room for `reserving` more bytes (a body written after it).
    func head(_ answer: Answer, date: String, allocator: ByteBufferAllocator, reserving: Int = 0) -> ByteBuffer {
        var buffer: ByteBuffer
        if let written = answer.written {
            buffer = allocator.buffer(capacity: written.readableBytes + 80 + reserving)
            buffer.writeImmutableBuffer(written)
        } else {
            buffer = answer.written(allocator: allocator)
            buffer.reserveCapacity(minimumWritableBytes: 80 + reserving)
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
