import HLSInterstitials
import HLSPlaylist

/// Writes the playlists the server serves: a parsed playlist with its planned breaks in, as bytes.
///
/// Pure: no I/O, no state; the same input always gives the same bytes. The content library decides
/// which breaks to serve (``BreakPlanner``, with the first serving recorded); this type only writes.
enum PlaylistRenderer {
    /// A playlist that takes no breaks (a multivariant playlist, or a media playlist without
    /// segments), served as it is.
    static func unchanged(_ result: ParseResult, kind: Target.Kind) -> ContentResponse {
        guard case .media(let playlist) = result.playlist else {
            return .playlist(result.document.write(), live: kind == .live)
        }
        return .playlist(result.document.write(), live: !playlist.hasEndList, targetDuration: playlist.targetDuration)
    }

    /// The VOD timeline of a media playlist with segments (dates added from the default epoch when
    /// it has none), and the dated playlist.
    static func vodTimeline(_ playlist: MediaPlaylist) -> (BreakPlanner.Timeline, MediaPlaylist) {
        let (dated, _) = InterstitialInserter.dated(playlist)
        let first = playlist.segments[0]
        let duration = dated.segments[dated.segments.count - 1].endTime - first.startTime
        let frozen = dated
        return (.vod(duration: duration, dateAt: { frozen.date(at: first.startTime + $0) }), dated)
    }

    /// The live timeline of a dated media playlist's window; `nil` when its segments have no dates.
    ///
    /// The window spans every date the segments name: from the earliest start to the latest end.
    /// Upstream dates do not always run forward (an encoder's clock steps back, a backup encoder
    /// takes over behind): the window then covers both sides of the step rather than being read
    /// from the first and last segments alone, which would make an empty or inverted range.
    static func liveTimeline(_ playlist: MediaPlaylist, content: ServerConfiguration.Content) -> BreakPlanner.Timeline?
    {
        guard playlist.segments.first?.date != nil else { return nil }
        var earliest: DateTime?
        var latest: DateTime?
        for segment in playlist.segments {
            guard let start = segment.date else { continue }
            let end = start + segment.duration
            if earliest.map({ start < $0 }) ?? true { earliest = start }
            if latest.map({ end > $0 }) ?? true { latest = end }
        }
        guard let earliest, let latest, earliest < latest else { return nil }
        return .live(epoch: content.epoch, window: earliest..<latest, lookahead: content.lookahead)
    }

    /// `result` with the planned date ranges and the preload `hints` in, written; 502 when they
    /// cannot go in. With `removingSignals`, the SCTE-35 markers (``removingSignals(from:)``) are
    /// left out. With a `schedule` (the planned breaks published as a Date Range Schedule), its
    /// one tag stands for the planned date ranges.
    static func render(
        _ planned: [BreakPlanner.Planned], hints: [BreakPlanner.Hint] = [], into result: ParseResult,
        removingSignals: Bool = false, schedule: PublishedSchedule? = nil
    ) throws(APIError) -> [UInt8] {
        let output: InterstitialInserter.Output
        do {
            output = try InterstitialInserter.insert(
                events: schedule == nil ? planned.map(\.event) : [],
                dateRanges: (schedule.map { [$0.tag] } ?? []) + hints.map(\.attributes), into: result)
        } catch {
            throw APIError(status: 502, code: .playlist, "cannot add interstitials: \(error.message)")
        }
        var document = output.document
        if removingSignals { Self.removeSignals(from: &document) }
        return document.write()
    }

    /// Removes the SCTE-35 markers: EXT-X-CUE-OUT, EXT-X-CUE-OUT-CONT, EXT-X-CUE-IN and
    /// EXT-OATCLS-SCTE35 lines, and EXT-X-DATERANGE tags with SCTE35-OUT, SCTE35-IN or SCTE35-CMD.
    static func removeSignals(from document: inout PlaylistDocument) {
        document.lines.removeAll { line in
            guard let tag = line.content.tag else { return false }
            if SignalRecognizer.isSignalTag(tag.name) { return true }
            guard tag.name == "EXT-X-DATERANGE", let attributes = tag.value.attributes else { return false }
            return attributes.contains("SCTE35-OUT") || attributes.contains("SCTE35-IN")
                || attributes.contains("SCTE35-CMD")
        }
    }
}
