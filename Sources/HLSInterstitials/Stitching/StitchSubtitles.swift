import HLSPlaylist

/// What a subtitle playlist of the stitched form plays while an ad plays (profile R28): no
/// subtitles, as one empty WebVTT segment for each segment of the ad's rendition in the variant the
/// subtitles go with, so the subtitle playlist has the video's segment count, durations and
/// discontinuities, and the subtitles after a break stay in time.
///
/// The choice: an empty WebVTT document, not EXT-X-GAP. RFC 8216bis §3.1.4 says a WebVTT segment
/// "MAY contain no cues; this indicates that no subtitles are to be displayed during that period",
/// which is what an ad is. EXT-X-GAP (§4.4.4.7) says the segment "does not contain media data" and
/// §6.3.3 has the client look for "another Variant Stream of the same Rendition which does not have
/// the same gap": it marks media that is missing, it needs protocol version 8, and the players the
/// stitched form is for (older hls.js, TV and set-top players) are the least likely to implement it.
///
/// The segments go through ``VODStitcher`` and ``LiveStitcher`` as any ad, so a subtitle playlist
/// is stitched by the same rule (R28, `LiveSplice`) as its video and audio: the same discontinuities,
/// the same splice points when its segments are as long as the video's.
public enum StitchSubtitles {
    /// The empty WebVTT document each such segment is: the header, an `X-TIMESTAMP-MAP` that maps cue
    /// time 0 to media time 0 (§3.1.4 says it SHOULD be there; it states the mapping a client assumes
    /// without it, the same in every discontinuity), and no cue.
    public static let emptyDocument: [UInt8] = Array("WEBVTT\nX-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:0\n\n".utf8)

    /// The media type of ``emptyDocument``.
    public static let mediaType = "text/vtt"

    /// `ad` as a subtitle playlist stitches it: a copy of its media playlist (its rendition in the
    /// variant the subtitles go with) whose every segment is ``emptyDocument`` at `documentURL` (an
    /// absolute URL) with the ad segment's duration and discontinuity, and no map, key or byte range.
    public static func blank(mirroring ad: StitchAd, documentURL: String) -> StitchAd {
        var playlist = ad.playlist
        var segments: [MediaSegment] = []
        segments.reserveCapacity(ad.playlist.segments.count)
        for segment in ad.playlist.segments {
            var copy = segment
            copy.uri = documentURL
            copy.byteRange = nil
            copy.keys = []
            copy.map = nil
            copy.gap = false
            copy.bitrate = nil
            copy.parts = []
            copy.title = nil
            segments.append(copy)
        }
        playlist.segments.replaceSubrange(0..<playlist.segments.count, with: segments)
        return StitchAd(playlist: playlist, url: documentURL)
    }
}
