/// Generates realistic playlists of any size, for benchmarks, tests and QA.
public enum SyntheticPlaylist {
    /// A VOD media playlist of `segments` segments of `segmentDuration` seconds, each with a
    /// PROGRAM-DATE-TIME, and an interstitial EXT-X-DATERANGE every `interstitialEvery` segments.
    ///
    /// - Parameters:
    ///   - segments: the number of segments.
    ///   - segmentDuration: each segment's EXTINF duration.
    ///   - interstitialEvery: one interstitial per this many segments (0 for none).
    ///   - start: the first segment's date.
    public static func vod(
        segments: Int, segmentDuration: MediaTime = MediaTime(decimal: "6.006")!, interstitialEvery: Int = 100,
        start: DateTime = DateTime(iso8601: "2026-01-01T00:00:00.000Z")!
    ) -> String {
        var lines: [String] = [
            "#EXTM3U", "#EXT-X-VERSION:7",
            "#EXT-X-TARGETDURATION:\(segmentDuration.nanoseconds / 1_000_000_000 + (segmentDuration.nanoseconds % 1_000_000_000 > 0 ? 1 : 0))",
            "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS",
            "#EXT-X-MAP:URI=\"init.mp4\"",
        ]
        let segments = max(segments, 0)
        lines.reserveCapacity(segments * 3 + 16)
        let extinf = "#EXTINF:\(segmentDuration.formatted(fractionDigits: 3)),"
        var date = start
        for index in 0..<segments {
            if interstitialEvery > 0, index % interstitialEvery == interstitialEvery / 2 {
                lines.append(
                    "#EXT-X-DATERANGE:ID=\"ad\(index)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date.iso8601)\",DURATION=15.0,X-ASSET-URI=\"https://ads.example.com/ad\(index)/main.m3u8?_HLS_interstitial_id=ad\(index)\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""
                )
            }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + date.iso8601)
            lines.append(extinf)
            lines.append("segment_\(String(index).leftPadded(6)).m4s")
            date = date + segmentDuration
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Low-Latency HLS live media playlist covering `duration` of 4-second segments with 1-second
    /// parts on the last three segments, a preload hint, rendition reports, server control, a
    /// PROGRAM-DATE-TIME on every segment and an interstitial every 2 minutes.
    public static func lowLatencyLive(
        duration: MediaTime = MediaTime(seconds: 3 * 3600), mediaSequence: UInt64 = 1_000,
        start: DateTime = DateTime(iso8601: "2026-01-01T00:00:00.000Z")!
    ) -> String {
        let segmentDuration = MediaTime(seconds: 4)
        let count = Int(max(0, duration.nanoseconds / segmentDuration.nanoseconds))
        var lines: [String] = [
            "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:4", "#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=24.0,PART-HOLD-BACK=3.0",
            "#EXT-X-PART-INF:PART-TARGET=1.0", "#EXT-X-MAP:URI=\"init.mp4\"",
        ]
        var date = start
        for index in 0..<count {
            let sequence = mediaSequence &+ UInt64(index)
            if index % 30 == 15 {
                lines.append(
                    "#EXT-X-DATERANGE:ID=\"break-\(sequence)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date.iso8601)\",PLANNED-DURATION=30.0,X-ASSET-LIST=\"/assets?_HLS_interstitial_id=break-\(sequence)\",X-SNAP=\"OUT,IN\",X-RESTRICT=\"SKIP,JUMP\",X-TIMELINE-OCCUPIES=\"RANGE\""
                )
            }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + date.iso8601)
            if index >= count - 3 {
                for part in 0..<4 {
                    lines.append(
                        "#EXT-X-PART:DURATION=1.00000,URI=\"segment\(sequence).part\(part).m4s\"\(part == 0 ? ",INDEPENDENT=YES" : "")"
                    )
                }
            }
            lines.append("#EXTINF:4.00000,")
            lines.append("segment\(sequence).m4s")
            date = date + segmentDuration
        }
        let next = mediaSequence &+ UInt64(count)
        lines.append("#EXT-X-PART:DURATION=1.00000,URI=\"segment\(next).part0.m4s\",INDEPENDENT=YES")
        lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"segment\(next).part1.m4s\"")
        lines.append("#EXT-X-RENDITION-REPORT:URI=\"../audio/live.m3u8\",LAST-MSN=\(next),LAST-PART=0")
        return lines.joined(separator: "\n") + "\n"
    }
}
