import HLSPlaylist
import Hummingbird

/// What the content side answers: bytes, a file or a stream, its type and caching.
struct ContentResponse: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        /// A playlist rendered once, kept with its entity tag (``RenderedPlaylistCache``).
        case rendered(RenderedPlaylistCache.Entry)
        case file(String)
        /// A body streamed from an upstream origin.
        case stream(ResponseBody)
    }

    var body: Body
    var contentType: String
    var cacheControl: String
    /// How long the same request gets these same bytes, when that is known (a kept rendered
    /// playlist): the fast lane's ``AnswerCache`` keeps the answer that long.
    var reuse: Reuse? = nil

    /// How long an answer stays the answer to its request: while the state has `version` and,
    /// when `until` is set, before then (a live window's next segment).
    struct Reuse: Hashable, Sendable {
        var version: Int
        var until: DateTime?
    }

    /// This answer, to be reused while the state has `version`, and before `until` when set.
    func reused(version: Int, until: DateTime?) -> ContentResponse {
        var copy = self
        copy.reuse = Reuse(version: version, until: until)
        return copy
    }

    /// A playlist, kept as ``CachePolicy`` says for live (with its target duration) or VOD.
    static func playlist(_ bytes: [UInt8], live: Bool, targetDuration: UInt64? = nil) -> ContentResponse {
        ContentResponse(
            body: .bytes(bytes), contentType: "application/vnd.apple.mpegurl",
            cacheControl: live ? CachePolicy.livePlaylist(targetDuration: targetDuration) : CachePolicy.vodPlaylist)
    }

    /// A rendered playlist with its entity tag, kept as ``CachePolicy`` says for live or VOD.
    static func playlist(
        _ entry: RenderedPlaylistCache.Entry, live: Bool, targetDuration: UInt64? = nil
    ) -> ContentResponse {
        ContentResponse(
            body: .rendered(entry), contentType: "application/vnd.apple.mpegurl",
            cacheControl: live ? CachePolicy.livePlaylist(targetDuration: targetDuration) : CachePolicy.vodPlaylist)
    }

    /// The bytes of a body held in memory; nil for a file or a stream.
    var bytes: [UInt8]? {
        switch body {
        case .bytes(let bytes): bytes
        case .rendered(let entry): Array(entry.body.readableBytesView)
        case .file, .stream: nil
        }
    }

    /// A JSON answer that is never stored (asset lists, documents made per request).
    static func json(_ text: String) -> ContentResponse {
        json(Array(text.utf8))
    }

    /// A JSON answer that is never stored, as its bytes.
    static func json(_ bytes: [UInt8]) -> ContentResponse {
        ContentResponse(body: .bytes(bytes), contentType: jsonType, cacheControl: CachePolicy.noStore)
    }

    /// The media type of every JSON answer.
    static let jsonType = "application/json"

    /// The media type for a file name's extension.
    static func contentType(of name: String) -> String {
        // The extension: what follows the last dot (no array of parts, no copy of the path).
        let utf8 = name.utf8
        let start = utf8.lastIndex(of: UInt8(ascii: ".")).map { utf8.index(after: $0) } ?? utf8.endIndex
        return switch String(decoding: utf8[start...], as: UTF8.self).lowercased() {
        case "m3u8": "application/vnd.apple.mpegurl"
        case "m4s": "video/iso.segment"
        case "mp4", "m4v": "video/mp4"
        case "m4a": "audio/mp4"
        case "ts": "video/mp2t"
        case "aac": "audio/aac"
        case "vtt", "webvtt": "text/vtt"
        case "json": jsonType
        case "svg": "image/svg+xml"
        case "js", "mjs": "text/javascript"
        case "html": "text/html; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
