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
/// A subtitle playlist whose segments are fMP4 (EXT-X-MAP: WebVTT as `wvtt`, IMSC as `stpp`) gets
/// empty fMP4 subtitle segments instead, after its own initialization segment
/// (``blank(mirroring:map:timescale:segmentURL:)``): an EXT-X-MAP stays in force until the next
/// one, so a WebVTT text document cannot follow it.
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
            segments.append(blanked(segment, uri: documentURL, map: nil))
        }
        playlist.segments.replaceSubrange(0..<playlist.segments.count, with: segments)
        return StitchAd(playlist: playlist, url: documentURL)
    }

    /// Where one segment of an fMP4 subtitle "ad" (``blank(mirroring:map:timescale:segmentURL:)``)
    /// plays, in ticks of the subtitle track's timescale.
    public struct FragmentSpan: Hashable, Sendable {
        /// The segment's place in the ad, from 0.
        public var index: Int
        /// Where it starts, from the ad's start: its `tfdt` `baseMediaDecodeTime`.
        public var start: UInt64
        /// How long it plays: its one sample's duration.
        public var duration: UInt64
    }

    /// `ad` as an fMP4 subtitle playlist (one with EXT-X-MAP: WebVTT in fMP4, `wvtt`, or IMSC,
    /// `stpp`) stitches it: a copy of its media playlist whose every segment is an empty fMP4
    /// subtitle segment at `segmentURL(span)` (an absolute URL) with the ad segment's duration and
    /// discontinuity, after `map` (the primary subtitle rendition's own EXT-X-MAP, its URI
    /// absolute), without key or byte range.
    ///
    /// The primary rendition's initialization segment is the one a player can use: the same sample
    /// entry (codec), track ID and timescale as the subtitles before and after the break, so a
    /// player that has set up its subtitle track keeps it. Each segment's span is its place in the
    /// ad in `timescale` ticks, from 0 at the ad's start (where a conditioned or packaged ad's
    /// timestamps start): a segment starts where the one before it ends (both rounded from the
    /// playlist's times, so the sum does not drift), so `hlsi validate --media` finds its
    /// timestamps continuous within the ad's discontinuity.
    public static func blank(
        mirroring ad: StitchAd, map: MediaInitializationSection, timescale: UInt32,
        segmentURL: (FragmentSpan) -> String
    ) -> StitchAd {
        var playlist = ad.playlist
        var segments: [MediaSegment] = []
        segments.reserveCapacity(ad.playlist.segments.count)
        var elapsed = MediaTime.zero
        for (index, segment) in ad.playlist.segments.enumerated() {
            let start = ticks(elapsed, timescale: timescale)
            elapsed = elapsed + segment.duration
            let end = ticks(elapsed, timescale: timescale)
            segments.append(
                blanked(
                    segment, uri: segmentURL(FragmentSpan(index: index, start: start, duration: end &- start)), map: map
                ))
        }
        playlist.segments.replaceSubrange(0..<playlist.segments.count, with: segments)
        return StitchAd(playlist: playlist, url: segments.first?.uri ?? map.uri)
    }

    /// `segment` (an ad segment) as the blank subtitle segment at `uri` standing for it: its duration
    /// and discontinuity kept, after `map` (none for a WebVTT document), without byte range, key,
    /// gap, bit rate, parts or title.
    private static func blanked(_ segment: MediaSegment, uri: String, map: MediaInitializationSection?) -> MediaSegment
    {
        var copy = segment
        copy.uri = uri
        copy.byteRange = nil
        copy.keys = []
        copy.map = map
        copy.gap = false
        copy.bitrate = nil
        copy.parts = []
        copy.title = nil
        return copy
    }

    /// `time` (not negative) in ticks of `timescale`, rounded to the nearest tick.
    static func ticks(_ time: MediaTime, timescale: UInt32) -> UInt64 {
        let nanoseconds = UInt64(max(time.nanoseconds, 0))
        let product = nanoseconds.multipliedFullWidth(by: UInt64(timescale))
        let sum = product.low.addingReportingOverflow(500_000_000)
        let high = product.high &+ (sum.overflow ? 1 : 0)
        guard high < 1_000_000_000 else { return .max }
        return UInt64(1_000_000_000).dividingFullWidth((high, sum.partialValue)).quotient
    }
}
