import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

/// The primary presentation as the player knows it: its media playlist (for live, every segment seen
/// since the first load, on one stable timeline), the other media playlists, and the server's
/// interstitial events merged across reloads (profile R12).
package struct PrimaryTimeline: Sendable {
    /// What a reload changed.
    struct Update: Sendable {
        /// Segments appended.
        var newSegments = 0
        /// Whether the set of events or any event's attributes changed.
        var eventsChanged = false
        /// Events that were present and are gone.
        var removed: [InterstitialEvent] = []
        /// Same-ID tags that tried to change an existing value: ignored (R12).
        var conflicts: [String] = []
    }

    /// The media playlist; for live, the accumulated one.
    private(set) var playlist: MediaPlaylist
    /// Where it was loaded from (after redirects).
    private(set) var url: String
    /// The other media playlists (the selected audio rendition), for X-SNAP (R6); for live, every
    /// segment seen, placed on the primary's timeline by date.
    private(set) var others: [MediaPlaylist]
    /// Where each of `others` was loaded from (after redirects), in the same order; empty when
    /// unknown (their segments are then not loaded).
    private(set) var otherURLs: [String]
    /// The server's interstitial events, in the order first seen.
    private(set) var events: [InterstitialEvent]
    /// `com.apple.hls.preload` date ranges (App. F): what to load early, and when.
    private(set) var preloads: [Preload] = []
    /// Each event's merged attributes.
    private var attributes: [String: AttributeList]
    /// The Date Range Schedule documents loaded, once per identity (R27).
    private(set) var schedules = DateRangeScheduleStore()
    /// The last loaded media playlist as it was written (its tags, not accumulated), against which
    /// schedules resolve again when a document arrives.
    private var lastMedia: MediaPlaylist
    /// Where ``lastMedia`` was loaded from: schedule X-URIs resolve against it.
    private var lastMediaURL: String
    /// The last playlist's schedules resolved against ``schedules``.
    private(set) var scheduleResolution: DateRangeScheduleResolution

    init(_ presentation: PrimaryPresentation) {
        playlist = presentation.media
        url = presentation.mediaURL
        others = presentation.others
        otherURLs = presentation.otherURLs
        events = []
        attributes = [:]
        lastMedia = presentation.media
        lastMediaURL = presentation.mediaURL
        scheduleResolution = schedules.resolve(playlist: presentation.media, playlistURL: presentation.mediaURL)
        if presentation.media.isLive { others = Self.accumulate([], presentation.others, on: playlist) }
        _ = mergeEvents(of: scheduleResolution.dateRanges)
        preloads = Self.preloads(of: presentation.media, in: playlist)
    }

    /// A preload hint: load `uri` (for the date range `targetID` of class `targetClass`) at a point of
    /// [start, end) of primary time.
    struct Preload: Sendable, Hashable {
        var id: String
        var start: MediaTime
        var end: MediaTime
        var uri: String
        var targetID: String
        var targetClass: String
    }

    /// The valid preload hints of a playlist (``PreloadDateRange``, App. F: X-URI, X-TARGET-ID,
    /// X-TARGET-CLASS), placed on the accumulated timeline; none once the playlist has EXT-X-ENDLIST
    /// ("clients SHOULD ignore preload tags" then).
    static func preloads(of media: MediaPlaylist, in timeline: MediaPlaylist) -> [Preload] {
        guard !media.hasEndList else { return [] }
        return media.dateRanges.compactMap { range in
            guard let hint = PreloadDateRange(dateRange: range), let start = timeline.time(at: hint.startDate) else {
                return nil
            }
            let end = timeline.time(at: hint.end) ?? start
            return Preload(
                id: hint.identifier, start: start, end: max(start, end), uri: hint.uri, targetID: hint.targetID,
                targetClass: hint.targetClass)
        }
    }

    /// Whether the playlist has no EXT-X-ENDLIST yet.
    package var isLive: Bool { playlist.isLive }
    /// Where the known primary ends.
    var end: MediaTime { playlist.segments.last?.endTime ?? .zero }
    /// The target duration.
    var targetDuration: MediaTime { MediaTime(seconds: Int(clamping: playlist.targetDuration ?? 6)) }

    /// Folds a reloaded playlist in: new segments continue the timeline by media sequence number,
    /// and date ranges merge by ID (R12).
    mutating func merge(_ presentation: PrimaryPresentation) -> Update {
        var update = Update()
        let reloaded = presentation.media
        let lastSequence = playlist.segments.last?.mediaSequence
        var appended: [MediaSegment] = []
        for var segment in reloaded.segments where lastSequence.map({ segment.mediaSequence > $0 }) ?? true {
            let previous = appended.last ?? playlist.segments.last
            var start = previous?.endTime ?? .zero
            // A gap in sequence numbers: place the segment by its date when it has one.
            if let previous, segment.mediaSequence > previous.mediaSequence + 1, let date = segment.date,
                let previousDate = previous.date
            {
                start = max(start, previous.startTime + (date - previousDate))
            }
            segment.startTime = start
            appended.append(segment)
        }
        update.newSegments = appended.count
        var merged = reloaded
        merged.segments = playlist.segments + appended
        merged.mediaSequence = playlist.mediaSequence
        merged.discontinuitySequence = playlist.discontinuitySequence
        playlist = merged
        url = presentation.mediaURL
        if !presentation.others.isEmpty {
            others = isLive ? Self.accumulate(others, presentation.others, on: playlist) : presentation.others
            otherURLs = presentation.otherURLs
        }
        lastMedia = reloaded
        lastMediaURL = url
        scheduleResolution = schedules.resolve(playlist: reloaded, playlistURL: url)
        schedules.retain(only: scheduleIdentities)
        let eventUpdate = mergeEvents(of: scheduleResolution.dateRanges)
        preloads = Self.preloads(of: reloaded, in: playlist)
        update.eventsChanged = eventUpdate.changed
        update.removed = eventUpdate.removed
        update.conflicts = eventUpdate.conflicts
        return update
    }

    /// Live renditions on the primary's timeline: each reloaded playlist's segments placed at the
    /// primary time of their date (R1; renditions and primary share the clock that PROGRAM-DATE-TIME
    /// gives, not their first segments), the new ones (by media sequence number) appended to what
    /// was seen. Segments without a date cannot be placed and are left out.
    static func accumulate(
        _ seen: [MediaPlaylist], _ reloaded: [MediaPlaylist], on primary: MediaPlaylist
    ) -> [MediaPlaylist] {
        reloaded.enumerated().map { index, playlist in
            var result = seen.indices.contains(index) ? seen[index] : playlist
            let known = seen.indices.contains(index) ? seen[index].segments : []
            let last = known.last?.mediaSequence
            let placed = playlist.segments.compactMap { segment -> MediaSegment? in
                guard last.map({ segment.mediaSequence > $0 }) ?? true, let date = segment.date,
                    let time = primary.time(at: date)
                else { return nil }
                var segment = segment
                segment.startTime = time
                return segment
            }
            result.segments = known + placed
            return result
        }
    }

    /// Plays another VOD variant from now on: its playlist replaces the current one (variants share
    /// their segmentation and timestamps, so times keep their meaning). A live switch is a reload
    /// from the new variant's URL (``merge(_:)``).
    mutating func replaceVariant(with presentation: PrimaryPresentation) {
        playlist = presentation.media
        url = presentation.mediaURL
        others = presentation.others
        otherURLs = presentation.otherURLs
    }

    /// Every media playlist whose segments play, with its URL: the variant's, then each other
    /// rendition's whose URL is known.
    var renditionPlaylists: [(playlist: MediaPlaylist, url: String)] {
        [(playlist, url)] + zip(others, otherURLs).map { ($0, $1) }
    }

    /// The schedules that have no document yet (R27): to load.
    var pendingSchedules: [DateRangeSchedule] {
        scheduleResolution.pending.filter { schedules.needsLoading($0.identity) }
    }

    /// The identities the playlist names, by its schedule tags and the Preload tags that target one.
    var scheduleIdentities: Set<DateRangeSchedule.Identity> {
        Set(scheduleResolution.schedules.map(\.identity) + scheduleResolution.preloads.map(\.identity))
    }

    /// The identity a Preload tag that targets a schedule loads its document under (R27).
    func scheduleIdentity(of hint: Preload) -> DateRangeSchedule.Identity {
        DateRangeSchedule.Identity(
            identifier: hint.targetID, uri: URIReference.resolve(hint.uri, against: lastMediaURL))
    }

    /// Records what loading schedule `identity` gave (the first result holds, R27) and resolves the
    /// last playlist again: its entries become events like the playlist's own tags.
    mutating func scheduleLoaded(
        _ identity: DateRangeSchedule.Identity, _ result: Result<DateRangeScheduleDocument, DateRangeScheduleError>
    ) -> Update {
        var update = Update()
        guard schedules.record(result, for: identity) else { return update }
        scheduleResolution = schedules.resolve(playlist: lastMedia, playlistURL: lastMediaURL)
        let eventUpdate = mergeEvents(of: scheduleResolution.dateRanges)
        update.eventsChanged = eventUpdate.changed
        update.removed = eventUpdate.removed
        update.conflicts = eventUpdate.conflicts
        return update
    }

    private mutating func mergeEvents(
        of dateRanges: [DateRangeScheduleResolution.ScheduledDateRange]
    ) -> (changed: Bool, removed: [InterstitialEvent], conflicts: [String]) {
        var changed = false
        var conflicts: [String] = []
        var seen: Set<String> = []
        for scheduled in dateRanges where scheduled.dateRange.className == InterstitialEvent.className {
            let range = scheduled.dateRange
            seen.insert(range.id)
            guard var known = attributes[range.id] else {
                guard var event = InterstitialEvent(dateRange: range) else { continue }
                event.scheduleIdentifier = scheduled.scheduleIdentifier
                attributes[range.id] = range.attributes
                events.append(event)
                changed = true
                continue
            }
            var grew = false
            for attribute in range.attributes {
                if let value = known[attribute.name] {
                    if value != attribute.value {
                        conflicts.append(
                            "date range \"\(range.id)\" changed \(attribute.name) from \(value) to \(attribute.value) on reload; ignored (a later tag \"can introduce new attributes but cannot change\" existing ones, §4.4.5.1.1)"
                        )
                    }
                } else {
                    known.append(attribute)
                    grew = true
                }
            }
            if grew, var event = InterstitialEvent(attributes: known),
                let index = events.firstIndex(where: { $0.identifier == range.id })
            {
                event.scheduleIdentifier = scheduled.scheduleIdentifier
                attributes[range.id] = known
                events[index] = event
                changed = true
            }
        }
        let removed = events.filter { !seen.contains($0.identifier) }
        if !removed.isEmpty {
            events.removeAll { !seen.contains($0.identifier) }
            for event in removed { attributes.removeValue(forKey: event.identifier) }
            changed = true
        }
        return (changed, removed, conflicts)
    }
}

/// A loaded primary presentation: the selected media playlist and the other renditions that play
/// with it.
package struct PrimaryPresentation: Sendable {
    /// The variant's media playlist.
    package var media: MediaPlaylist
    /// Its URL (after redirects).
    package var mediaURL: String
    /// The other media playlists (audio) that play with it.
    package var others: [MediaPlaylist]
    /// Where each of `others` was loaded from (after redirects), in the same order; empty when
    /// unknown, and then their segments are not loaded.
    package var otherURLs: [String]
    /// The audio and subtitle renditions the variant offers (empty for a media playlist).
    package var renditions: [Rendition]
    /// The selected renditions.
    package var tracks: TrackSelection
    /// The multivariant playlist's variants (empty for a media playlist).
    package var variants: [PrimaryVariant]
    /// The index of the variant `media` is, among `variants`.
    package var variantIndex: Int?
    package init(
        media: MediaPlaylist, mediaURL: String, others: [MediaPlaylist] = [], otherURLs: [String] = [],
        renditions: [Rendition] = [], tracks: TrackSelection = TrackSelection(), variants: [PrimaryVariant] = [],
        variantIndex: Int? = nil
    ) {
        self.media = media
        self.mediaURL = mediaURL
        self.others = others
        self.otherURLs = otherURLs
        self.renditions = renditions
        self.tracks = tracks
        self.variants = variants
        self.variantIndex = variantIndex ?? (variants.isEmpty ? nil : 0)
    }
}

/// A loaded interstitial asset: how long it plays and its segments.
package struct AssetMedia: Sendable, Hashable {
    /// The sum of its segments' durations.
    package var duration: MediaTime
    /// Its media segments' absolute URLs, in order.
    package var segmentURLs: [String]
    /// The renditions selected to match the primary's; nil when the asset offers none.
    package var tracks: TrackSelection?
    /// Its media segments' durations, in order (empty when unknown).
    package var segmentDurations: [MediaTime]

    /// The URL of its media playlist, when it was loaded from one.
    package var playlistURL: String?
    /// Each segment's absolute EXT-X-MAP URL (empty when not known).
    package var segmentMaps: [String?] = []
    /// The other renditions that play with it (the audio rendition selected to match the
    /// primary's): their segments load and play alongside its own.
    package var otherRenditions: [AssetMedia] = []

    package init(
        duration: MediaTime, segmentURLs: [String], tracks: TrackSelection? = nil, segmentDurations: [MediaTime] = []
    ) {
        self.duration = duration
        self.segmentURLs = segmentURLs
        self.tracks = tracks
        self.segmentDurations = segmentDurations
    }

    /// The asset an asset's media playlist (loaded from `url`) describes. Its own date ranges,
    /// interstitials included, play no part (R25).
    package init(playlist: MediaPlaylist, url: String, tracks: TrackSelection? = nil) {
        self.init(
            duration: playlist.duration,
            segmentURLs: playlist.segments.map { URIReference.resolve($0.uri, against: url) }, tracks: tracks,
            segmentDurations: playlist.segments.map(\.duration))
        playlistURL = url
        segmentMaps = playlist.segments.map { $0.map.map { URIReference.resolve($0.uri, against: url) } }
    }
}
