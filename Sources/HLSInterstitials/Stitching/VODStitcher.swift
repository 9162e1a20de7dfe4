import HLSPlaylist

/// The stitched form of a VOD media playlist: the ads written into the playlist where the schedule
/// plays them, for players that do not implement interstitials (issue 45; profile R28).
///
/// Where each break plays and where primary resumes is the schedule's decision
/// (``InterstitialSchedule/resolve(_:)``): this type only writes it out.
///
/// - A break's ads go before the first primary segment that starts at or after the break's start
///   (a break inside a segment plays after that segment; a segment starting less than
///   `startAllowance`, 1 ms, before it counts as starting at it), with EXT-X-DISCONTINUITY before each ad
///   and before the primary segment that follows.
/// - Primary resumes with the first segment that starts at or after the schedule's resumption point:
///   X-RESUME-OFFSET=0 inserts, the default (the break's duration) replaces, a negative offset
///   replays. The segments that start between the break and that point are left out.
/// - X-PLAYOUT-LIMIT (the effective duration, ``InterstitialEvent/effectiveDuration(played:)``) cuts
///   the pod at a segment boundary: the segments that would end after it are left out, so a stitched
///   break never plays longer than the limit; the time kept is the time played (R3).
/// - PRE breaks go first, POST breaks last; the interstitial date ranges are left out.
/// - After a discontinuity the segment restates the EXT-X-MAP and EXT-X-KEY in force and, when the
///   primary is dated, its EXT-X-PROGRAM-DATE-TIME. Ad URIs are written absolute.
public enum VODStitcher {
    /// Stitches `pods` into a parsed VOD media playlist.
    ///
    /// - Parameters:
    ///   - result: the primary media playlist as parsed (its document is what is written back).
    ///   - pods: for each event ID, the ads chosen for this variant, in play order; an empty array
    ///     is a break without ads (R7).
    /// - Throws: ``StitchingError``: `stitch-primary-kind` for a playlist that is not a VOD media
    ///   playlist, `stitch-primary-unsupported` for an I-frame playlist or a delta update,
    ///   `stitch-missing-pod` for a scheduled event without a pod, `stitch-ad-playlist` for an ad
    ///   that is not a complete VOD playlist, `stitch-ad-uri` for an ad whose URL is not absolute, `stitch-format` for an ad whose segment format is not the
    ///   primary's, `stitch-unwritable` for an ad URI that cannot be written in a playlist.
    public static func stitch(
        _ result: ParseResult, pods: [String: [StitchAd]]
    ) throws(StitchingError)
        -> StitchedPlaylist
    {
        guard case .media(let playlist) = result.playlist else {
            throw StitchingError(
                .primaryKind, at: result.document.file,
                "the playlist is a multivariant playlist; only media playlists are stitched")
        }
        return try stitch(playlist, document: result.document, pods: pods)
    }

    /// Stitches `pods` into `playlist`, parsed from `document`.
    public static func stitch(
        _ playlist: MediaPlaylist, document: PlaylistDocument, pods: [String: [StitchAd]]
    ) throws(StitchingError) -> StitchedPlaylist {
        guard playlist.hasEndList else {
            throw StitchingError(
                .primaryKind, at: document.file,
                "the playlist has no EXT-X-ENDLIST: a live playlist is stitched by LiveStitcher, window by window")
        }
        guard !playlist.iFramesOnly, playlist.skip == nil else {
            throw StitchingError(
                .primaryUnsupported, at: document.file,
                playlist.iFramesOnly
                    ? "an I-frame playlist cannot take ad segments (EXT-X-I-FRAMES-ONLY)"
                    : "a delta update (EXT-X-SKIP) lists only part of the playlist")
        }
        let primaryIsFMP4 = playlist.segments.first?.map != nil

        // The pods, cut at each event's effective duration (X-PLAYOUT-LIMIT, R3).
        var events = ScheduleInput.events(of: playlist)
        var cuts: [String: [(ad: StitchAd, segments: Int)]] = [:]
        var played: [String: MediaTime] = [:]
        for index in events.indices {
            let id = events[index].identifier
            guard let pod = pods[id] else { continue }
            for (position, ad) in pod.enumerated() {
                try check(ad, eventID: id, position: position, fMP4: primaryIsFMP4)
            }
            events[index].assetList = AssetList(
                assets: pod.map { AssetList.Asset(uri: $0.url, duration: $0.playlist.duration) })
            let limit = events[index].effectiveDuration() ?? .zero
            var kept: [(ad: StitchAd, segments: Int)] = []
            var length = MediaTime.zero
            for ad in pod {
                var count = 0
                for segment in ad.playlist.segments {
                    guard length + segment.duration <= limit else { break }
                    length = length + segment.duration
                    count += 1
                }
                kept.append((ad, count))
                if count < ad.playlist.segments.count { break }
            }
            cuts[id] = kept
            played[id] = length
        }
        let schedule = InterstitialSchedule.resolve(
            ScheduleInput(primary: playlist, events: events, playedDurations: played, isLive: false))

        let lines = PrimarySegmentLines(document: document, playlist: playlist)
        var writer = StitchWriter(document: document, playlist: playlist, map: lines)
        let segments = playlist.segments
        for item in schedule.items {
            switch item.kind {
            case .primary:
                var index = firstSegment(startingAtOrAfter: item.primary.start, in: segments)
                while index < segments.count, startsBefore(segments[index], item.primary.end) {
                    try writer.writePrimary(index)
                    index += 1
                }
            case .interstitial:
                guard let eventIndex = item.eventIndex else { continue }
                let event = schedule.events[eventIndex]
                guard let kept = cuts[event.id] else {
                    throw StitchingError(
                        .missingPod, at: "event \"\(event.id)\"",
                        "the event is scheduled but no pod was given for it (give an empty pod for a break without ads)"
                    )
                }
                for (position, entry) in kept.enumerated() where entry.segments > 0 {
                    try writer.writeAd(
                        entry.ad, eventID: event.id, adIndex: position, segments: 0..<entry.segments,
                        discontinuityAtStart: writer.last != nil)
                }
                // X-PLAYOUT-LIMIT cut the pod: its break ends with the next primary segment.
                if let lastKept = kept.last, lastKept.segments < lastKept.ad.playlist.segments.count {
                    writer.resumeAfter = event.id
                }
            }
        }
        writer.finish()
        return StitchedPlaylist(
            document: try writer.document(file: document.file), ads: writer.ads, resumptions: writer.resumptions)
    }

    /// How far before a time a segment may start and still count as starting at it: EXTINF writes
    /// durations to the microsecond at best (six decimals), so a segment's start, their sum, drifts
    /// from the media's by up to half a microsecond a segment. Audio segments of 2.005333 s, three
    /// of them then one of 1.984 s, end at 7.999999 s by their EXTINF values where the media's
    /// fourth frame boundary is 8 s: without the allowance a break at 8 s would splice the audio
    /// a whole segment late (after the one that "starts" at 7.999999), 2 s out of step with the
    /// video. 1 ms covers 2,000 segments of that rounding and is far below an audio frame (21 ms
    /// for AAC at 48 kHz).
    static let startAllowance = MediaTime(nanoseconds: 1_000_000)

    /// Whether `segment` starts before `time` by more than ``startAllowance``.
    static func startsBefore(_ segment: MediaSegment, _ time: MediaTime) -> Bool {
        segment.startTime + startAllowance <= time
    }

    /// The first segment that starts at or after `time`, within ``startAllowance`` (the count when
    /// none does).
    static func firstSegment(startingAtOrAfter time: MediaTime, in segments: MediaSegments) -> Int {
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if startsBefore(segments[middle], time) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Refuses an ad that is not a complete VOD playlist, whose URL is not absolute, or whose
    /// segment format is not the primary's (`fMP4`): what ``stitch(_:pods:)`` checks of each ad, for a
    /// server that leaves such an ad out instead (throws ``StitchingError``).
    public static func check(_ ad: StitchAd, eventID: String, position: Int, fMP4: Bool) throws(StitchingError) {
        let location = "event \"\(eventID)\", ad \(position + 1) (\(ad.url))"
        guard ad.playlist.hasEndList, !ad.playlist.segments.isEmpty else {
            throw StitchingError(
                .adPlaylist, at: location,
                ad.playlist.hasEndList
                    ? "the ad's playlist has no segments"
                    : "the ad's playlist has no EXT-X-ENDLIST: only a complete VOD rendition can be stitched")
        }
        guard URIReference.isAbsolute(ad.url), !URIReference.isFile(ad.url) else {
            throw StitchingError(
                .adURI, at: location,
                "the ad's URL is not an absolute http(s) URL, so its segments cannot be listed by absolute URIs in the stitched playlist"
            )
        }
        let adIsFMP4 = ad.playlist.segments.first?.map != nil
        guard adIsFMP4 == fMP4 else {
            throw StitchingError(
                .format, at: location,
                "the ad's segments are \(adIsFMP4 ? "fMP4 (EXT-X-MAP)" : "MPEG-TS") but the primary's are \(fMP4 ? "fMP4" : "MPEG-TS"); an ad rendition must have the segment format of the variant it is stitched into (profile R28)"
            )
        }
    }
}
