import Foundation
import HLSPlaylist

/// The JSON form of a schedule: what `hlsi schedule --json` prints and what the server serves as
/// `timeline.json`, one document for both (times in seconds, ranges as `[start, end]`, indefinite
/// durations as `null`, R23).
public struct ScheduleDocument: Codable, Sendable, Hashable {
    /// One event.
    public struct Event: Codable, Sendable, Hashable {
        /// The date range ID.
        public var id: String
        /// Where it starts on the primary timeline.
        public var start: Double
        /// Where primary resumes after it.
        public var resumeTime: Double
        /// Its effective resumption offset.
        public var resumptionOffset: Double
        /// How long it plays.
        public var playoutDuration: Double
        /// Whether it has an item.
        public var scheduled: Bool
        /// Its CUE tokens, if any.
        public var cue: [String]?
        /// Its X-RESTRICT tokens.
        public var restrictions: [String]
        /// X-TIMELINE-OCCUPIES: POINT or RANGE.
        public var timelineOccupancy: String
        /// X-TIMELINE-STYLE=PRIMARY.
        public var supplementsPrimaryContent: Bool
        /// START-DATE, when the event has one.
        public var date: String?
        /// X-ASSET-URI, as written.
        public var assetURI: String?
        /// X-ASSET-LIST, as written.
        public var assetList: String?
        /// X-RESUME-OFFSET in seconds, when written with a time (absent: the effective offset is
        /// `resumptionOffset`, and on live primary resumes at the start plus the time played, R10).
        public var resumeOffset: Double?
        /// X-PLAYOUT-LIMIT, when present.
        public var playoutLimit: Double?
        /// X-SKIP-CONTROL-OFFSET, -DURATION and -LABEL-ID, when present (an asset list's SKIP-CONTROL
        /// overrides them, R16).
        public var skipControl: SkipControlDocument?
        /// The ID of the Date Range Schedule the event came from (`scheduleIdentifier` in
        /// AVFoundation, R27); absent for an event of a plain tag.
        public var scheduleIdentifier: String?
    }

    /// An event's skip control: the window, measured from the start of the interstitial, in which
    /// a skip button is shown.
    public struct SkipControlDocument: Codable, Sendable, Hashable {
        /// Seconds played before the button shows.
        public var offset: Double?
        /// How long it shows; absent: until the interstitial ends.
        public var duration: Double?
        /// The key of the button's localized label.
        public var labelID: String?
    }

    /// One group: events that play back to back while primary stays suspended (R5), as the schedule
    /// decided it (``InterstitialSchedule/Group``). A player reads it instead of regrouping the items.
    public struct Group: Codable, Sendable, Hashable {
        /// The members' IDs, in playout order.
        public var members: [String]
        /// `PRE` or `POST` when the group plays before or after primary (R9); absent otherwise.
        public var cue: String?
        /// Where it starts on the primary timeline.
        public var start: Double
        /// The computed point where primary resumes after it (its last member's `resumeTime`):
        /// primary resumes at the later of it and the first segment; the end of primary for a POST
        /// group, which resumes nothing (R9, R21).
        public var resumeTime: Double
        /// How long it plays: the sum of its members' playout durations.
        public var playoutDuration: Double
        /// Whether it has items (false after the end of a VOD primary, R22).
        public var scheduled: Bool
        /// Where its first item starts on the integrated timeline; absent when it has no items.
        public var integrated: Double?
    }

    /// One item.
    public struct Item: Codable, Sendable, Hashable {
        /// `primary` or `interstitial`.
        public var kind: String
        /// The event's ID for interstitial items.
        public var id: String?
        /// The primary span, `[start, end]` (backwards after a negative offset, R21).
        public var primary: [Double]
        /// The playout range.
        public var playout: [Double]
        /// The integrated range.
        public var integrated: [Double]
    }

    /// The three durations; `null` when indefinite.
    public struct Durations: Codable, Sendable, Hashable {
        /// The primary duration.
        public var primary: Double?
        /// The playout duration.
        public var playout: Double?
        /// The integrated timeline's duration.
        public var integrated: Double?

        /// Durations in seconds; nil for indefinite or unknown.
        public init(primary: Double?, playout: Double?, integrated: Double?) {
            self.primary = primary
            self.playout = playout
            self.integrated = integrated
        }

        /// Encodes every key, `null` included.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(primary, forKey: .primary)
            try container.encode(playout, forKey: .playout)
            try container.encode(integrated, forKey: .integrated)
        }

        enum CodingKeys: String, CodingKey { case primary, playout, integrated }
    }

    /// Every event, in input order.
    public var events: [Event]
    /// The groups, by start (the PRE group first), scheduled or not.
    public var groups: [Group]
    /// The items in playout order.
    public var items: [Item]
    /// The durations.
    public var durations: Durations
    /// Whether the primary is live.
    public var live: Bool
    /// The date at primary time zero, when the primary is dated (EXT-X-PROGRAM-DATE-TIME): a live
    /// player maps the schedule's times onto its own with it.
    public var startDate: String?

    /// A document of these parts.
    package init(
        events: [Event], groups: [Group] = [], items: [Item], durations: Durations, live: Bool,
        startDate: String? = nil
    ) {
        self.events = events
        self.groups = groups
        self.items = items
        self.durations = durations
        self.live = live
        self.startDate = startDate
    }

    /// The document of a schedule.
    public init(_ schedule: InterstitialSchedule) {
        events = schedule.events.map { event in
            Event(
                id: event.id, start: event.start.seconds, resumeTime: event.resumeTime.seconds,
                resumptionOffset: event.resumptionOffset.seconds, playoutDuration: event.playoutDuration.seconds,
                scheduled: event.isScheduled, cue: event.event.cueTokens, restrictions: event.event.restrictions.tokens,
                timelineOccupancy: event.event.timelineOccupancy.attributeValue,
                supplementsPrimaryContent: event.event.supplementsPrimaryContent,
                date: event.event.date?.iso8601, assetURI: event.event.assetURI, assetList: event.event.assetListURI,
                resumeOffset: event.event.resumptionOffset?.time?.seconds,
                playoutLimit: event.event.playoutLimit?.seconds,
                skipControl: event.event.skipControl.isEmpty
                    ? nil
                    : SkipControlDocument(
                        offset: event.event.skipControl.offset?.seconds,
                        duration: event.event.skipControl.duration?.seconds, labelID: event.event.skipControl.labelID),
                scheduleIdentifier: event.event.scheduleIdentifier)
        }
        items = schedule.items.map { item in
            Item(
                kind: item.kind.rawValue, id: schedule.eventID(of: item),
                primary: [item.primary.start.seconds, item.primary.end.seconds],
                playout: [item.playout.lowerBound.seconds, item.playout.upperBound.seconds],
                integrated: [item.integrated.lowerBound.seconds, item.integrated.upperBound.seconds])
        }
        var firstItem: [Int: Double] = [:]
        for item in schedule.items.reversed() {
            if let index = item.eventIndex { firstItem[index] = item.integrated.lowerBound.seconds }
        }
        groups = schedule.groups.map { group in
            Group(
                members: group.members.map { schedule.events[$0].id },
                cue: group.cue == .join ? "PRE" : group.cue == .leave ? "POST" : nil, start: group.start.seconds,
                resumeTime: group.resumeTime.seconds, playoutDuration: group.playoutDuration.seconds,
                scheduled: group.isScheduled, integrated: group.isScheduled ? firstItem[group.members[0]] : nil)
        }
        durations = Durations(
            primary: schedule.primaryDuration?.seconds, playout: schedule.playoutDuration?.seconds,
            integrated: schedule.integratedDuration?.seconds)
        live = schedule.isLive
        startDate = schedule.primaryStartDate?.iso8601
    }

    /// Pretty JSON with sorted keys and unescaped slashes, ending with a newline: what
    /// `JSONEncoder` gives for it, written by a `PrettyJSONWriter` without building a tree.
    public var json: String {
        var writer = PrettyJSONWriter(capacity: 512 * (events.count + items.count) + 256 * groups.count + 256)
        writer.beginObject()
        writeTimelineMembers(into: &writer)
        writer.key("live")
        writer.bool(live)
        if let startDate {
            writer.key("startDate")
            writer.string(startDate)
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self) + "\n"
    }

    /// Writes the members `durations`, `events`, `groups` and `items`, in this order (sorted keys),
    /// into the object `writer` is in; the caller writes the keys before and after them.
    package func writeTimelineMembers(into writer: inout PrettyJSONWriter) {
        writer.key("durations")
        durations.write(into: &writer)
        writer.key("events")
        writer.beginArray()
        for event in events { event.write(into: &writer) }
        writer.endArray()
        writer.key("groups")
        writer.beginArray()
        for group in groups { group.write(into: &writer) }
        writer.endArray()
        writer.key("items")
        writer.beginArray()
        for item in items { item.write(into: &writer) }
        writer.endArray()
    }
}

extension ScheduleDocument.Event {
    /// Writes the event as `JSONEncoder` encodes it: absent optionals left out, keys sorted.
    package func write(into writer: inout PrettyJSONWriter) {
        writer.beginObject()
        if let assetList {
            writer.key("assetList")
            writer.string(assetList)
        }
        if let assetURI {
            writer.key("assetURI")
            writer.string(assetURI)
        }
        if let cue {
            writer.key("cue")
            writer.beginArray()
            for token in cue { writer.string(token) }
            writer.endArray()
        }
        if let date {
            writer.key("date")
            writer.string(date)
        }
        writer.key("id")
        writer.string(id)
        writer.key("playoutDuration")
        writer.number(playoutDuration)
        if let playoutLimit {
            writer.key("playoutLimit")
            writer.number(playoutLimit)
        }
        writer.key("restrictions")
        writer.beginArray()
        for token in restrictions { writer.string(token) }
        writer.endArray()
        if let resumeOffset {
            writer.key("resumeOffset")
            writer.number(resumeOffset)
        }
        writer.key("resumeTime")
        writer.number(resumeTime)
        writer.key("resumptionOffset")
        writer.number(resumptionOffset)
        if let scheduleIdentifier {
            writer.key("scheduleIdentifier")
            writer.string(scheduleIdentifier)
        }
        writer.key("scheduled")
        writer.bool(scheduled)
        if let skipControl {
            writer.key("skipControl")
            writer.beginObject()
            if let duration = skipControl.duration {
                writer.key("duration")
                writer.number(duration)
            }
            if let labelID = skipControl.labelID {
                writer.key("labelID")
                writer.string(labelID)
            }
            if let offset = skipControl.offset {
                writer.key("offset")
                writer.number(offset)
            }
            writer.endObject()
        }
        writer.key("start")
        writer.number(start)
        writer.key("supplementsPrimaryContent")
        writer.bool(supplementsPrimaryContent)
        writer.key("timelineOccupancy")
        writer.string(timelineOccupancy)
        writer.endObject()
    }
}

extension ScheduleDocument.Group {
    /// Writes the group as `JSONEncoder` encodes it: absent optionals left out, keys sorted.
    package func write(into writer: inout PrettyJSONWriter) {
        writer.beginObject()
        if let cue {
            writer.key("cue")
            writer.string(cue)
        }
        if let integrated {
            writer.key("integrated")
            writer.number(integrated)
        }
        writer.key("members")
        writer.beginArray()
        for member in members { writer.string(member) }
        writer.endArray()
        writer.key("playoutDuration")
        writer.number(playoutDuration)
        writer.key("resumeTime")
        writer.number(resumeTime)
        writer.key("scheduled")
        writer.bool(scheduled)
        writer.key("start")
        writer.number(start)
        writer.endObject()
    }
}

extension ScheduleDocument.Item {
    /// Writes the item as `JSONEncoder` encodes it.
    package func write(into writer: inout PrettyJSONWriter) {
        writer.beginObject()
        if let id {
            writer.key("id")
            writer.string(id)
        }
        writer.key("integrated")
        writer.numbers(integrated)
        writer.key("kind")
        writer.string(kind)
        writer.key("playout")
        writer.numbers(playout)
        writer.key("primary")
        writer.numbers(primary)
        writer.endObject()
    }
}

extension ScheduleDocument.Durations {
    /// Writes the durations, `null` included.
    package func write(into writer: inout PrettyJSONWriter) {
        writer.beginObject()
        writer.key("integrated")
        writer.number(integrated)
        writer.key("playout")
        writer.number(playout)
        writer.key("primary")
        writer.number(primary)
        writer.endObject()
    }
}

extension PrettyJSONWriter {
    /// Writes an array of numbers.
    package mutating func numbers(_ values: [Double]) {
        beginArray()
        for value in values { number(value) }
        endArray()
    }
}

extension InterstitialSchedule {
    /// The schedule as JSON (``ScheduleDocument``): `hlsi schedule --json` and the server's
    /// `timeline.json`.
    public var jsonDocument: String { ScheduleDocument(self).json }
}
