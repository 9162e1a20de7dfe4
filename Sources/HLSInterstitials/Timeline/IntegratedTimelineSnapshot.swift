import HLSPlaylist

/// An immutable picture of the integrated timeline: primary content and scheduled interstitials as
/// one sequence of contiguous, non-overlapping segments (AVFoundation's
/// `AVPlayerItemIntegratedTimelineSnapshot`, reference §2.5–2.7).
///
/// Point events are segments with a zero-length target; fill events take their played length (or
/// their planned duration until it is known). Primary skipped by a positive resumption offset is
/// absent; primary replayed after a negative one appears again.
public struct IntegratedTimelineSnapshot: Sendable, Hashable {
    /// One segment of the integrated timeline (`AVPlayerItemSegment`).
    public struct Segment: Sendable, Hashable {
        /// What a segment presents.
        public enum SegmentType: String, Sendable, Hashable, Codable {
            /// Primary content.
            case primary
            /// An interstitial event.
            case interstitial
        }

        /// Primary or interstitial.
        public var segmentType: SegmentType
        /// `source`: the range in the segment's own timeline (the primary item's, or the event's from 0);
        /// `target`: the range in the integrated timeline (zero-length for point events).
        public var timeMapping: (source: Range<MediaTime>, target: Range<MediaTime>)
        /// The event, for interstitial segments.
        public var interstitialEvent: InterstitialEvent?
        /// The date the segment starts at; nil when the primary has no dates.
        public var startDate: DateTime?
        /// The loaded parts of the target range (set by a player; empty for point events).
        public var loadedTimeRanges: [Range<MediaTime>]

        /// Creates a segment.
        public init(
            segmentType: SegmentType, timeMapping: (source: Range<MediaTime>, target: Range<MediaTime>),
            interstitialEvent: InterstitialEvent? = nil, startDate: DateTime? = nil,
            loadedTimeRanges: [Range<MediaTime>] = []
        ) {
            self.segmentType = segmentType
            self.timeMapping = timeMapping
            self.interstitialEvent = interstitialEvent
            self.startDate = startDate
            self.loadedTimeRanges = loadedTimeRanges
        }

        /// Segments are equal when every property is.
        public static func == (lhs: Segment, rhs: Segment) -> Bool {
            lhs.segmentType == rhs.segmentType && lhs.timeMapping.source == rhs.timeMapping.source
                && lhs.timeMapping.target == rhs.timeMapping.target && lhs.interstitialEvent == rhs.interstitialEvent
                && lhs.startDate == rhs.startDate && lhs.loadedTimeRanges == rhs.loadedTimeRanges
        }

        /// Hashes the type and the target range.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(segmentType)
            hasher.combine(timeMapping.target.lowerBound)
            hasher.combine(timeMapping.target.upperBound)
        }

        /// Whether it is an interstitial that occupies no length (a point event).
        public var isSinglePoint: Bool { segmentType == .interstitial && timeMapping.target.isEmpty }
    }

    /// Why two snapshots differ (`AVPlayerIntegratedTimelineSnapshotsOutOfSyncReason`).
    public enum Change: String, Sendable, Hashable, Codable {
        /// The segments changed.
        case segmentsChanged
        /// Only the current segment changed.
        case currentSegmentChanged
        /// Only the loaded time ranges changed.
        case loadedTimeRangesChanged
    }

    /// Primary plus events, each counted by its playout limit and resumption offset; nil (indefinite)
    /// for live.
    public var duration: MediaTime?
    /// The integrated time when the snapshot was taken; it does not advance.
    public var currentTime: MediaTime
    /// The date at ``currentTime``, when the primary has dates.
    public var currentDate: DateTime?
    /// The segments in order: contiguous and non-overlapping.
    public var segments: [Segment]
    /// The index of the current segment.
    public var currentSegmentIndex: Int?

    /// The segment ``currentTime`` falls in.
    public var currentSegment: Segment? { currentSegmentIndex.map { segments[$0] } }

    /// The snapshot of a schedule at integrated time `currentTime`.
    ///
    /// - Parameters:
    ///   - schedule: the resolved schedule.
    ///   - primary: the primary playlist, for segment start dates.
    ///   - currentTime: the integrated time of the snapshot.
    public init(schedule: InterstitialSchedule, primary: MediaPlaylist? = nil, currentTime: MediaTime = .zero) {
        segments = schedule.items.map { item in
            switch item.kind {
            case .primary:
                return Segment(
                    segmentType: .primary, timeMapping: (item.primary.range, item.integrated),
                    startDate: primary?.date(at: item.primary.start))
            case .interstitial:
                let event = item.eventIndex.map { schedule.events[$0] }
                let length = item.playout.upperBound - item.playout.lowerBound
                return Segment(
                    segmentType: .interstitial, timeMapping: (.zero..<length, item.integrated),
                    interstitialEvent: event?.event,
                    startDate: event?.event.date ?? primary?.date(at: item.primary.start))
            }
        }
        duration = schedule.integratedDuration
        self.currentTime = currentTime
        currentSegmentIndex = nil
        currentSegmentIndex = index(at: currentTime)
        currentDate = currentSegment.flatMap { segment in
            segment.segmentType == .primary
                ? segment.startDate.map { $0 + (currentTime - segment.timeMapping.target.lowerBound) }
                : segment.startDate
        }
    }

    /// The segment an integrated time falls in and the offset into its target (`map(_:)`): the first
    /// segment when several start there (point events before the primary that follows). Nil outside
    /// the timeline; the end of the timeline maps to the end of the last segment.
    public func map(_ time: MediaTime) -> (segment: Segment, offset: MediaTime)? {
        guard let index = index(at: time) else { return nil }
        return (segments[index], time - segments[index].timeMapping.target.lowerBound)
    }

    /// The index of the segment for `time`, by binary search.
    public func index(at time: MediaTime) -> Int? {
        guard let first = segments.first, let last = segments.last, time >= first.timeMapping.target.lowerBound,
            time <= last.timeMapping.target.upperBound
        else { return nil }
        var low = 0
        var high = segments.count - 1
        // The first segment whose target ends after `time`, or starts at it.
        while low < high {
            let middle = (low + high) / 2
            let target = segments[middle].timeMapping.target
            if target.upperBound < time || (target.upperBound == time && target.lowerBound < time) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// How `other` (a later snapshot) differs from this one; nil when it does not.
    public func change(to other: IntegratedTimelineSnapshot) -> Change? {
        func shape(_ segment: Segment) -> Segment {
            var copy = segment
            copy.loadedTimeRanges = []
            return copy
        }
        if segments.count != other.segments.count
            || zip(segments, other.segments).contains(where: { shape($0) != shape($1) })
            || duration != other.duration
        {
            return .segmentsChanged
        }
        if currentSegmentIndex != other.currentSegmentIndex { return .currentSegmentChanged }
        if segments != other.segments { return .loadedTimeRangesChanged }
        return nil
    }
}
