import HLSPlaylist

/// The lines of a primary media playlist grouped by the segment they precede, so a stitcher can
/// drop a segment, replay it, or put ads before it without disturbing the rest.
///
/// Segment `k`'s lines run from after segment `k − 1`'s URI line to its own URI line. Its *own*
/// lines (EXTINF, EXT-X-BYTERANGE, EXT-X-DISCONTINUITY, EXT-X-PROGRAM-DATE-TIME, EXT-X-GAP, EXT-X-PART
/// and the URI) describe that segment only and go when it goes; its *state* lines (the header,
/// EXT-X-KEY, EXT-X-MAP, EXT-X-BITRATE, the other date ranges, unknown tags, comments) are written
/// once whatever happens to the segment. The interstitial, Date Range Schedule and Preload date
/// ranges are left out (profile R28): a stitched playlist carries its ads in its segments.
struct PrimarySegmentLines {
    /// Per segment, the indices (0-based) of its lines in document order, left-out lines excluded.
    var lines: [[Int]] = []
    /// Per segment, whether each of ``lines`` is an own line.
    var isOwn: [[Bool]] = []
    /// Per segment, whether its lines state an EXT-X-MAP.
    var setsMap: [Bool] = []
    /// Per segment, whether its lines state an EXT-X-KEY.
    var setsKey: [Bool] = []
    /// Per segment, whether it has its own EXT-X-PROGRAM-DATE-TIME.
    var hasDate: [Bool] = []
    /// Per segment, whether it has its own EXT-X-DISCONTINUITY.
    var hasDiscontinuity: [Bool] = []
    /// Per segment, the line of its EXT-X-BYTERANGE and the range's offset (given or implied).
    var byteRange: [(line: Int, range: ByteRange)?] = []
    /// The lines after the last segment (EXT-X-ENDLIST, trailing date ranges), left-out lines excluded.
    var trailer: [Int] = []

    /// The classes whose date ranges a stitched playlist leaves out.
    static let leftOutClasses: Set<String> = [
        InterstitialEvent.className, DateRangeSchedule.className, PreloadDateRange.className,
    ]

    /// Groups `document`'s lines by the segments of `playlist` (parsed from it).
    init(document: PlaylistDocument, playlist: MediaPlaylist) {
        var leftOut = Set<Int>()
        for range in playlist.dateRanges where range.className.map(Self.leftOutClasses.contains) == true {
            for line in range.lines { leftOut.insert(line - 1) }
        }
        var next = 0
        var nextOffset: [String: UInt64] = [:]
        for segment in playlist.segments {
            let last = min(segment.line - 1, document.lines.count - 1)
            var group: [Int] = []
            var own: [Bool] = []
            var map = false
            var key = false
            var date = false
            var discontinuity = false
            var byteRangeLine: Int?
            while next <= last {
                defer { next += 1 }
                if leftOut.contains(next) { continue }
                let content = document.lines[next].content
                var isOwn = false
                switch content {
                case .uri: isOwn = true
                case .tag(let tag):
                    switch tag.name {
                    case .extinf, .gap, .part: isOwn = true
                    case .byteRange:
                        isOwn = true
                        byteRangeLine = next
                    case .programDateTime:
                        isOwn = true
                        date = true
                    case .discontinuity:
                        isOwn = true
                        discontinuity = true
                    case .map: map = true
                    case .key: key = true
                    default: break
                    }
                case .blank, .comment: break
                }
                group.append(next)
                own.append(isOwn)
            }
            lines.append(group)
            isOwn.append(own)
            setsMap.append(map)
            setsKey.append(key)
            hasDate.append(date)
            hasDiscontinuity.append(discontinuity)
            if let range = segment.byteRange, let byteRangeLine {
                // §4.4.4.2: without an offset, the sub-range follows the previous one of the same resource.
                let offset = range.offset ?? nextOffset[segment.uri] ?? 0
                nextOffset[segment.uri] = offset &+ range.length
                byteRange.append((byteRangeLine, ByteRange(length: range.length, offset: offset)))
            } else {
                byteRange.append(nil)
            }
        }
        while next < document.lines.count {
            defer { next += 1 }
            if leftOut.contains(next) { continue }
            trailer.append(next)
        }
    }
}
