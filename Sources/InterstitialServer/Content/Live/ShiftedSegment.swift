import HLSPlaylist

import enum MediaTiming.DecodeTimeShift

/// A looped channel's media segment with its decode times moved on by whole loops (`shift`, ticks
/// of its timescale, as ``LiveLoop`` writes it), so timestamps run on across loops.
enum ShiftedSegment {
    /// The segment `file` shifted by `shift` ticks, its bytes read from `bodies` (read once, not
    /// per request), so a request costs one copy of at most ``FileBodyCache/fileLimit`` bytes and
    /// a walk over the boxes' headers; `name` is the path the errors quote.
    ///
    /// - Throws: 400 `bad-shift` for a shift that is not a whole number of ticks, a segment too
    ///   large, or one that is not a fragmented MP4 media segment; 404 for a missing file; 503 when
    ///   it cannot be read now.
    static func response(
        _ file: String, by shift: String, name: String, bodies: FileBodyCache
    ) throws(APIError) -> ContentResponse {
        guard shift.utf8.count <= 19, shift.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let ticks = UInt64(shift)
        else {
            throw APIError.badRequest(code: .badShift, path: "shift", "must be a whole number of ticks")
        }
        guard let identity = FileBodyCache.identity(of: file) else { throw APIError.notFound(name) }
        guard identity.size <= bodies.fileLimit else {
            throw APIError.badRequest(
                code: .badShift, path: "shift",
                "\(name) has \(identity.size) bytes: only segments up to \(bodies.fileLimit) bytes can be shifted")
        }
        guard let kept = bodies.body(of: file, identity: identity) else {
            throw APIError(status: 503, code: .segmentRead, "\(name) cannot be read now")
        }
        var bytes = Array(kept.readableBytesView)
        do {
            try DecodeTimeShift.shift(&bytes, by: ticks)
            return ContentResponse(
                body: .bytes(bytes), contentType: ContentResponse.contentType(of: file), cacheControl: CachePolicy.media
            )
        } catch {
            throw APIError.badRequest(
                code: .badShift, path: "shift",
                "\(name) is not a fragmented MP4 media segment whose times can move: \(error.message)")
        }
    }
}
