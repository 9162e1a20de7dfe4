import HLSPlaylist

extension InterstitialSchedule {
    /// Resolves events against a primary playlist: start times, groups, resumption points, playout
    /// lengths and the items of the playout, following the behavior profile.
    ///
    /// - R1: START-DATE maps to primary time through the segment that contains it.
    /// - R3, R4: the resumption offset is X-RESUME-OFFSET, else the effective duration
    ///   (``InterstitialEvent/effectiveDuration(played:)``); client events default to 0, and an
    ///   indefinite offset is the time played.
    /// - R5: events sharing a start (PRE and POST included), or starting inside the primary range
    ///   their group skips, form one group whose offsets add up, scheduled or not; starts are
    ///   compared after X-SNAP OUT, and members are ordered by snapped start, then tag order. X-SNAP
    ///   IN of the last member moves the point where primary resumes; the members' offsets add up
    ///   unsnapped.
    /// - R6: snapping goes to the nearest segment boundary (OUT: ties earlier, several playlists the
    ///   earliest; IN: ties later, several the latest).
    /// - R7: an empty asset list plays nothing and resumes at X-RESUME-OFFSET or 0; a failed load
    ///   plays nothing and resumes at 0, or on live, for the member that covers the playback start
    ///   point (`coveredMember(startingAt:lengths:at:)`), at that point.
    /// - R9: PRE plays before primary, POST after its end; a group that holds a POST resumes nothing
    ///   (none of its members adds an offset), so nothing of primary follows it.
    /// - R21: an interstitial item's `primary` span runs from the resumption point before it to its
    ///   own `resumeTime`, backwards for a negative offset; a POST's is `[end, end]`. Items start at
    ///   the playback start point: no primary item before it, nor before the first segment.
    /// - R22, R23: events after the end of a VOD primary get no item; live durations are indefinite.
    /// - R26: a group that starts before the playback start point plays only the part after it
    ///   (earlier members play nothing, the first remaining one starts part way in).
    public static func resolve(_ input: ScheduleInput) -> InterstitialSchedule {
        let primary = input.primary
        let startOfPrimary = primary.segments.first?.startTime ?? .zero
        let endOfPrimary = primary.segments.last?.endTime ?? startOfPrimary
        let playbackStart = min(max(input.playbackStart ?? startOfPrimary, startOfPrimary), endOfPrimary)
        let playlists = [primary] + input.otherPlaylists

        // Each event on its own: start (unsnapped), playout length and offset.
        var events: [Event] = []
        var nominalLengths: [MediaTime] = []
        for event in input.events {
            var start: MediaTime
            var problem: String?
            switch event.cue {
            case .join: start = playbackStart
            case .leave: start = endOfPrimary
            case .none:
                if let time = event.time {
                    start = time
                } else if let date = event.date, let time = primary.time(at: date) {
                    start = time
                } else {
                    start = startOfPrimary
                    problem =
                        event.date == nil
                        ? "it has neither a time nor a START-DATE"
                        : "its START-DATE cannot be placed: the playlist has no EXT-X-PROGRAM-DATE-TIME"
                }
            }
            // An event the schema forbids is listed but never scheduled (one rule with the validator).
            if let violation = event.schemaViolations.first { problem = violation.message }
            let id = event.identifier
            let failed = input.failedEvents.contains(id)
            let nothing = failed || event.assetList.map { $0.assets.isEmpty } == true
            // An END-DATE before START-DATE (or a negative time played) plays nothing; times saturate,
            // so every range below has lowerBound <= upperBound whatever the input. A failed event
            // keeps the length it would have had for deciding which member covers the start (R26).
            let nominal = max(event.effectiveDuration(played: input.playedDurations[id]) ?? .zero, .zero)
            nominalLengths.append(nominal)
            let length = nothing ? .zero : nominal
            var offset: MediaTime
            switch event.resumptionOffset {
            case .time(let value)?: offset = failed ? .zero : value
            case .indefinite?: offset = failed ? .zero : length
            case nil: offset = length
            }
            events.append(
                Event(
                    event: event, start: start, resumeTime: start + offset, resumptionOffset: offset,
                    playoutDuration: length, startOffset: .zero, isScheduled: false, problem: problem))
        }

        let lengths = events.map(\.playoutDuration)
        let cues = input.events.map(\.cue)

        // Groups: by start (tag order among equal starts). Events after the end of a
        // VOD primary group among themselves; so do POST events of a live primary.
        func afterEnd(_ index: Int) -> Bool {
            switch cues[index] {
            case .join: false
            case .leave: input.isLive
            case .none: !input.isLive && events[index].start > endOfPrimary
            }
        }
        // X-SNAP OUT moves each event's start first (R6): groups form and sort by the snapped starts.
        for index in events.indices where cues[index] == .none && events[index].problem == nil {
            guard input.events[index].alignsStartWithPrimarySegmentBoundary,
                let snapped = snap(events[index].start, in: playlists, preferLater: false)
            else { continue }
            events[index].start = snapped
        }
        let starts = events.map(\.start)
        // By start, then tag order (App. D.2): a PRE, placed at the playback start, plays in tag order
        // with the events that share its start.
        let order = events.indices.filter { events[$0].problem == nil }.sorted { a, b in
            if starts[a] != starts[b] { return starts[a] < starts[b] }
            return a < b
        }
        var groups: [Group] = []
        var firstStart = MediaTime.zero
        // The members' lengths so far in the last group, for where the next member would start.
        var groupLengths: [MediaTime] = []
        for index in order {
            let eventStart = events[index].start
            let cue = cues[index]
            // A PRE or POST joins only events that share its start: a PRE plays before primary, not
            // inside a group that started earlier (that group may cover the playback start, R26).
            if let last = groups.last, afterEnd(last.members[0]) == afterEnd(index),
                eventStart == firstStart
                    || (cue == .none && eventStart > last.start && eventStart < last.resumeTime)
            {
                groups[groups.count - 1].members.append(index)
                // A group that holds a PRE plays before primary; one that holds a POST, after it (R9).
                if cue != .none, groups[groups.count - 1].cue != .join { groups[groups.count - 1].cue = cue }
            } else {
                firstStart = eventStart
                groupLengths = []
                let start = eventStart
                groups.append(
                    Group(
                        members: [index], cue: cue, start: start, resumeTime: start, playoutDuration: .zero,
                        isScheduled: false))
            }
            let position = groups.count - 1
            groupLengths.append(nominalLengths[index])
            // R7 on live: the failed member that covers the playback start point resumes there, so a
            // live viewer never moves further behind the live edge than it started (R10); a failed
            // member that does not cover it keeps the offset 0 of R7.
            if input.isLive, input.failedEvents.contains(events[index].id),
                coveredMember(startingAt: groups[position].start, lengths: groupLengths, at: playbackStart)?.member
                    == groupLengths.count - 1
            {
                events[index].resumptionOffset = max(playbackStart - groups[position].resumeTime, .zero)
            }
            // After POST there is no primary left to resume into.
            if cue != .leave {
                groups[position].resumeTime = groups[position].resumeTime + events[index].resumptionOffset
            }
            groups[position].playoutDuration = groups[position].playoutDuration + events[index].playoutDuration
            events[index].resumeTime = groups[position].resumeTime
        }

        // A group that holds a POST resumes nothing (R9): primary has ended, so none of its members
        // adds an offset and each resumes at the end, where the group starts.
        for position in groups.indices where groups[position].members.contains(where: { cues[$0] == .leave }) {
            let start = groups[position].start
            groups[position].resumeTime = start
            for index in groups[position].members {
                events[index].resumptionOffset = .zero
                events[index].resumeTime = start
            }
        }

        // Where primary resumes (X-SNAP IN of the last member), and what is scheduled. A group before
        // the start point that does not cover it is passed: it plays nothing (R26).
        var passed = Array(repeating: false, count: groups.count)
        for position in groups.indices {
            let members = groups[position].members
            let last = members[members.count - 1]
            let holdsPost = members.contains { cues[$0] == .leave }
            if !holdsPost, input.events[last].alignsResumptionWithPrimarySegmentBoundary,
                let snapped = snap(groups[position].resumeTime, in: playlists, preferLater: true)
            {
                groups[position].resumeTime = snapped
                events[last].resumeTime = snapped
            }
            let group = groups[position]
            // Playback that starts after a group's start plays only what covers the start point (R26):
            // earlier members play nothing, the member that covers it starts part way in (a failed
            // one plays nothing), and the later ones play in full.
            let before = group.cue != .join && group.start < playbackStart
            let covered =
                before
                ? coveredMember(startingAt: group.start, lengths: members.map { nominalLengths[$0] }, at: playbackStart)
                : nil
            passed[position] = before && covered == nil
            let scheduled: Bool
            if afterEnd(members[0]) {
                scheduled = false
            } else if group.cue == .join || group.start >= startOfPrimary {
                scheduled = true
            } else {
                // Before the start of primary: only a group that covers the playback start point (R26).
                scheduled = covered != nil
            }
            groups[position].isScheduled = scheduled
            for (place, index) in members.enumerated() {
                events[index].isScheduled = scheduled
                guard before else { continue }
                if let covered, place == covered.member {
                    let length = events[index].playoutDuration
                    if covered.offset < length { events[index].startOffset = covered.offset }
                    events[index].playoutDuration = length - min(covered.offset, length)
                } else if covered.map({ place < $0.member }) ?? true {
                    events[index].playoutDuration = .zero
                }
            }
            groups[position].playoutDuration = members.reduce(.zero) { $0 + events[$1].playoutDuration }
        }

        // Items.
        var items: [Item] = []
        // Primary plays from the playback start point (R21): nothing before it is played.
        var cursor = playbackStart
        var playout = MediaTime.zero
        var integrated = MediaTime.zero
        func addPrimary(to point: MediaTime) {
            // No primary outside the playlist: an event before it may resume there, and a live
            // event after the last segment lies ahead of what the playlist holds yet.
            cursor = max(cursor, startOfPrimary)
            let end = min(point, endOfPrimary)
            guard end > cursor else { return }
            let length = end - cursor
            items.append(
                Item(
                    kind: .primary, eventIndex: nil, primary: Span(start: cursor, end: end),
                    playout: playout..<(playout + length), integrated: integrated..<(integrated + length)))
            playout = playout + length
            integrated = integrated + length
            cursor = end
        }
        // Playout order: the groups passed before the start point (they play nothing), the PRE group
        // (R9), then the others by start: a group that covers the playback start plays after the
        // PRE (R26), and a group that holds a POST is last.
        let playoutOrder =
            groups.indices.filter { passed[$0] } + groups.indices.filter { groups[$0].cue == .join }
            + groups.indices.filter { groups[$0].cue != .join && !passed[$0] }
        for position in playoutOrder where groups[position].isScheduled {
            let group = groups[position]
            let holdsPost = group.members.contains { cues[$0] == .leave }
            if holdsPost { addPrimary(to: endOfPrimary) } else { addPrimary(to: group.start) }
            // A POST group starts and resumes at the end, whatever primary an earlier offset skipped (R9).
            var from = holdsPost ? endOfPrimary : group.start
            for index in group.members {
                let event = events[index]
                let length = event.playoutDuration
                let drawn = event.event.timelineOccupancy == .fill ? lengths[index] : .zero
                let to = event.resumeTime
                items.append(
                    Item(
                        kind: .interstitial, eventIndex: index, primary: Span(start: from, end: to),
                        playout: playout..<(playout + length), integrated: integrated..<(integrated + drawn)))
                playout = playout + length
                integrated = integrated + drawn
                from = to
            }
            if holdsPost {
                cursor = max(cursor, endOfPrimary)
            } else if !passed[position] {
                // A passed group leaves primary at the start point.
                cursor = from
            }
        }
        addPrimary(to: endOfPrimary)
        let live = input.isLive
        return InterstitialSchedule(
            events: events, groups: groups, items: items, primaryDuration: live ? nil : endOfPrimary - startOfPrimary,
            playoutDuration: live ? nil : playout, integratedDuration: live ? nil : integrated, isLive: live,
            primaryStartDate: input.primary.date(at: .zero))
    }

    /// The member of a group that covers `point` (R26): with members back to back from the group's
    /// `start`, each as long as in `lengths` (a failed member counts the length it would have had),
    /// the one playing at `point`, and how far into it `point` is. Nil unless the group started
    /// before `point` (a group that starts at it plays in full) and has not ended by then. The one
    /// place this is decided: what plays from the start point, and which failed member resumes
    /// there on live (R7).
    package static func coveredMember(
        startingAt start: MediaTime, lengths: [MediaTime], at point: MediaTime
    ) -> (member: Int, offset: MediaTime)? {
        guard start < point else { return nil }
        var memberStart = start
        for (member, length) in lengths.enumerated() {
            if memberStart <= point && point < memberStart + length { return (member, point - memberStart) }
            memberStart = memberStart + length
        }
        return nil
    }

    /// The segment boundary nearest `time` across `playlists` (R6): per playlist the nearest one
    /// (ties: earlier, or later with `preferLater`), then the earliest (OUT) or latest (IN) of those.
    /// Nil when `time` is outside every playlist's range.
    package static func snap(_ time: MediaTime, in playlists: [MediaPlaylist], preferLater: Bool) -> MediaTime? {
        var candidates: [MediaTime] = []
        for playlist in playlists {
            guard let first = playlist.segments.first, let last = playlist.segments.last,
                time >= first.startTime, time <= last.endTime
            else { continue }
            var low = 0
            var high = playlist.segments.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if playlist.segments[middle].startTime <= time { low = middle } else { high = middle - 1 }
            }
            let before = playlist.segments[low].startTime
            let after = playlist.segments[low].endTime
            let toBefore = time - before
            let toAfter = after - time
            candidates.append(toBefore < toAfter || (toBefore == toAfter && !preferLater) ? before : after)
        }
        return preferLater ? candidates.max() : candidates.min()
    }
}
