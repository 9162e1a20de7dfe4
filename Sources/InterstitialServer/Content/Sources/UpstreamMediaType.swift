/// What an upstream content proxies besides its playlists: media files only, by the extension of
/// the path, each served with the server's own `Content-Type` (never the upstream's).
///
/// Anything else under an upstream entry's directory (`.html`, `.svg`, `.js`, `.json`, no extension)
/// is a 404, so nothing an upstream serves can run as a page of the server's origin, where the
/// console keeps the admin token (issue 42, item 6). Proxied answers also carry
/// ``securityFields`` (`nosniff`, `Content-Security-Policy: sandbox`).
enum UpstreamMediaType {
    /// The media types of the extensions proxied: segments (MPEG-TS, fMP4/CMAF, packed audio),
    /// initialization sections, keys and WebVTT.
    static let types: [String: String] = [
        "ts": "video/mp2t", "m4s": "video/iso.segment", "mp4": "video/mp4", "m4v": "video/mp4",
        "m4a": "audio/mp4", "cmfv": "video/mp4", "cmfa": "audio/mp4", "cmft": "application/mp4",
        "aac": "audio/aac", "ac3": "audio/ac3", "ec3": "audio/eac3", "mp3": "audio/mpeg",
        "vtt": "text/vtt", "webvtt": "text/vtt", "key": "application/octet-stream",
    ]

    /// The `Content-Type` the server answers a proxied file at `path` with; nil when the path is not
    /// a media file the server proxies.
    static func contentType(of path: String) -> String? {
        let utf8 = path.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let name = String(decoding: utf8[utf8.index(after: dot)...], as: UTF8.self)
        guard !name.contains("/") else { return nil }
        return types[name.lowercased()]
    }

    /// The `Content-Type` of a proxied file at `path` (named `name` in errors).
    ///
    /// - Throws: 404 (`not-found`) when `path` is not a media file the server proxies; the
    ///   upstream is then not asked.
    static func proxied(_ path: String, name: String) throws(APIError) -> String {
        guard let type = contentType(of: path) else {
            throw APIError(
                status: 404, code: .notFound,
                "\(name) is not proxied: only playlists and media files (segments, init sections, keys, WebVTT) are served from an upstream"
            )
        }
        return type
    }

    /// The fields of every proxied answer: the browser must not guess another type, and the body
    /// runs in a sandbox with a unique origin if it is ever shown as a page.
    static let securityFields: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "sandbox"),
    ]
}
