import HLSPlaylist

/// Where every interstitial plays, where primary resumes, and what the timelines look like.
///
/// Items are in playout order (profile R21): primary items and one interstitial item per
/// scheduled event, each with three ranges. `primary` is the range of the primary timeline the item
/// covers (for an interstitial, from the resumption point before it to its own `resumeTime`);
/// `playout` is what is played, back to back; `integrated` is the timeline a UI draws (POINT events
/// take no length, RANGE events their played length, primary skipped by a positive offset is absent,
/// primary replayed after a negative offset appears again).
public struct InterstitialSchedule: Sendable {
    /// One resolved event.
    public struct Event: Sendable, Identifiable {
        /// The event as given.
        public var event: InterstitialEvent
        /// Its ID.
        public var id: String { event.identifier }
        /// Where it starts on the primary timeline: its date mapped (R1), cued (R9), snapped (R6).
        public var start: MediaTime
        /// Where primary resumes after it: the group's start plus the offsets of the group members
        /// up to and including it (R5), snapped (R6); the end of primary in a group that holds a
        /// POST (R9). Primary resumes at the later of it and the first segment.
        public var resumeTime: MediaTime
        /// Its effective resumption offset (R3, R4, R7, R10); 0 in a group that holds a POST (R9).
        public var resumptionOffset: MediaTime
        /// How long it plays: its effective duration (R3), 0 when nothing plays (R7), less
        /// ``startOffset`` when playback starts inside it (R26).
        public var playoutDuration: MediaTime
        /// Where in the event playback starts when playback starts after the event's start and
        /// inside it (R11, R26; sent as `_HLS_start_offset`); zero otherwise.
        public var startOffset: MediaTime
        /// Whether it has an item: false for events after the end of a VOD primary (R22), before the
        /// start of primary unless they cover the playback start point (R26), or POST events of a live
        /// primary.
        public var isScheduled: Bool
        /// Why the event could not be placed at all, or why the schema forbids it
        /// (``InterstitialEvent/schemaViolations``); then it is not scheduled.
        public var problem: String?
    }

    /// Events that play back to back while primary stays suspended (profile R5): the events that
    /// share a start, and those that start inside the primary range the group skips.
    public struct Group: Sendable, Hashable {
        /// The members' indices in ``InterstitialSchedule/events``, in playout order.
        public var members: [Int]
        /// The cue the members share: PRE and POST groups play before and after primary (R9).
        public var cue: InterstitialEvent.Cue
        /// Where the group starts on the primary timeline (its first member's start, snapped OUT).
        public var start: MediaTime
        /// The computed point where primary resumes after the group: the last member's
        /// ``Event/resumeTime`` (the end of primary for a group that holds a POST, which resumes
        /// nothing, R9). Primary resumes at the later of it and the first segment (R21).
        public var resumeTime: MediaTime
        /// The group's playout length: the sum of its members' playout durations.
        public var playoutDuration: MediaTime
        /// Whether the group has items (false after the end of a VOD primary, R22).
        public var isScheduled: Bool
    }

    /// A range of the primary timeline that an item covers, from where it starts to where it ends;
    /// for an interstitial, from the resumption point before it to its own `resumeTime`, so it runs
    /// backwards when a negative offset replays primary (profile R21).
    public struct Span: Sendable, Hashable {
        /// Where the item starts on the primary timeline.
        public var start: MediaTime
        /// Where the item ends (for an interstitial: where primary resumes after it).
        public var end: MediaTime

        /// Creates a span.
        public init(start: MediaTime, end: MediaTime) {
            self.start = start
            self.end = end
        }

        /// Whether it runs backwards (a negative resumption offset).
        public var isReversed: Bool { end < start }
        /// The span's extent, lower bound first.
        public var range: Range<MediaTime> { min(start, end)..<max(start, end) }
        /// Its length, negative when reversed.
        public var length: MediaTime { end - start }
    }

    /// What an item is.
    public enum ItemKind: String, Sendable, Hashable, Codable {
        /// Primary content.
        case primary
        /// An interstitial event.
        case interstitial
    }

    /// One item of the playout.
    public struct Item: Sendable, Hashable {
        /// Primary content or an interstitial.
        public var kind: ItemKind
        /// The event's index in ``InterstitialSchedule/events`` for interstitial items.
        public var eventIndex: Int?
        /// The range of the primary timeline it covers, from its start to its end (R21): for an
        /// interstitial, from the resumption point before it to its `resumeTime`.
        public var primary: Span
        /// Where it plays, back to back with the others.
        public var playout: Range<MediaTime>
        /// Where a UI draws it.
        public var integrated: Range<MediaTime>
    }

    /// Every event, in input order, resolved.
    public var events: [Event]
    /// The groups of coinciding events (R5), by start (tag order among equal starts; a PRE is placed
    /// at the playback start and plays in tag order with the events there). Groups that are not
    /// scheduled (after the end of a VOD, R22) are listed too and still report cumulative
    /// resumption points; events that cannot be placed have no group.
    public var groups: [Group]
    /// The items in playout order.
    public var items: [Item]
    /// The primary duration; nil when indefinite (live, R23).
    public var primaryDuration: MediaTime?
    /// The playout duration; nil when indefinite.
    public var playoutDuration: MediaTime?
    /// The integrated timeline's duration; nil when indefinite.
    public var integratedDuration: MediaTime?
    /// Whether the primary is live.
    public var isLive: Bool
    /// The date at primary time zero, when the primary carries EXT-X-PROGRAM-DATE-TIME: what ties
    /// the schedule's primary times to the dates of a live window.
    public var primaryStartDate: DateTime?

    /// Primary item indices sorted by their primary start, for lookups by primary time.
    private var primaryIndex: [Int]

    /// The ID of an item's event.
    public func eventID(of item: Item) -> String? { item.eventIndex.map { events[$0].id } }

    // MARK: Lookups, O(log n)

    /// The first item whose playout range contains `time` (an item starting there wins over one
    /// ending there; zero-length items are found at their instant).
    public func item(atPlayout time: MediaTime) -> Int? {
        Self.search(items.indices, time) { items[$0].playout }
    }

    /// The first item whose integrated range contains `time`.
    public func item(atIntegrated time: MediaTime) -> Int? {
        Self.search(items.indices, time) { items[$0].integrated }
    }

    /// The primary item that plays primary time `time` (the first in playout order when a negative
    /// offset replays it).
    public func primaryItem(at time: MediaTime) -> Int? {
        Self.search(primaryIndex.indices, time) { items[primaryIndex[$0]].primary.range }.map { primaryIndex[$0] }
    }

    /// Binary search for the first position whose range (sorted by lower bound) contains `time`,
    /// or starts at it.
    private static func search(
        _ positions: Range<Int>, _ time: MediaTime, range: (Int) -> Range<MediaTime>
    ) -> Int? {
        var low = positions.lowerBound
        var high = positions.upperBound
        while low < high {
            let middle = (low + high) / 2
            if range(middle).upperBound <= time && range(middle).lowerBound < time {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < positions.upperBound else { return nil }
        let found = range(low)
        return found.lowerBound <= time && (time < found.upperBound || found.isEmpty && found.lowerBound == time)
            ? low : nil
    }

    /// The group an event belongs to, by the event's index.
    public func group(ofEvent index: Int) -> Group? { groups.first { $0.members.contains(index) } }

    init(
        events: [Event], groups: [Group], items: [Item], primaryDuration: MediaTime?, playoutDuration: MediaTime?,
        integratedDuration: MediaTime?, isLive: Bool, primaryStartDate: DateTime? = nil
    ) {
        self.primaryStartDate = primaryStartDate
        self.events = events
        self.groups = groups
        self.items = items
        self.primaryDuration = primaryDuration
        self.playoutDuration = playoutDuration
        self.integratedDuration = integratedDuration
        self.isLive = isLive
        self.primaryIndex = items.indices.filter { items[$0].kind == .primary }.sorted {
            (items[$0].primary.start, $0) < (items[$1].primary.start, $1)
        }
    }
}
